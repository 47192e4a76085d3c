// A small real reconciler for the runtime tests: a source ConfigMap (label runtime-test/source=true) is reconciled
// into `<name>-derived` by server-side apply, with the values upper-cased. A `fail` key makes the pass fail.
import { createHash } from 'node:crypto';
import { findObject, applyObject, getObject } from '#shared/kube/index.ts';
import type { KubeObject } from '#shared/kube/index.ts';
import type { ObjectFacts, PassKey, PassOutcome, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export const sourceLabel = 'runtime-test/source';

export type ConfigMapReconcilerHooks = {
  /** Awaited inside the pass before it applies (to hold the lease open, or to outlast the deadline). */
  beforeApply?: (key: PassKey, signal: AbortSignal) => Promise<void>;
};

function hashOf(value: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(value)).digest('hex')}`;
}

function derivedOf(source: KubeObject): KubeObject {
  const data = (source['data'] ?? {}) as Record<string, string>;
  const upper = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toUpperCase()]));
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace: source.metadata.namespace ?? 'default',
      name: `${source.metadata.name ?? ''}-derived`,
      labels: { 'runtime-test/derived-from': source.metadata.name ?? '' },
    },
    data: upper,
  };
}

/** The reconciler; `hooks` let a test hold a pass open at a known point. */
export function createConfigMapReconciler(hooks: ConfigMapReconcilerHooks = {}): Reconciler {
  return {
    controller: 'addons',
    kinds: [{ apiVersion: 'v1', kind: 'ConfigMap', labelSelector: `${sourceLabel}=true` }],
    async getFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined> {
      const source = await findObject(deps.kube, key);
      if (!source || source.metadata.labels?.[sourceLabel] !== 'true') return undefined;
      return {
        uid: source.metadata.uid ?? '',
        generation: source.metadata.generation ?? 0,
        resourceVersion: source.metadata.resourceVersion ?? '',
        inputHash: hashOf(source['data'] ?? {}),
      };
    },
    async reconcile(deps, key, ctx): Promise<PassOutcome> {
      const source = await getObject(deps.kube, key);
      const data = (source['data'] ?? {}) as Record<string, string>;
      if (data['fail'] !== undefined)
        throw new Error(`failed to derive ConfigMap ${key.namespace}/${key.name}: ${data['fail']}`);
      await hooks.beforeApply?.(key, ctx.signal);
      ctx.signal.throwIfAborted();
      const desired = derivedOf(source);
      const intentHash = hashOf(desired);
      const ref = { namespace: desired.metadata.namespace, name: desired.metadata.name ?? '' };
      const previous = ctx.previous?.noChange;
      const current = await findObject(deps.kube, { apiVersion: 'v1', kind: 'ConfigMap', ...ref });
      if (
        current &&
        previous?.intentHash === intentHash &&
        previous.objectUid === current.metadata.uid &&
        previous.resourceVersion === current.metadata.resourceVersion
      ) {
        return { result: 'Success', changed: [], noChange: previous };
      }
      const applied = await applyObject(deps.kube, desired, { fieldManager: deps.config.fieldManager });
      const changed =
        applied.metadata.resourceVersion === current?.metadata.resourceVersion
          ? []
          : [`applied ConfigMap ${ref.namespace}/${ref.name}`];
      return {
        result: 'Success',
        changed,
        noChange: {
          objectUid: applied.metadata.uid ?? '',
          resourceVersion: applied.metadata.resourceVersion ?? '',
          intentHash,
        },
      };
    },
  };
}
