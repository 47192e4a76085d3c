// The ClusterResourceSet's `ResourcesApplied` conditions, from what happened on every matching cluster: the v1beta2
// one (metav1, upstream v1.14's reasons) and the v1beta1 one upstream keeps under `status.deprecated.v1beta1`.
import type { Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { ClusterResourceSetV1Beta1Reason as ClusterResourceSetReason } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import {
  ClusterResourceSetResourcesApplied,
  ClusterResourceSetV1Beta1Reason as Reason,
  ResourcesAppliedV1Beta1Condition as ResourcesAppliedCondition,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { Condition as MetaCondition } from '#shared/api/core/v1beta2/common.ts';
import { formatKubeTime } from '#shared/addons/desired/binding.ts';
import type { ClusterOutcome } from '#shared/addons/desired/resource-outcome.ts';

export type ResourcesAppliedInput = {
  /** Set when the clusters matching the selector could not be listed. */
  readonly clusterMatchError?: string | undefined;
  readonly clusters: readonly ClusterOutcome[];
};

type Failure = {
  readonly reason: ClusterResourceSetReason;
  readonly message: string;
  /** The Secret of a WrongSecretType failure (upstream names it in the v1beta2 message). */
  readonly resource?: string;
};

/** Most important first: the condition carries the reason of the first kind of failure found in this order. */
const precedence: readonly ClusterResourceSetReason[] = [
  Reason.ClusterMatchFailed,
  Reason.RemoteClusterClientFailed,
  Reason.WrongSecretType,
  Reason.RetrievingResourceFailed,
  Reason.ApplyFailed,
];

const maxMessages = 5;

const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const resourceVersion = /\bresourceVersion[:=]\s*"?\d+"?/g;

/** Drops what changes on every retry (UIDs, resource versions) so a repeated failure does not churn status. */
export function stripVolatile(message: string): string {
  return message.replace(uuid, '<uid>').replace(resourceVersion, 'resourceVersion').split('\n')[0]!.trim();
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function failuresOf(outcome: ClusterOutcome): Failure[] {
  const cluster = `Cluster ${outcome.cluster.namespace}/${outcome.cluster.name}`;
  const object = (kind: string, name: string) => `${kind} ${outcome.cluster.namespace}/${name}`;
  const failures: Failure[] = [];
  for (const r of outcome.resources) {
    if (r.outcome === 'WrongSecretType') {
      failures.push({ reason: Reason.WrongSecretType, message: r.message, resource: r.ref.name });
    }
    if (r.outcome === 'RetrievingResourceFailed') {
      failures.push({
        reason: Reason.RetrievingResourceFailed,
        message: `failed to get ${object(r.ref.kind, r.ref.name)}: ${r.message}`,
      });
    }
  }
  // Upstream stops before the remote client when a resource could not be read.
  if (failures.length > 0) return failures;
  if (outcome.remoteClientError !== undefined) {
    return [
      {
        reason: Reason.RemoteClusterClientFailed,
        message: `failed to get a client for ${cluster}: ${outcome.remoteClientError}`,
      },
    ];
  }
  for (const r of outcome.resources) {
    if (r.outcome === 'ApplyFailed') {
      failures.push({
        reason: Reason.ApplyFailed,
        message: `failed to apply ${object(r.ref.kind, r.ref.name)} to ${cluster}: ${r.message}`,
      });
    }
    // NOTE: upstream sets no reason for unreadable data (it only records an error); ApplyFailed is the closest.
    if (r.outcome === 'Invalid') failures.push({ reason: Reason.ApplyFailed, message: r.message });
  }
  return failures;
}

/**
 * The `ResourcesApplied` condition: False with the most important upstream reason (ClusterMatchFailed,
 * RemoteClusterClientFailed [severity Error], WrongSecretType, RetrievingResourceFailed, ApplyFailed [Warning]) and a
 * message naming what failed (clusters in name order, duplicates dropped, at most five, volatile parts stripped);
 * True when every cluster succeeded. A missing ConfigMap/Secret does not fail it (upstream skips those silently).
 * Undefined when there is nothing to say (no matching cluster, no error): keep the condition as it is.
 * `lastTransitionTime` is kept from `previous` when status, reason, severity and message are unchanged.
 * NOTE: upstream lets the last cluster processed win; we report a failure on any cluster, which does not flap.
 *
 * @example
 * computeResourcesAppliedCondition({ clusters: [{ cluster: { namespace: 'ns', name: 'c1' }, resources: [] }] }, now);
 * // { type: 'ResourcesApplied', status: 'True', lastTransitionTime: '...' }
 */
function computeFailures(input: ResourcesAppliedInput): Failure[] | undefined {
  if (input.clusterMatchError !== undefined) {
    return [{ reason: Reason.ClusterMatchFailed, message: input.clusterMatchError }];
  }
  if (input.clusters.length === 0) return undefined;
  const clusters = [...input.clusters].sort(
    (a, b) =>
      compareStrings(a.cluster.namespace, b.cluster.namespace) || compareStrings(a.cluster.name, b.cluster.name),
  );
  return clusters.flatMap(failuresOf);
}

function worstReason(failures: readonly Failure[]): ClusterResourceSetReason {
  return precedence.find((r) => failures.some((f) => f.reason === r)) ?? Reason.ApplyFailed;
}

export function computeResourcesAppliedCondition(
  input: ResourcesAppliedInput,
  now: Date,
  previous?: Condition,
): Condition | undefined {
  const failures = computeFailures(input);
  if (failures === undefined) return undefined;

  const next: Omit<Condition, 'lastTransitionTime'> =
    failures.length === 0
      ? { type: ResourcesAppliedCondition, status: 'True' }
      : (() => {
          const reason = worstReason(failures);
          const messages = [...new Set(failures.map((f) => stripVolatile(f.message)))];
          const shown = messages.slice(0, maxMessages);
          const more = messages.length - shown.length;
          return {
            type: ResourcesAppliedCondition,
            status: 'False',
            severity: reason === Reason.RemoteClusterClientFailed ? 'Error' : 'Warning',
            reason,
            message: shown.join('; ') + (more > 0 ? `; and ${more} more` : ''),
          };
        })();

  const sameState =
    previous !== undefined &&
    previous.type === next.type &&
    previous.status === next.status &&
    (previous.reason ?? '') === (next.reason ?? '') &&
    (previous.severity ?? '') === (next.severity ?? '') &&
    (previous.message ?? '') === (next.message ?? '');
  return { ...next, lastTransitionTime: sameState ? previous.lastTransitionTime : formatKubeTime(now) };
}

/** What upstream v1.14 says in the v1beta2 condition for each v1beta1 reason (details only in its logs). */
const internalError = {
  reason: ClusterResourceSetResourcesApplied.reasons.InternalError,
  message: 'Please check controller logs for errors',
} as const;

function v1beta2StateOf(failures: readonly Failure[]): { readonly reason: string; readonly message: string } {
  const reason = worstReason(failures);
  switch (reason) {
    case Reason.WrongSecretType:
      return {
        reason: ClusterResourceSetResourcesApplied.reasons.WrongSecretType,
        message: `Secret type of resource ${failures.find((f) => f.reason === reason)?.resource ?? ''} is not supported`,
      };
    case Reason.ApplyFailed:
      return {
        reason: ClusterResourceSetResourcesApplied.reasons.NotApplied,
        message: 'Failed to apply ClusterResourceSet resources to Cluster',
      };
    default:
      return internalError;
  }
}

/**
 * The v1beta2 `ResourcesApplied` condition as upstream v1.14 writes it: True/Applied when every cluster succeeded;
 * else False with reason WrongSecretType ("Secret type of resource <name> is not supported"), NotApplied ("Failed to
 * apply ClusterResourceSet resources to Cluster") or InternalError ("Please check controller logs for errors", for a
 * failed cluster match, remote client or resource read), the failure picked as for the v1beta1 condition; the
 * details are in the v1beta1 condition's message. `observedGeneration` is the ClusterResourceSet's generation;
 * `lastTransitionTime` is kept from `previous` unless the status changed (`meta.SetStatusCondition`). Undefined when
 * there is nothing to say.
 *
 * @example
 * computeResourcesAppliedV1Beta2Condition({ clusters: [{ cluster: { namespace: 'ns', name: 'c1' }, resources: [] }] }, 1, now);
 * // { type: 'ResourcesApplied', status: 'True', reason: 'Applied', message: '', observedGeneration: 1, … }
 */
export function computeResourcesAppliedV1Beta2Condition(
  input: ResourcesAppliedInput,
  generation: number | undefined,
  now: Date,
  previous?: MetaCondition,
): MetaCondition | undefined {
  const failures = computeFailures(input);
  if (failures === undefined) return undefined;
  const state =
    failures.length === 0
      ? { status: 'True' as const, reason: ClusterResourceSetResourcesApplied.reasons.Applied, message: '' }
      : { status: 'False' as const, ...v1beta2StateOf(failures) };
  const lastTransitionTime =
    previous !== undefined && previous.status === state.status ? previous.lastTransitionTime : formatKubeTime(now);
  return {
    type: ClusterResourceSetResourcesApplied.type,
    ...state,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime,
  };
}
