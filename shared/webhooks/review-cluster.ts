// Admission of Clusters: defaulting (the `v` of the version, topology variables from the
// class's schemas) and validation against the ClusterClass with the same computeDefaultedTopology and
// validateClusterTopology the reconcile pass and `plan` use, plus upstream's update rules.
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computeDefaultedTopology, validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome, type AdmittedObject } from '#shared/webhooks/admission-status.ts';
import { cloneJson, computeJsonPatch, objectAt } from '#shared/webhooks/compute-json-patch.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import { validateClusterClassesAreCompatible } from '#shared/webhooks/rules/cluster-class-rules.ts';
import {
  computeDefaultedVersion,
  UnsafeAnnotations,
  validateClusterUpdate,
  validateTopologyVersionFormat,
  validateVersionInClusterClass,
} from '#shared/webhooks/rules/cluster-rules.ts';
import { validateTopologyUpgradeState } from '#shared/webhooks/rules/topology-upgrade-rules.ts';
import { formatVersion, parseVersionTolerant } from '#shared/lang/semver/semver.ts';

function identity(request: AdmissionRequest, cluster?: Cluster): AdmittedObject {
  return { group: 'cluster.x-k8s.io', kind: 'Cluster', name: cluster?.metadata.name ?? request.name ?? '' };
}

function namespaceOf(request: AdmissionRequest, cluster: Cluster): string {
  return cluster.metadata.namespace ?? request.namespace ?? '';
}

async function getClass(reader: WebhookReader, namespace: string, name: string): Promise<ClusterClass | undefined> {
  return reader.getClusterClass({ namespace, name });
}

/** The ClusterClass namespace of a topology: `classRef.namespace`, the Cluster's by default. */
function classNamespaceOf(topology: { classRef: { namespace?: string | undefined } }, namespace: string): string {
  return topology.classRef.namespace || namespace;
}

function missingClass(namespace: string, name: string): FieldError {
  return {
    type: 'Invalid',
    field: 'spec.topology.classRef',
    badValue: name,
    detail: `ClusterClass ${namespace}/${name} does not exist: an existing Cluster's class must exist for its update to be validated`,
  };
}

/** upstream's warning (core/webhooks/admission/cluster.go) for a Cluster created before its ClusterClass. */
function missingClassWarning(namespace: string, name: string): string {
  return (
    `Cluster refers to ClusterClass ${namespace}/${name}, but this ClusterClass does not exist. ` +
    'Cluster topology has not been fully validated. The ClusterClass must be created to reconcile the Cluster'
  );
}

/**
 * upstream's live-object checks of a topology version change, once the version rules passed (skipped with its unsafe
 * annotation, as they are).
 */
async function validateLiveObjects(reader: WebhookReader, current: Cluster, cluster: Cluster): Promise<FieldError[]> {
  const before = current.spec?.topology?.version;
  const after = cluster.spec?.topology?.version;
  if (!before || !after || !current.spec?.topology?.classRef.name) return [];
  if (cluster.metadata.annotations?.[UnsafeAnnotations.updateVersion] !== undefined) return [];
  const from = parseVersionTolerant(before);
  const to = parseVersionTolerant(after);
  if (!from || !to || formatVersion(from) === formatVersion(to)) return [];
  return validateTopologyUpgradeState(from, after, await reader.getTopologyUpgradeState(current));
}

/**
 * Mutating: `v` defaulted (v1beta2 references carry no namespace); with a topology, its variables (and every worker's overrides)
 * defaulted from the class's schemas and then validated, so a Cluster is never stored with values its class
 * rejects. A Cluster whose class does not exist yet is left to the validating webhook.
 *
 * @example
 * await mutateCluster(request, reader); // { allowed: true, patch: [{ op: 'add', path: '/spec/topology/variables/1', ... }] }
 */
