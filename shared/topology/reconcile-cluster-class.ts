// One ClusterClass pass (upstream ClusterClass controller): the ClusterClass becomes an owner of every template it
// references, its variable definitions are published in `status.variables`, and `status.observedGeneration` tells
// Cluster passes the class they read is the reconciled one.
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey, OwnerReference } from '#shared/api/object-meta.ts';
import type { ClusterClassTemplateReference } from '#shared/api/core/v1beta2/common.ts';
import { ClusterClassRefVersionsUpToDate, ClusterClassVariablesReady } from '#shared/api/core/v1beta2/conditions.ts';
import { parseObject } from '#shared/api/parse.ts';
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { applyObject, findHubObject } from '#shared/kube/index.ts';
import { reconcileConditions } from '#shared/topology/apply/reconcile-condition.ts';
import {
  ContractCacheTtlMs,
  createContractResolver,
  type ContractResolver,
} from '#shared/topology/current/get-contracts.ts';
import { createKubeReader } from '#shared/topology/current/kube-reader.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import { TopologyManagerName } from '#shared/topology/labels.ts';
import type { ConditionPair, TopologyOutcome } from '#shared/topology/outcome.ts';
import type { TopologyDeps } from '#shared/topology/reconcile-topology.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { getDiscoveredVariables } from '#shared/topology/get-discovered-variables.ts';
import { computeClusterClassStatusVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import { computeStoredStatusVariables } from '#shared/topology/validation/compute-stored-status-variables.ts';
import { formatFieldErrors, validateClusterClassVariables } from '#shared/topology/variables/index.ts';

export const ClusterClassVariablesReadyCondition = ClusterClassVariablesReady.type;
export const ClusterClassRefVersionsUpToDateCondition = ClusterClassRefVersionsUpToDate.type;
const PausedAnnotation = 'cluster.x-k8s.io/paused';

/** Every template reference of a ClusterClass, each once. */
export function computeTemplateRefs(cc: ClusterClass): ClusterClassTemplateReference[] {
  const spec = cc.spec;
  const refs: (ClusterClassTemplateReference | undefined)[] = [
    spec.infrastructure.templateRef,
    spec.controlPlane.templateRef,
    spec.controlPlane.machineInfrastructure?.templateRef,
    ...(spec.workers?.machineDeployments ?? []).flatMap((md) => [
      md.bootstrap.templateRef,
      md.infrastructure.templateRef,
    ]),
    ...(spec.workers?.machinePools ?? []).flatMap((mp) => [mp.bootstrap.templateRef, mp.infrastructure.templateRef]),
  ];
  const seen = new Set<string>();
  return refs.filter((ref): ref is ClusterClassTemplateReference => {
    if (!ref) return false;
    const key = `${ref.apiVersion}/${ref.kind}/${ref.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The field manager owning this ClusterClass's owner reference on templates (at most 128 characters, as required). */
export function computeOwnerFieldManager(fieldManager: string, cc: ClusterClass): string {
  return `${fieldManager}/clusterclass-${cc.metadata.uid ?? ''}`;
}

/**
 * `* Kind name: current: v1beta1, latest: v1beta2` when the reference does not use the latest API version its CRD's
 * contract names (upstream reconcileExternalReferences); undefined when up to date.
 */
async function computeOutdatedRef(
  contracts: ContractResolver,
  ref: ClusterClassTemplateReference,
): Promise<string | undefined> {
  const group = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
  const latest = await contracts.apiVersionOf(group, ref.kind);
  if (latest === ref.apiVersion) return undefined;
  const version = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
  return `* ${ref.kind} ${ref.name}: current: ${version(ref.apiVersion)}, latest: ${version(latest)}`;
}

/** RefVersionsUpToDate as upstream's setRefVersionsUpToDateCondition. */
function computeRefVersionsUpToDateCondition(failed: boolean, outdated: readonly string[]): ConditionPair {
  const type = ClusterClassRefVersionsUpToDateCondition;
  const reasons = ClusterClassRefVersionsUpToDate.reasons;
  if (failed) {
    const message = 'Please check controller logs for errors';
    return {
      condition: { type, status: 'Unknown', reason: reasons.InternalError, message },
      v1beta1: { type, status: 'Unknown', reason: reasons.InternalError, message },
    };
  }
  if (outdated.length > 0) {
    const message = ['The following templateRefs are not using the latest apiVersion:', ...outdated].join('\n');
    return {
      condition: { type, status: 'False', reason: reasons.RefVersionsNotUpToDate, message },
      v1beta1: { type, status: 'False', reason: 'OutdatedRefVersions', severity: 'Warning', message },
    };
  }
  return {
    condition: { type, status: 'True', reason: reasons.RefVersionsUpToDate, message: '' },
    v1beta1: { type, status: 'True' },
  };
}

/** Adds the ClusterClass owner reference to one template unless it is there (or the template is paused). */
async function reconcileTemplateOwner(
  deps: TopologyDeps,
  reader: TopologyReader,
  fieldManager: string,
  cc: ClusterClass,
  ref: ClusterClassTemplateReference,
): Promise<{ readonly changed: string; readonly object: string; readonly resourceVersion: string } | undefined> {
  const namespace = cc.metadata.namespace ?? '';
  const id = { apiVersion: ref.apiVersion, kind: ref.kind, namespace, name: ref.name };
  const template = await reader.get(id);
  if (!template) {
    throw new Error(
      `Could not find external object for the ClusterClass. refGroupVersionKind: ${id.apiVersion}, Kind=${id.kind}, refName: ${id.name}`,
    );
  }
  if (template.metadata.annotations?.[PausedAnnotation] !== undefined) return undefined;
  const owner: OwnerReference = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
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
  const written = await applyObject(
    deps.kube,
    {
      apiVersion: template.apiVersion,
      kind: template.kind,
      metadata: { name: id.name, namespace, uid: template.metadata.uid, ownerReferences: [owner] },
    },
    { fieldManager: computeOwnerFieldManager(fieldManager, cc), force: true },
  );
  return {
    changed: `set ClusterClass owner on ${describeObject(id.kind, namespace, id.name)}`,
    object: `${id.kind} ${namespace}/${id.name}`,
    resourceVersion: written.metadata.resourceVersion ?? '',
  };
}

/**
 * One pass over the ClusterClass `key`.
 *
 * @example
 * await reconcileClusterClass({ kube, randomSuffix, now: () => new Date() }, { namespace: 'default', name: 'quick-start' });
 */
export async function reconcileClusterClass(deps: TopologyDeps, key: ObjectKey): Promise<TopologyOutcome> {
  const raw = await findHubObject(deps.kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'ClusterClass', ...key });
  if (!raw) return { result: 'Success', changed: [] };
  const cc = parseObject(ClusterClass, 'ClusterClass', raw);
  if (cc.metadata.deletionTimestamp || cc.metadata.annotations?.[PausedAnnotation] !== undefined)
    return { result: 'Success', changed: [] };
  const fieldManager = deps.fieldManager ?? TopologyManagerName;
  const changed: string[] = [];
  const errors: string[] = [];
  const reader = createKubeReader(deps.kube);
  const contracts = createContractResolver(reader, {
    cache: { store: deps.kube.discovery, nowMs: deps.now().getTime(), ttlMs: ContractCacheTtlMs },
  });
  const outdated: string[] = [];
  /** The version each owner-reference write left a template at: its event is this pass's own write. */
  const ownWrites: Record<string, string> = {};
  let refsFailed = false;
  for (const ref of computeTemplateRefs(cc)) {
    try {
      const done = await reconcileTemplateOwner(deps, reader, fieldManager, cc, ref);
      if (done) {
        changed.push(done.changed);
        if (done.resourceVersion) ownWrites[done.object] = done.resourceVersion;
      }
      const line = await computeOutdatedRef(contracts, ref);
      if (line) outdated.push(line);
    } catch (err) {
      refsFailed = true;
      errors.push(errorMessage(err));
    }
  }
  // NOTE: upstream's webhook refuses invalid variable schemas; a class admitted without it (webhook down, or written
  // before) is caught here, as upstream's controller catches invalid discovered variables.
  const variableErrors = formatFieldErrors(validateClusterClassVariables(cc.spec?.variables ?? []));
  const discovery = await getDiscoveredVariables(deps, cc);
  variableErrors.push(...discovery.errors);
  const variables = computeClusterClassStatusVariables(cc, discovery.discovered);
  // NOTE: conflicting definitions are still written to the status (upstream), with VariablesReady False.
  const conflicts = variables.filter((v) => v.definitionsConflict).map((v) => v.name);
  const failed = variableErrors.length > 0;
  if (!failed && conflicts.length > 0)
    variableErrors.push(`the following variables have conflicting schemas: ${conflicts.join(',')}`);
  const variablesError =
    variableErrors.length > 0 ? `VariableDiscovery failed: ${variableErrors.join('; ')}` : undefined;
  if (variablesError !== undefined) errors.push(variablesError);
  const conditions: ConditionPair[] = [
    computeRefVersionsUpToDateCondition(refsFailed, outdated),
    variablesError === undefined
      ? {
          condition: {
            type: ClusterClassVariablesReadyCondition,
            status: 'True',
            reason: ClusterClassVariablesReady.reasons.VariablesReady,
            message: '',
          },
          v1beta1: { type: ClusterClassVariablesReady.v1beta1Type, status: 'True' },
        }
      : {
          condition: {
            type: ClusterClassVariablesReadyCondition,
            status: 'False',
            reason: ClusterClassVariablesReady.reasons.VariableDiscoveryFailed,
            message: variablesError,
          },
          v1beta1: {
            type: ClusterClassVariablesReady.v1beta1Type,
            status: 'False',
            reason: ClusterClassVariablesReady.reasons.VariableDiscoveryFailed,
            severity: 'Error',
            message: variablesError,
          },
        },
  ];
  const write = { kube: deps.kube, fieldManager, now: deps.now() };
  // Only a pass that completed records the generation it reconciled (upstream WithStatusObservedGeneration).
  // NOTE: compared (and written) as the server stores them: a discovered CEL rule without `reason` is defaulted by
  // the CRD, so it would differ from the stored status on every pass. Upstream's patch helper sends that patch each
  // time (the server finds nothing to change); an unchanged class here sends none.
  const stored = computeStoredStatusVariables(variables);
  const extra = () => ({
    ...(failed ? {} : { variables: stored }),
    ...(errors.length === 0 ? { observedGeneration: cc.metadata.generation } : {}),
  });
  try {
    if (await reconcileConditions(write, raw as Unstructured, conditions, extra))
      changed.push(`updated status of ClusterClass ${key.namespace}/${key.name}`);
  } catch (err) {
    errors.push(errorMessage(err));
  }
  if (errors.length > 0) return { result: 'Error', changed, error: errors.join('; ') };
  return { result: 'Success', changed, ...(Object.keys(ownWrites).length > 0 ? { ownWrites } : {}) };
}
