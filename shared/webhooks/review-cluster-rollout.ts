// Admission of ClusterRollouts: a usable spec (non-empty selector, waves covering every Cluster, durations, time
// zone), an existing class to rebase to that every selected Cluster may move to (upstream's rebase rules), a version
// that downgrades none of the selected Clusters, and, once the rollout has started, a target (selector, change, waves)
// that no longer moves.
import { ClusterRollout, RolloutGroup, RolloutKind } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { compareVersions, parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import { computeSpecProblems } from '#shared/rollout/desired/compute-spec-problems.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import { fieldForbidden, fieldInvalid, formatFieldError } from '#shared/lang/openapi/field-error.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome } from '#shared/webhooks/admission-status.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import { validateVersionInClusterClass } from '#shared/webhooks/rules/cluster-rules.ts';
import { validateClusterClassesAreCompatible } from '#shared/webhooks/rules/cluster-class-rules.ts';

/** `spec.x: detail` (computeSpecProblems' sentences) as a field error. */
function fieldErrorOf(problem: string): FieldError {
  const at = problem.indexOf(': ');
  return at === -1
    ? { type: 'Invalid', field: 'spec', badValue: { omitted: true }, detail: problem }
    : { type: 'Invalid', field: problem.slice(0, at), badValue: { omitted: true }, detail: problem.slice(at + 2) };
}

const frozenFields = ['clusterSelector', 'change', 'waves'] as const;

/**
 * Validating: refuses a ClusterRollout that cannot be rolled out, naming each field.
 *
 * @example
 * await validateClusterRolloutAdmission(request, reader); // { allowed: false, status: { code: 422, message: 'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.clusterSelector: ...' } }
 */
export async function validateClusterRolloutAdmission(
  request: AdmissionRequest,
  reader: WebhookReader,
): Promise<AdmissionOutcome> {
  const object = { group: RolloutGroup, kind: RolloutKind, name: request.name ?? '' };
  if (request.operation === 'DELETE') return { allowed: true };
  const parsed = parseAdmittedObject(ClusterRollout, request.object);
  if (!parsed.ok) return computeFieldOutcome(object, parsed.errors);
  const rollout = parsed.value;
  const named = { ...object, name: rollout.metadata.name ?? object.name };
  const namespace = rollout.metadata.namespace ?? request.namespace ?? '';
  const errors = computeSpecProblems(rollout.spec).map(fieldErrorOf);
  const old = request.operation === 'UPDATE' ? parseAdmittedObject(ClusterRollout, request.oldObject) : undefined;
  const previous = old?.ok ? old.value : undefined;
  if (previous && (previous.status?.clusters ?? []).length > 0) {
    for (const field of frozenFields) {
      if (computeStableJson(previous.spec[field]) !== computeStableJson(rollout.spec[field])) {
        errors.push({
          type: 'Forbidden',
          field: `spec.${field}`,
          detail: 'cannot change once the rollout has started; create another ClusterRollout',
        });
      }
    }
  }
  const changed = (field: 'classRef' | 'version') =>
    previous === undefined ||
    computeStableJson(previous.spec.change[field]) !== computeStableJson(rollout.spec.change[field]);
  const selector = isEmptyLabelSelector(rollout.spec.clusterSelector)
    ? undefined
    : formatLabelSelector(rollout.spec.clusterSelector);
  let selected: Promise<Cluster[]> | undefined;
  const selectedClusters = () =>
    (selected ??= selector ? reader.listClusters(namespace, selector) : Promise.resolve([]));
  const classRef = rollout.spec.change.classRef;
  if (classRef && changed('classRef')) {
    const key = { namespace: classRef.namespace ?? namespace, name: classRef.name };
    const target = await reader.getClusterClass(key);
    if (target === undefined) {
      errors.push({
        type: 'Invalid',
        field: 'spec.change.classRef',
        badValue: `${key.namespace}/${key.name}`,
        detail: 'ClusterClass not found',
      });
    } else {
      errors.push(
        ...(await validateRebase(reader, await selectedClusters(), key, target, rollout.spec.change.version)),
      );
    }
  }
  const version = rollout.spec.change.version;
  const target = version === undefined ? undefined : parseVersionSemantic(version);
  if (target && changed('version')) {
    const downgraded = (await selectedClusters()).filter((c) => {
      const current = parseVersionSemantic(c.spec?.topology?.version ?? '');
      return current !== undefined && compareVersions(current, target, false) > 0;
    });
    if (downgraded.length > 0) {
      const names = downgraded.map((c) => `${c.metadata.name ?? ''} (${c.spec?.topology?.version ?? ''})`).slice(0, 10);
      errors.push({
        type: 'Invalid',
        field: 'spec.change.version',
        badValue: version ?? '',
        detail: `would downgrade ${downgraded.length} selected Cluster(s): ${names.join(', ')}`,
      });
    }
  }
  return computeFieldOutcome(named, errors);
}

const shownClusters = 10;

/**
 * The checks upstream's Cluster webhook runs on a rebase, for every selected Cluster with a topology not already on
 * the target class: its class and the target are compatible (`ClusterClassesAreCompatible`), the target has the
 * MachineDeployment and MachinePool classes its workers use, and it accepts the Cluster's (or the rollout's) version.
 * One field error naming the first Clusters with upstream's messages, so a rollout that would halt on its first write
 * is refused before it starts.
 */
async function validateRebase(
  reader: WebhookReader,
  clusters: readonly Cluster[],
  targetKey: ObjectKey,
  target: ClusterClass,
  version: string | undefined,
): Promise<FieldError[]> {
  const classes = new Map<string, Promise<ClusterClass | undefined>>();
  const classOf = (key: ObjectKey) => {
    const id = `${key.namespace}/${key.name}`;
    let cc = classes.get(id);
    if (cc === undefined) classes.set(id, (cc = reader.getClusterClass(key)));
    return cc;
  };
  const targetName = `${targetKey.namespace}/${targetKey.name}`;
  const problems: string[] = [];
  for (const cluster of [...clusters].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
    const topology = cluster.spec?.topology;
    if (!topology) continue;
    const namespace = cluster.metadata.namespace ?? targetKey.namespace;
    const currentKey = { namespace: topology.classRef.namespace ?? namespace, name: topology.classRef.name };
    if (currentKey.namespace === targetKey.namespace && currentKey.name === targetKey.name) continue;
    const current = await classOf(currentKey);
    const errors: FieldError[] = [];
    if (current === undefined)
      errors.push(
        fieldForbidden(
          'spec.topology.classRef',
          `valid ClusterClass with name "${currentKey.name}" could not be retrieved, change from class "${currentKey.name}" to class "${targetKey.name}" cannot be validated`,
        ),
      );
    else errors.push(...validateClusterClassesAreCompatible(current, target));
    const mdClasses = new Set((target.spec?.workers?.machineDeployments ?? []).map((c) => c.class));
    const mpClasses = new Set((target.spec?.workers?.machinePools ?? []).map((c) => c.class));
    (topology.workers?.machineDeployments ?? []).forEach((md, i) => {
      if (!mdClasses.has(md.class))
        errors.push(
          fieldInvalid(
            `spec.topology.workers.machineDeployments[${i}].class`,
            md.class,
            `MachineDeploymentClass with name "${md.class}" does not exist in ClusterClass "${targetName}"`,
          ),
        );
    });
    (topology.workers?.machinePools ?? []).forEach((mp, i) => {
      if (!mpClasses.has(mp.class))
        errors.push(
          fieldInvalid(
            `spec.topology.workers.machinePools[${i}].class`,
            mp.class,
            `MachinePoolClass with name "${mp.class}" does not exist in ClusterClass "${targetName}"`,
          ),
        );
    });
    const rebased: Cluster = {
      ...cluster,
      spec: { ...cluster.spec, topology: { ...topology, version: version ?? topology.version } },
    };
    errors.push(...validateVersionInClusterClass(rebased, target));
    if (errors.length > 0) problems.push(`${cluster.metadata.name ?? ''} (${errors.map(formatFieldError).join('; ')})`);
  }
  if (problems.length === 0) return [];
  const more = problems.length > shownClusters ? `, and ${problems.length - shownClusters} more` : '';
  return [
    {
      type: 'Invalid',
      field: 'spec.change.classRef',
      badValue: targetName,
      detail: `cannot rebase ${problems.length} selected Cluster(s): ${problems.slice(0, shownClusters).join(', ')}${more}`,
    },
  ];
}
