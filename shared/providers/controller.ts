// The providers controller as the runtime sees it: the operator's seven provider kinds are reconciled; a change of a
// ConfigMap or Secret is mapped to the providers that read it (release ConfigMaps picked by `fetchConfig.selector`,
// `additionalManifests`, `configSecret`).
import { createCheckedTransport } from '#shared/providers/fetch/checked-transport.ts';
import {
  operatorApiVersion,
  providerKindNames,
  isProviderKind,
  type Provider,
} from '#shared/api/operator/v1alpha2/provider.ts';
import { formatLabelSelector, matchesLabelSelector } from '#shared/api/label-selector.ts';
import { findObject, listObjects, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { getProvider, listAllProviders, reconcileProvider, type ProviderDeps } from '#shared/providers/index.ts';
import { computeInputHash } from '#shared/runtime/compute-input-hash.ts';
import type {
  ChangedObject,
  ObjectFacts,
  PassKey,
  PassOutcome,
  Reconciler,
  RuntimeDeps,
} from '#shared/runtime/types.ts';

/** `{uid, resourceVersion}` of an object, or `missing`: which version of an input the pass will read. */
const versionOf = (obj: KubeObject | undefined) =>
  obj === undefined ? 'missing' : { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion };

async function getReferenced(kube: KubeClient, kind: 'ConfigMap' | 'Secret', namespace: string, name: string) {
  return versionOf(await findObject(kube, { apiVersion: 'v1', kind, namespace, name }));
}

/**
 * The facts of a provider: besides its spec (the generation), the versions of the objects its pass reads from the
 * management cluster — the release ConfigMaps its selector picks, its additional manifests and its config Secret
 * (versions only: secret values never enter the hash). Status, finalizers and annotations, which the pass writes,
 * stay out. Reads: the provider, plus one read per referenced source.
 */
async function getProviderFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined> {
  if (!isProviderKind(key.kind)) return undefined;
  const provider = await getProvider(deps.kube, { kind: key.kind, namespace: key.namespace, name: key.name });
  if (provider === undefined) return undefined;
  const namespace = provider.metadata.namespace ?? '';
  const spec = provider.spec ?? {};
  const selector = spec.fetchConfig?.selector;
  const releases =
    selector === undefined
      ? undefined
      : (
          await listObjects(deps.kube, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace,
            labelSelector: formatLabelSelector(selector),
          })
        ).items
          .map((cm) => ({ name: cm.metadata.name, uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion }))
          .sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
  const manifests = spec.additionalManifests;
  const secret = spec.configSecret;
  const inputs = {
    deleting: provider.metadata.deletionTimestamp !== undefined,
    releases,
    additionalManifests: manifests
      ? await getReferenced(deps.kube, 'ConfigMap', manifests.namespace || namespace, manifests.name)
      : undefined,
    configSecret: secret
      ? await getReferenced(deps.kube, 'Secret', secret.namespace || namespace, secret.name)
      : undefined,
  };
  return {
    uid: provider.metadata.uid ?? '',
    generation: provider.metadata.generation ?? 0,
    resourceVersion: provider.metadata.resourceVersion ?? '',
    inputHash: computeInputHash(inputs),
  };
}

/** Whether `provider` reads the changed ConfigMap/Secret (`labels` undefined: it is gone, so any selector may). */
function readsObject(provider: Provider, change: ChangedObject, labels: Record<string, string> | undefined): boolean {
  const namespace = provider.metadata.namespace ?? '';
  const spec = provider.spec ?? {};
  const names = (ref: { name: string; namespace?: string | undefined } | undefined) =>
    ref !== undefined && ref.name === change.name && (ref.namespace || namespace) === change.namespace;
  if (change.kind === 'Secret') return names(spec.configSecret);
  if (names(spec.additionalManifests)) return true;
  const selector = spec.fetchConfig?.selector;
  if (selector === undefined || namespace !== change.namespace) return false;
  try {
    return labels === undefined || matchesLabelSelector(selector, labels, { empty: 'nothing' });
  } catch {
    return false; // NOTE: an invalid selector is reported by the provider's own pass.
  }
}

async function mapSourceChange(deps: RuntimeDeps, change: ChangedObject): Promise<PassKey[]> {
  const providers = await listAllProviders(deps.kube);
  const candidates = providers.filter((p) => readsObject(p, change, undefined));
  if (candidates.length === 0) return [];
  const current =
    change.kind === 'ConfigMap' && change.type !== 'DELETED'
      ? await findObject(deps.kube, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: change.namespace,
          name: change.name,
        })
      : undefined;
  const labels = current === undefined ? undefined : (current.metadata.labels ?? {});
  return candidates
    .filter((p) => readsObject(p, change, labels))
    .map((p) => ({
      apiVersion: operatorApiVersion,
      kind: p.kind,
      namespace: p.metadata.namespace ?? '',
      name: p.metadata.name ?? '',
    }));
}

/**
 * The providers controller's Reconciler (registered in shared/controllers.ts; functions/providers.ts is its Lambda).
 *
 * @example
 * const handler = createControllerHandler({ reconciler: createProvidersReconciler(), logger, getDeps });
 */
export function createProvidersReconciler(fetchFn?: ProviderDeps['fetch']): Reconciler {
  return {
    controller: 'providers',
    kinds: providerKindNames.map((kind) => ({ apiVersion: operatorApiVersion, kind })),
    watchedKinds: [
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Secret' },
    ],
    async mapChange(deps, change) {
      return change.kind === 'ConfigMap' || change.kind === 'Secret' ? mapSourceChange(deps, change) : [];
    },
    getFacts: getProviderFacts,
    async reconcile(deps, key): Promise<PassOutcome> {
      if (!isProviderKind(key.kind)) return { result: 'Success', changed: [] };
      const providerDeps: ProviderDeps = {
        kube: deps.kube,
        fetch: fetchFn ?? createCheckedTransport(deps.config.providerFetch),
        fetchPolicy: deps.config.providerFetch,
        now: () => new Date(deps.now()),
        fieldManager: deps.config.fieldManager,
        extensionConfigDiscovery: deps.config.extensionConfigDiscovery,
      };
      return reconcileProvider(providerDeps, { kind: key.kind, namespace: key.namespace, name: key.name });
    },
  };
}

/**
 * The wired instance: releases by URL are fetched over the checked transport (no connection to an address the
 * fetch policy refuses).
 */
export const providersReconciler: Reconciler = createProvidersReconciler();
