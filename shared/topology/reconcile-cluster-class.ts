// One ClusterClass pass (upstream ClusterClass controller): the ClusterClass becomes an owner of every template it
// references, its variable definitions are published in `status.variables`, and `status.observedGeneration` tells
// Cluster passes the class they read is the reconciled one.
import { ClusterClass } from '#shared/api/cluster-class.ts';
import type { ObjectKey, ObjectReference, OwnerReference } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { applyObject, findObject } from '#shared/kube/index.ts';
import { reconcileConditions } from '#shared/topology/apply/reconcile-condition.ts';
import { createKubeReader } from '#shared/topology/current/kube-reader.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import { TopologyManagerName } from '#shared/topology/labels.ts';
import type { ConditionState, TopologyOutcome } from '#shared/topology/outcome.ts';
import type { TopologyDeps } from '#shared/topology/reconcile-topology.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { computeClusterClassStatusVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import { formatFieldErrors, validateClusterClassVariables } from '#shared/topology/variables/index.ts';

export const ClusterClassVariablesReconciledCondition = 'VariablesReconciled';
export const ClusterClassRefVersionsUpToDateCondition = 'RefVersionsUpToDate';
export const VariableDiscoveryFailedReason = 'VariableDiscoveryFailed';
const PausedAnnotation = 'cluster.x-k8s.io/paused';

/** Every template reference of a ClusterClass, each once. */
export function computeTemplateRefs(cc: ClusterClass): ObjectReference[] {
  const spec = cc.spec ?? {};
  const refs: (ObjectReference | undefined)[] = [
    spec.infrastructure?.ref,
    spec.controlPlane?.ref,
    spec.controlPlane?.machineInfrastructure?.ref,
    ...(spec.workers?.machineDeployments ?? []).flatMap((md) => [
      md.template.bootstrap.ref,
      md.template.infrastructure.ref,
    ]),
    ...(spec.workers?.machinePools ?? []).flatMap((mp) => [mp.template.bootstrap.ref, mp.template.infrastructure.ref]),
  ];
  const seen = new Set<string>();
  return refs.filter((ref): ref is ObjectReference => {
    if (!ref) return false;
    const key = `${ref.apiVersion ?? ''}/${ref.kind ?? ''}/${ref.namespace ?? ''}/${ref.name ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The field manager owning this ClusterClass's owner reference on templates (at most 128 characters, as required). */
export function computeOwnerFieldManager(fieldManager: string, cc: ClusterClass): string {
  return `${fieldManager}/clusterclass-${cc.metadata.uid ?? ''}`;
}

/** Adds the ClusterClass owner reference to one template unless it is there (or the template is paused). */
async function reconcileTemplateOwner(
  deps: TopologyDeps,
  reader: TopologyReader,
  fieldManager: string,
  cc: ClusterClass,
  ref: ObjectReference,
): Promise<string | undefined> {
  const namespace = cc.metadata.namespace ?? '';
  const id = { apiVersion: ref.apiVersion ?? '', kind: ref.kind ?? '', namespace, name: ref.name ?? '' };
  const template = await reader.get(id);
  if (!template) {
    throw new Error(
      `Could not find external object for the ClusterClass. refGroupVersionKind: ${id.apiVersion}, Kind=${id.kind}, refName: ${id.name}`,
    );
  }
  if (template.metadata.annotations?.[PausedAnnotation] !== undefined) return undefined;
  const owner: OwnerReference = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'ClusterClass',
    name: cc.metadata.name ?? '',
    uid: cc.metadata.uid ?? '',
  };
  const has = (template.metadata.ownerReferences ?? []).some(
    (o) => o.uid === owner.uid && o.kind === owner.kind && o.name === owner.name && o.apiVersion === owner.apiVersion,
  );
  if (has) return undefined;
  // NOTE: ownerReferences is a list-map keyed by uid. Each class applies its one entry under a field manager of its
  // own: under a shared manager, a class's apply would take over (and so remove) the entry the previous class applied.
  await applyObject(
    deps.kube,
    {
      apiVersion: template.apiVersion,
      kind: template.kind,
      metadata: { name: id.name, namespace, uid: template.metadata.uid, ownerReferences: [owner] },
    },
    { fieldManager: computeOwnerFieldManager(fieldManager, cc), force: true },
  );
  return `set ClusterClass owner on ${describeObject(id.kind, namespace, id.name)}`;
}

/**
 * One pass over the ClusterClass `key`.
 *
 * @example
 * await reconcileClusterClass({ kube, randomSuffix, now: () => new Date() }, { namespace: 'default', name: 'quick-start' });
 */
export async function reconcileClusterClass(deps: TopologyDeps, key: ObjectKey): Promise<TopologyOutcome> {
  const raw = await findObject(deps.kube, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'ClusterClass', ...key });
  if (!raw) return { result: 'Success', changed: [] };
  const cc = parseObject(ClusterClass, 'ClusterClass', raw);
  if (cc.metadata.deletionTimestamp || cc.metadata.annotations?.[PausedAnnotation] !== undefined)
    return { result: 'Success', changed: [] };
  const fieldManager = deps.fieldManager ?? TopologyManagerName;
  const changed: string[] = [];
  const errors: string[] = [];
  const reader = createKubeReader(deps.kube);
  for (const ref of computeTemplateRefs(cc)) {
    try {
      const done = await reconcileTemplateOwner(deps, reader, fieldManager, cc, ref);
      if (done) changed.push(done);
    } catch (err) {
      errors.push(errorMessage(err));
    }
  }
  // NOTE: upstream's webhook refuses invalid variable schemas; a class admitted without it (webhook down, or written
  // before) is caught here, as upstream's controller catches invalid discovered variables.
  const variableErrors = formatFieldErrors(validateClusterClassVariables(cc.spec?.variables ?? []));
  const variablesError =
    variableErrors.length > 0 ? `VariableDiscovery failed: ${variableErrors.join('; ')}` : undefined;
  if (variablesError !== undefined) errors.push(variablesError);
  const variables = [...computeClusterClassStatusVariables(cc)].sort((a, b) => a.name.localeCompare(b.name));
  const conditions: ConditionState[] = [
    variablesError === undefined
      ? { type: ClusterClassVariablesReconciledCondition, status: 'True' }
      : {
          type: ClusterClassVariablesReconciledCondition,
          status: 'False',
          reason: VariableDiscoveryFailedReason,
          severity: 'Error',
          message: variablesError,
        },
    { type: ClusterClassRefVersionsUpToDateCondition, status: 'True' },
  ];
  const write = { kube: deps.kube, fieldManager, now: deps.now() };
  // Only a pass that completed records the generation it reconciled (upstream WithStatusObservedGeneration).
  const extra = () => ({
    ...(variablesError === undefined ? { variables } : {}),
    ...(errors.length === 0 ? { observedGeneration: cc.metadata.generation } : {}),
  });
  try {
    if (await reconcileConditions(write, raw as Unstructured, conditions, extra))
      changed.push(`updated status of ClusterClass ${key.namespace}/${key.name}`);
  } catch (err) {
    errors.push(errorMessage(err));
  }
  if (errors.length > 0) return { result: 'Error', changed, error: errors.join('; ') };
  return { result: 'Success', changed };
}