export async function mutateCluster(request: AdmissionRequest, reader: WebhookReader): Promise<AdmissionOutcome> {
  const parsed = parseAdmittedObject(Cluster, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  if (parsed.value.metadata.deletionTimestamp) return { allowed: true };
  const doc = cloneJson(request.object);
  const namespace = namespaceOf(request, parsed.value);
  const topology = parsed.value.spec?.topology;
  if (!topology) return { allowed: true, patch: computeJsonPatch(request.object, doc) };
  const version = computeDefaultedVersion(topology.version);
  const rawTopology = objectAt(doc, ['spec', 'topology']);
  if (rawTopology) rawTopology['version'] = version;
  const cluster: Cluster = { ...parsed.value, spec: { ...parsed.value.spec, topology: { ...topology, version } } };
  const cc = await getClass(reader, classNamespaceOf(topology, namespace), topology.classRef.name);
  if (!cc) return { allowed: true, patch: computeJsonPatch(request.object, doc) };
  const defaulted = computeDefaultedTopology(cluster, cc);
  if (!defaulted.ok) return computeFieldOutcome(identity(request, cluster), defaulted.errors);
  const errors = validateClusterTopology(defaulted.cluster, cc);
  if (errors.length > 0) return computeFieldOutcome(identity(request, cluster), errors);
  const result = defaulted.cluster.spec?.topology;
  if (rawTopology && result?.variables) rawTopology['variables'] = result.variables;
  result?.workers?.machineDeployments?.forEach((md, i) => {
    const raw = objectAt(doc, ['spec', 'topology', 'workers', 'machineDeployments', i, 'variables']);
    if (raw && md.variables?.overrides) raw['overrides'] = md.variables.overrides;
  });
  result?.workers?.machinePools?.forEach((mp, i) => {
    const raw = objectAt(doc, ['spec', 'topology', 'workers', 'machinePools', i, 'variables']);
    if (raw && mp.variables?.overrides) raw['overrides'] = mp.variables.overrides;
  });
  return { allowed: true, patch: computeJsonPatch(request.object, doc) };
}

/**
 * Validating: the class accepts the topology (names, classes, variables; a class that does not exist yet is a warning
 * on create, as upstream, and an error on update); on update the topology stays,
 * the version moves as upstream allows, and a class change goes only to a compatible class.
 *
 * @example
 * await validateClusterAdmission(request, reader);
 */
export async function validateClusterAdmission(
  request: AdmissionRequest,
  reader: WebhookReader,
): Promise<AdmissionOutcome> {
  const parsed = parseAdmittedObject(Cluster, request.object);
  if (!parsed.ok) return computeFieldOutcome(identity(request), parsed.errors);
  const cluster = parsed.value;
  // NOTE: a Cluster being deleted only loses finalizers; refusing that (its class gone, say) would leave it stuck.
  if (cluster.metadata.deletionTimestamp) return { allowed: true };
  const namespace = namespaceOf(request, cluster);
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const old = request.operation === 'UPDATE' ? parseAdmittedObject(Cluster, request.oldObject) : undefined;
  const current = old?.ok ? old.value : undefined;
  const topology = cluster.spec?.topology;
  const classNamespace = topology ? classNamespaceOf(topology, namespace) : namespace;
  const cc = topology ? await getClass(reader, classNamespace, topology.classRef.name) : undefined;
  if (current) {
    const updateErrors = validateClusterUpdate(current, cluster, cc);
    errors.push(...updateErrors);
    if (cc && updateErrors.length === 0) errors.push(...(await validateLiveObjects(reader, current, cluster)));
  }
  if (topology) {
    errors.push(...validateTopologyVersionFormat(topology.version));
    if (cc)
      errors.push(...validateVersionInClusterClass(cluster, cc), ...validateClusterTopology(cluster, cc, current));
    // NOTE: as upstream, a Cluster may be created before its class (a directory applied in any order); an update needs it.
    else if (current) errors.push(missingClass(classNamespace, topology.classRef.name));
    else warnings.push(missingClassWarning(classNamespace, topology.classRef.name));
    const oldTopology = current?.spec?.topology;
    const oldClass = oldTopology?.classRef.name;
    const oldClassNamespace = oldTopology ? classNamespaceOf(oldTopology, namespace) : undefined;
    if (cc && oldClass && (oldClass !== topology.classRef.name || oldClassNamespace !== classNamespace)) {
      const oldCc = await getClass(reader, oldClassNamespace ?? namespace, oldClass);
      if (oldCc) errors.push(...validateClusterClassesAreCompatible(oldCc, cc));
      else
        errors.push({
          type: 'Forbidden',
          field: 'spec.topology.classRef',
          detail: `valid ClusterClass with name "${oldClass}" could not be retrieved, change from class "${oldClass}" to class "${topology.classRef.name}" cannot be validated`,
        });
    }
  }
  return computeFieldOutcome(
    identity(request, cluster),
    errors,
    warnings.length > 0 ? { allowed: true, warnings } : { allowed: true },
  );
}
