// The Kubernetes Events of a pass, from how the status moved: one on the rollout and one on the Cluster for each
// Cluster changed, failed or found in conflict, and one on the rollout when a wave completes or the phase changes.
import {
  ClusterRolloutState as State,
  WaveState,
  type ClusterRolloutStatus,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { describeTopology } from '#shared/rollout/desired/topology-target.ts';
import type { ClusterChange, RolloutEvent } from '#shared/rollout/types.ts';

const onRollout = { kind: 'ClusterRollout' } as const;
const onCluster = (name: string) => ({ kind: 'Cluster', name }) as const;

/**
 * The Events to record for a pass.
 *
 * @example
 * computeRolloutEvents('default/v134', previous, next, changes);
 * // [{ regarding: { kind: 'Cluster', name: 'c1' }, type: 'Normal', reason: 'TopologyChanged', message: 'ClusterRollout default/v134 (wave-1) changed spec.topology from dev@v1.33.0 to dev@v1.34.1' }, ...]
 */
export function computeRolloutEvents(
  rolloutName: string,
  previous: ClusterRolloutStatus | undefined,
  next: ClusterRolloutStatus,
  changes: readonly ClusterChange[],
): RolloutEvent[] {
  const events: RolloutEvent[] = [];
  const waveNames = (next.waves ?? []).map((w) => w.name);
  for (const change of changes) {
    const message = `ClusterRollout ${rolloutName} (${waveNames[change.wave] ?? ''}) changed spec.topology from ${describeTopology(change.from)} to ${describeTopology(change.to)}`;
    events.push({ regarding: onCluster(change.name), type: 'Normal', reason: 'TopologyChanged', message });
    events.push({
      regarding: onRollout,
      type: 'Normal',
      reason: 'ClusterChanged',
      message: `changed Cluster ${change.name}: ${describeTopology(change.from)} -> ${describeTopology(change.to)}`,
    });
  }
  const before = new Map((previous?.clusters ?? []).map((e) => [e.name, e]));
  for (const entry of next.clusters ?? []) {
    const was = before.get(entry.name)?.state;
    if (was === entry.state) continue;
    if (entry.state === State.Failed) {
      const message = `${entry.reason ?? 'Failed'}: ${entry.message ?? ''}`;
      events.push({
        regarding: onCluster(entry.name),
        type: 'Warning',
        reason: 'RolloutHealthGateFailed',
        message: `ClusterRollout ${rolloutName}: ${message}`,
      });
      events.push({
        regarding: onRollout,
        type: 'Warning',
        reason: 'ClusterFailed',
        message: `Cluster ${entry.name} ${message}`,
      });
    } else if (entry.state === State.Conflict) {
      events.push({
        regarding: onCluster(entry.name),
        type: 'Warning',
        reason: 'RolloutConflict',
        message: `ClusterRollout ${rolloutName}: ${entry.message ?? ''}`,
      });
      events.push({
        regarding: onRollout,
        type: 'Warning',
        reason: 'ClusterConflict',
        message: `Cluster ${entry.name}: ${entry.message ?? ''}`,
      });
    } else if (entry.state === State.Healthy && (was === State.Changing || was === State.Failed)) {
      events.push({
        regarding: onRollout,
        type: 'Normal',
        reason: 'ClusterHealthy',
        message: `Cluster ${entry.name} passed its health gate`,
      });
    }
  }
  const wavesBefore = new Map((previous?.waves ?? []).map((w) => [w.name, w.state]));
  for (const wave of next.waves ?? []) {
    if (wave.state === WaveState.Succeeded && wavesBefore.get(wave.name) !== WaveState.Succeeded) {
      events.push({
        regarding: onRollout,
        type: 'Normal',
        reason: 'WaveSucceeded',
        message: `${wave.name} succeeded (${wave.clusters} Cluster(s))`,
      });
    }
  }
  if (previous?.phase !== next.phase && next.phase !== undefined) {
    const progressing = next.conditions?.find((c) => c.type === 'Progressing');
    const warning = next.phase === 'Halted' || next.phase === 'Invalid';
    events.push({
      regarding: onRollout,
      type: warning ? 'Warning' : 'Normal',
      reason: `Rollout${next.phase}`,
      message: progressing?.message || next.phase,
    });
  }
  return events;
}
