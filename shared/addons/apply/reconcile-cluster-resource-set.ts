// Writes to the ClusterResourceSet itself and the ConfigMaps/Secrets it owns: the finalizer, owner references and
// the status subresource. Metadata lists are replaced whole, so those writes are locked on the resourceVersion read.
// Everything is written in the version the server serves (the status in v1beta2, converted at the edge if need be).
import { isDeepStrictEqual } from 'node:util';
import type { ClusterResourceSet } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { AddonsApiVersion, PausedCondition } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { Condition as V1Beta1Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { OwnerReference } from '#shared/api/object-meta.ts';
import type { Condition } from '#shared/api/core/v1beta2/common.ts';
import { describeObject } from '#shared/errors/index.ts';
import { applyHubStatus, patchObject, servedApiVersion, type KubeClient, type KubeObject } from '#shared/kube/index.ts';

/**
 * The apiVersion a reference to a ClusterResourceSet carries on this server: v1beta2 as upstream v1.14 writes it,
 * v1beta1 where only that is served (the garbage collector must be able to resolve it).
 *
 * @example
 * await getOwnerApiVersion(kube); // 'addons.cluster.x-k8s.io/v1beta2'
 */
export function getOwnerApiVersion(kube: KubeClient): Promise<string> {
  return servedApiVersion(kube, AddonsApiVersion, 'ClusterResourceSet');
}

async function crsRef(kube: KubeClient, crs: ClusterResourceSet) {
  return {
    apiVersion: await getOwnerApiVersion(kube),
    kind: 'ClusterResourceSet',
    namespace: crs.metadata.namespace,
    name: crs.metadata.name ?? '',
  };
}

function describeCRS(crs: ClusterResourceSet): string {
  return describeObject('ClusterResourceSet', crs.metadata.namespace, crs.metadata.name);
}

/**
 * Writes `finalizers` (from `computeFinalizers`) when they differ from what `crs` carries; returns what it did
 * (undefined when nothing). Locked on the resourceVersion read: a finalizer list is replaced whole.
 *
 * @example
 * await reconcileFinalizers(kube, crs, computeFinalizers(crs, 'active'), 'capi-serverless-addons');
 */
export async function reconcileFinalizers(
  kube: KubeClient,
  crs: ClusterResourceSet,
  finalizers: readonly string[],
  fieldManager: string,
): Promise<string | undefined> {
  const current = crs.metadata.finalizers ?? [];
  if (isDeepStrictEqual([...current], [...finalizers])) return undefined;
  await patchObject(
    kube,
    await crsRef(kube, crs),
    { metadata: { resourceVersion: crs.metadata.resourceVersion, finalizers: [...finalizers] } },
    { fieldManager },
  );
  const added = finalizers.filter((f) => !current.includes(f));
  const removed = current.filter((f) => !finalizers.includes(f));
  const what = [
    ...(added.length > 0 ? [`added finalizer ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`removed finalizer ${removed.join(', ')}`] : []),
  ].join(' and ');
  return `${what} on ${describeCRS(crs)}`;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/**
 * Ensures `crs` is an owner of each found ConfigMap/Secret (upstream `ensureResourceOwnerRef`: a reference to the
 * same group, kind and name is replaced in place, else appended). Writes only where the reference is missing or stale.
 *
 * @example
 * await reconcileResourceOwnerRefs(kube, crs, [...resources.objects.values()], 'capi-serverless-addons');
 */
export async function reconcileResourceOwnerRefs(
  kube: KubeClient,
  crs: ClusterResourceSet,
  objects: readonly KubeObject[],
  fieldManager: string,
): Promise<string[]> {
  const ref: OwnerReference = {
    apiVersion: await getOwnerApiVersion(kube),
    kind: 'ClusterResourceSet',
    name: crs.metadata.name ?? '',
    uid: crs.metadata.uid ?? '',
  };
  const same = (r: OwnerReference) =>
    groupOf(r.apiVersion) === groupOf(ref.apiVersion) && r.kind === ref.kind && r.name === ref.name;
  const changed: string[] = [];
  for (const obj of objects) {
    const refs = obj.metadata.ownerReferences ?? [];
    const index = refs.findIndex(same);
    if (index !== -1 && isDeepStrictEqual(refs[index], ref)) continue;
    const ownerReferences = index === -1 ? [...refs, ref] : refs.map((r, i) => (i === index ? ref : r));
    await patchObject(
      kube,
      { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' },
      { metadata: { resourceVersion: obj.metadata.resourceVersion, ownerReferences } },
      { fieldManager },
    );
    changed.push(`set owner reference on ${describeObject(obj.kind, obj.metadata.namespace, obj.metadata.name)}`);
  }
  return changed;
}

/** What a pass writes to the status; conditions are merged by type into what is there. */
export type StatusUpdate = {
  /** v1beta2 (metav1) conditions: `status.conditions`. */
  readonly conditions?: readonly Condition[];
  /** v1beta1 conditions: `status.deprecated.v1beta1.conditions`. */
  readonly v1beta1Conditions?: readonly V1Beta1Condition[];
  /** Set `status.observedGeneration` (upstream: only when the pass succeeded, never while paused). */
  readonly observeGeneration?: boolean;
};

function mergeByType<C extends { readonly type: string }>(current: readonly C[], next: readonly C[]): C[] {
  return next.reduce<C[]>(
    (list, c) => (list.some((o) => o.type === c.type) ? list.map((o) => (o.type === c.type ? c : o)) : [...list, c]),
    [...current],
  );
}

/** Upstream's condition order: Available and Ready first, Deleting and Paused last, the rest alphabetical. */
function conditionRank(type: string): number {
  if (type === 'Available') return 0;
  if (type === 'Ready') return 1;
  if (type === 'Deleting') return 3;
  if (type === PausedCondition.type) return 4;
  return 2;
}

function sortConditions(conditions: readonly Condition[]): Condition[] {
  return [...conditions].sort(
    (a, b) => conditionRank(a.type) - conditionRank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0),
  );
}

const sameJson = (a: unknown, b: unknown) =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));

/**
 * Writes the given v1beta2 conditions, the v1beta1 ones under `status.deprecated.v1beta1` and, when asked,
 * `status.observedGeneration` (server-side apply of the status subresource, in the version the server serves) when
 * they differ from what `crs` holds.
 *
 * @example
 * await reconcileStatus(kube, crs, { conditions: [applied, paused], v1beta1Conditions: [legacy], observeGeneration: true }, 'capi-serverless-addons');
 */
export async function reconcileStatus(
  kube: KubeClient,
  crs: ClusterResourceSet,
  update: StatusUpdate,
  fieldManager: string,
): Promise<string | undefined> {
  const currentConditions = crs.status?.conditions ?? [];
  const currentV1Beta1 = crs.status?.deprecated?.v1beta1?.conditions ?? [];
  const conditions = sortConditions(mergeByType(currentConditions, update.conditions ?? []));
  const v1beta1Conditions = mergeByType(currentV1Beta1, update.v1beta1Conditions ?? []);
  const currentGeneration = crs.status?.observedGeneration;
  const observedGeneration = update.observeGeneration === true ? crs.metadata.generation : currentGeneration;
  if (
    sameJson(conditions, currentConditions) &&
    sameJson(v1beta1Conditions, currentV1Beta1) &&
    currentGeneration === observedGeneration
  ) {
    return undefined;
  }
  await applyHubStatus(
    kube,
    {
      apiVersion: AddonsApiVersion,
      kind: 'ClusterResourceSet',
      metadata: { namespace: crs.metadata.namespace, name: crs.metadata.name },
      status: {
        ...(conditions.length === 0 ? {} : { conditions }),
        ...(observedGeneration === undefined ? {} : { observedGeneration }),
        ...(v1beta1Conditions.length === 0 ? {} : { deprecated: { v1beta1: { conditions: v1beta1Conditions } } }),
      },
    },
    { fieldManager, force: true },
  );
  return `updated status of ${describeCRS(crs)}`;
}
