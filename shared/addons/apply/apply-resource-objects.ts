// Writes the objects of one ClusterResourceSet resource to a workload cluster: ApplyOnce creates (an object that
// exists is left alone and counts as applied), Reconcile server-side applies under our field manager, so fields other
// managers own survive (upstream's merge patch drops them).
import type { ClusterResourceSetStrategy } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { ResourceObject } from '#shared/addons/desired/resource-objects.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import {
  applyObject,
  createObject,
  KubeConflictError,
  KubeUnavailableError,
  resolveResource,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';

export type ObjectsApplyResult = {
  /** Every failed object's message, joined; undefined when all objects were applied. */
  readonly error?: string;
  /** The workload cluster did not answer: the caller should not send it more work this pass. */
  readonly unreachable: boolean;
  /** What changed in the workload cluster, e.g. `created ConfigMap kube-system/calico-config`. */
  readonly changed: readonly string[];
};

function sourceOf(resource: ResourceObject): string {
  const { kind, namespace, name, key, documentIndex } = resource.source;
  return `${describeObject(kind, namespace, name)} key ${JSON.stringify(key)} document ${documentIndex + 1}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The manifest as a KubeObject, or why it cannot be sent. */
function toKubeObject(resource: ResourceObject): KubeObject | string {
  const { apiVersion, kind, metadata } = resource.object;
  if (typeof apiVersion !== 'string' || apiVersion === '') return `${sourceOf(resource)} has no apiVersion`;
  if (typeof kind !== 'string' || kind === '') return `${sourceOf(resource)} has no kind`;
  if (!isRecord(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '') {
    return `${sourceOf(resource)} has no metadata.name`;
  }
  return { ...resource.object, apiVersion, kind, metadata } as KubeObject;
}

/** Cluster-scoped kinds carry no namespace (the `default` filled in by computeResourceObjects is dropped again). */
function scoped(obj: KubeObject, namespaced: boolean): KubeObject {
  if (namespaced || obj.metadata.namespace === undefined) return obj;
  const { namespace: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * Applies `objects` in order, continuing past failures as upstream does, and stops early only when the workload
 * cluster does not answer.
 *
 * @example
 * const result = await applyResourceObjects(workload, decision.objects, 'Reconcile', 'capi-serverless-addons');
 * result.error; // undefined when every object was applied
 */
export async function applyResourceObjects(
  workload: KubeClient,
  objects: readonly ResourceObject[],
  strategy: ClusterResourceSetStrategy,
  fieldManager: string,
): Promise<ObjectsApplyResult> {
  const errors: string[] = [];
  const changed: string[] = [];
  for (const resource of objects) {
    const manifest = toKubeObject(resource);
    if (typeof manifest === 'string') {
      errors.push(manifest);
      continue;
    }
    try {
      const info = await resolveResource(workload, manifest.apiVersion, manifest.kind);
      const obj = scoped(manifest, info.namespaced);
      const what = describeObject(obj.kind, obj.metadata.namespace, obj.metadata.name);
      if (strategy === 'Reconcile') {
        await applyObject(workload, obj, { fieldManager, force: true });
        changed.push(`applied ${what}`);
      } else {
        try {
          await createObject(workload, obj, { fieldManager });
          changed.push(`created ${what}`);
        } catch (err) {
          // NOTE: ApplyOnce never overwrites: an object that exists (created by a user or another
          // ClusterResourceSet) counts as applied.
          if (!(err instanceof KubeConflictError && err.reason === 'AlreadyExists')) throw err;
        }
      }
    } catch (err) {
      errors.push(errorMessage(err));
      if (err instanceof KubeUnavailableError && err.statusCode === 0) {
        return { error: errors.join('; '), unreachable: true, changed };
      }
    }
  }
  return errors.length === 0
    ? { unreachable: false, changed }
    : { error: errors.join('; '), unreachable: false, changed };
}
