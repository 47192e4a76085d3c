// Writes to the ClusterResourceSet itself and the ConfigMaps/Secrets it owns: the finalizer, owner references and
// the status subresource. Metadata lists are replaced whole, so those writes are locked on the resourceVersion read.
import { isDeepStrictEqual } from 'node:util';
import type { ClusterResourceSet } from '#shared/api/addons.ts';
import { AddonsApiVersion, ClusterResourceSetFinalizer } from '#shared/api/addons.ts';
import type { Condition } from '#shared/api/condition.ts';
import type { OwnerReference } from '#shared/api/object-meta.ts';
import { describeObject } from '#shared/errors/index.ts';
import { applyStatus, patchObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';

function crsRef(crs: ClusterResourceSet) {
  return {
    apiVersion: AddonsApiVersion,
    kind: 'ClusterResourceSet',
    namespace: crs.metadata.namespace,
    name: crs.metadata.name ?? '',
  };
}

function describeCRS(crs: ClusterResourceSet): string {
  return describeObject('ClusterResourceSet', crs.metadata.namespace, crs.metadata.name);
}

/**
 * Adds the `addons.cluster.x-k8s.io` finalizer when missing; returns what it did (undefined when nothing).
 *
 * @example
 * await addFinalizer(kube, crs, 'capi-serverless-addons');
 */
export async function addFinalizer(
  kube: KubeClient,
  crs: ClusterResourceSet,
  fieldManager: string,
): Promise<string | undefined> {
  const finalizers = crs.metadata.finalizers ?? [];
  if (finalizers.includes(ClusterResourceSetFinalizer)) return undefined;
  await patchObject(
    kube,
    crsRef(crs),
    {
      metadata: {
        resourceVersion: crs.metadata.resourceVersion,
        finalizers: [...finalizers, ClusterResourceSetFinalizer],
      },
    },
    { fieldManager },
  );
  return `added finalizer to ${describeCRS(crs)}`;
}

/**
 * Removes the `addons.cluster.x-k8s.io` finalizer when present (the API server then deletes the object).
 *
 * @example
 * await removeFinalizer(kube, crs, 'capi-serverless-addons');
 */
export async function removeFinalizer(
  kube: KubeClient,
  crs: ClusterResourceSet,
  fieldManager: string,
): Promise<string | undefined> {
  const finalizers = crs.metadata.finalizers ?? [];
  if (!finalizers.includes(ClusterResourceSetFinalizer)) return undefined;
  await patchObject(
    kube,
    crsRef(crs),
    {
      metadata: {
        resourceVersion: crs.metadata.resourceVersion,
        finalizers: finalizers.filter((f) => f !== ClusterResourceSetFinalizer),
      },
    },
    { fieldManager },
  );
  return `removed finalizer from ${describeCRS(crs)}`;
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
    apiVersion: AddonsApiVersion,
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

/**
 * Writes `status.observedGeneration` and the given conditions (server-side apply of the status subresource) when
 * they differ from what `crs` holds; `condition` undefined keeps the current ones.
 *
 * @example
 * await reconcileStatus(kube, crs, condition, 'capi-serverless-addons');
 */
export async function reconcileStatus(
  kube: KubeClient,
  crs: ClusterResourceSet,
  condition: Condition | readonly Condition[] | undefined,
  fieldManager: string,
): Promise<string | undefined> {
  const current = crs.status?.conditions ?? [];
  const conditions = [condition ?? []]
    .flat()
    .reduce<Condition[]>(
      (list, next) =>
        list.some((c) => c.type === next.type) ? list.map((c) => (c.type === next.type ? next : c)) : [...list, next],
      current,
    );
  const observedGeneration = crs.metadata.generation;
  const sameConditions = isDeepStrictEqual(JSON.parse(JSON.stringify(conditions)), JSON.parse(JSON.stringify(current)));
  if (sameConditions && crs.status?.observedGeneration === observedGeneration) return undefined;
  await applyStatus(
    kube,
    {
      apiVersion: AddonsApiVersion,
      kind: 'ClusterResourceSet',
      metadata: { namespace: crs.metadata.namespace, name: crs.metadata.name },
      status: {
        ...(observedGeneration === undefined ? {} : { observedGeneration }),
        ...(conditions.length === 0 ? {} : { conditions }),
      },
    },
    { fieldManager, force: true },
  );
  return `updated status of ${describeCRS(crs)}`;
}
