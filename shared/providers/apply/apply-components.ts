// Installs provider components with server-side apply, in install order, and removes old ones the way clusterctl
// deletes a provider (CRDs and the namespace kept, cluster-scoped objects only when they belong to the instance).
import { isDeepStrictEqual } from 'node:util';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { describeObject } from '#shared/errors/index.ts';
import { applyObject, deleteObject, refOf } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { listInventoryObjects } from '#shared/providers/current/list-provider-objects.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { isNamespacedKind } from '#shared/providers/desired/compute-target-namespace.ts';

/** Applies every object (force: the operator owns its components); returns what it applied. */
export async function applyComponents(
  kube: KubeClient,
  objects: readonly ComponentObject[],
  fieldManager: string,
): Promise<string[]> {
  const applied: string[] = [];
  for (const obj of objects) {
    await applyObject(kube, obj as KubeObject, { fieldManager, force: true });
    applied.push(`applied ${describeObject(obj.kind, obj.metadata.namespace, obj.metadata.name)}`);
  }
  return applied;
}

/**
 * Puts back component Deployments that drifted from what the operator applies: deleted by hand (missing from
 * `current`) or changed (a dry-run apply would change their metadata labels or spec); leaves the others alone, so an
 * undrifted provider costs one dry run per Deployment and no write. Returns what it repaired.
 */
export async function reconcileComponentDeployments(
  kube: KubeClient,
  objects: readonly ComponentObject[],
  current: readonly KubeObject[],
  fieldManager: string,
): Promise<string[]> {
  const repaired: string[] = [];
  for (const obj of objects) {
    if (obj.kind !== 'Deployment') continue;
    const { namespace, name } = obj.metadata;
    const found = current.find((d) => d.metadata.namespace === namespace && d.metadata.name === name);
    if (found !== undefined) {
      const wouldBe = await applyObject(kube, obj as KubeObject, { fieldManager, force: true, dryRun: true });
      const same =
        isDeepStrictEqual(wouldBe['spec'], found['spec']) &&
        isDeepStrictEqual(wouldBe.metadata.labels ?? {}, found.metadata.labels ?? {});
      if (same) continue;
    }
    await applyObject(kube, obj as KubeObject, { fieldManager, force: true });
    repaired.push(`${found === undefined ? 'restored' : 'repaired'} ${describeObject(obj.kind, namespace, name)}`);
  }
  return repaired;
}

export type DeleteComponentsOptions = { readonly includeCRDs?: boolean; readonly includeNamespace?: boolean };

/**
 * Deletes the provider's inventory objects as clusterctl's `providerComponents.Delete`: CRDs and the provider's
 * Namespace only when asked (keeping CRDs keeps every user object of those kinds), other namespaces never,
 * cluster-scoped objects other than webhooks only when their name starts with `<namespace>-`. Returns what it
 * deleted.
 */
export async function deleteComponents(
  kube: KubeClient,
  provider: Provider,
  opts: DeleteComponentsOptions = {},
): Promise<string[]> {
  const namespace = provider.metadata.namespace ?? '';
  const objects = await listInventoryObjects(kube, provider);
  const toDelete = objects.filter((o) => {
    const name = o.metadata.name ?? '';
    if (o.kind === 'CustomResourceDefinition') return opts.includeCRDs === true;
    if (o.kind === 'Namespace') return name === namespace && opts.includeNamespace === true;
    const isWebhook = o.kind === 'ValidatingWebhookConfiguration' || o.kind === 'MutatingWebhookConfiguration';
    if (!isNamespacedKind(o.kind) && !isWebhook && !name.startsWith(`${namespace}-`)) return false;
    return true;
  });
  const deleted: string[] = [];
  for (const o of toDelete) {
    if (await deleteObject(kube, refOf(o), { uid: o.metadata.uid }))
      deleted.push(`deleted ${describeObject(o.kind, o.metadata.namespace, o.metadata.name)}`);
  }
  return deleted;
}
