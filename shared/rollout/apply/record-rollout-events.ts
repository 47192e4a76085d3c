// Kubernetes Events (core/v1) on the rollout and on each Cluster it changed, failed or found in conflict. An Event
// that cannot be written is logged and dropped: Events are best effort, never a reason to fail a pass.
import {
  RolloutApiVersion,
  RolloutKind,
  type ClusterRollout,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { createObject, type KubeClient } from '#shared/kube/index.ts';
import { clusterApiVersion } from '#shared/rollout/current/list-rollout-clusters.ts';
import type { RolloutClusterFacts, RolloutEvent } from '#shared/rollout/types.ts';

/** The `source.component` / `reportingController` of the Events. */
export const rolloutEventSource = 'capi-serverless-rollout';

export type RecordEventsDeps = {
  readonly kube: KubeClient;
  readonly fieldManager: string;
  readonly now: () => number;
  readonly warn?: (message: string, error: string) => void;
};

/**
 * Creates one Event per entry (named `<object>.<random suffix>` by the server).
 *
 * @example
 * await recordRolloutEvents(deps, rollout, clusters, [{ regarding: { kind: 'ClusterRollout' }, type: 'Normal', reason: 'WaveSucceeded', message: 'wave-1 succeeded (1 Cluster(s))' }]);
 */
export async function recordRolloutEvents(
  deps: RecordEventsDeps,
  rollout: ClusterRollout,
  clusters: readonly RolloutClusterFacts[],
  events: readonly RolloutEvent[],
): Promise<number> {
  const namespace = rollout.metadata.namespace ?? '';
  const uids = new Map(clusters.map((c) => [c.name, c.uid]));
  const time = new Date(deps.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let recorded = 0;
  for (const event of events) {
    const involved =
      event.regarding.kind === 'Cluster'
        ? {
            apiVersion: clusterApiVersion,
            kind: 'Cluster',
            namespace,
            name: event.regarding.name,
            uid: uids.get(event.regarding.name),
          }
        : {
            apiVersion: RolloutApiVersion,
            kind: RolloutKind,
            namespace,
            name: rollout.metadata.name,
            uid: rollout.metadata.uid,
          };
    try {
      await createObject(
        deps.kube,
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { namespace, generateName: `${involved.name ?? 'rollout'}.` },
          involvedObject: involved,
          reason: event.reason,
          message: event.message.slice(0, 1024),
          type: event.type,
          source: { component: rolloutEventSource },
          reportingComponent: rolloutEventSource,
          reportingInstance: rolloutEventSource,
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
        },
        { fieldManager: deps.fieldManager },
      );
      recorded++;
    } catch (err) {
      deps.warn?.(
        `failed to record Event ${event.reason} on ${involved.kind} ${namespace}/${involved.name ?? ''}`,
        errorMessage(err),
      );
    }
  }
  return recorded;
}
