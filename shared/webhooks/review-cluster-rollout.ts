// Admission of ClusterRollouts: a usable spec (non-empty selector, waves covering every Cluster, durations, time
// zone), an existing class to rebase to, a version that downgrades none of the selected Clusters, and, once the
// rollout has started, a target (selector, change, waves) that no longer moves.
import { ClusterRollout, RolloutGroup, RolloutKind } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { formatLabelSelector, isEmptyLabelSelector } from '#shared/api/label-selector.ts';
import { compareVersions, parseVersionSemantic } from '#shared/lang/semver/semver.ts';
import { computeSpecProblems } from '#shared/rollout/desired/compute-spec-problems.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome } from '#shared/webhooks/admission-status.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';

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
  const classRef = rollout.spec.change.classRef;
  if (classRef && changed('classRef')) {
    const key = { namespace: classRef.namespace ?? namespace, name: classRef.name };
    if ((await reader.getClusterClass(key)) === undefined) {
      errors.push({
        type: 'Invalid',
        field: 'spec.change.classRef',
        badValue: `${key.namespace}/${key.name}`,
        detail: 'ClusterClass not found',
      });
    }
  }
  const version = rollout.spec.change.version;
  const target = version === undefined ? undefined : parseVersionSemantic(version);
  if (target && changed('version') && !isEmptyLabelSelector(rollout.spec.clusterSelector)) {
    const clusters = await reader.listClusters(namespace, formatLabelSelector(rollout.spec.clusterSelector));
    const downgraded = clusters.filter((c) => {
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
