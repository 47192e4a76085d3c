// What makes a ClusterRollout's spec unusable, as sentences naming the field (the webhook refuses such a spec; a
// rollout that got past it anyway stops with reason InvalidSpec and changes nothing).
import { isEmptyLabelSelector, validateLabelSelector } from '#shared/api/label-selector.ts';
import type { ClusterRolloutSpec } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { parseDuration } from '#shared/lang/go/time.ts';
import { isKnownTimeZone } from '#shared/rollout/desired/compute-maintenance-window.ts';
import { validateWaves } from '#shared/rollout/desired/compute-wave-plan.ts';

/** Default `spec.healthGate.timeout`. */
export const defaultHealthTimeout = '30m';

/** A duration field in ms; undefined when it does not parse or is negative. */
export function computeDurationMs(text: string): number | undefined {
  const nanos = parseDuration(text);
  return nanos === undefined || nanos < 0n ? undefined : Math.round(Number(nanos) / 1e6);
}

/**
 * Every problem of a spec; empty when it can be rolled out.
 *
 * @example
 * computeSpecProblems({ clusterSelector: {}, change: { version: 'v1.34.1' }, waves: [{ clusters: 1 }] });
 * // ['spec.clusterSelector: must not be empty (it would select every Cluster of the namespace)', 'spec.waves: ...']
 */
export function computeSpecProblems(spec: ClusterRolloutSpec): string[] {
  const problems: string[] = [];
  if (isEmptyLabelSelector(spec.clusterSelector)) {
    problems.push('spec.clusterSelector: must not be empty (it would select every Cluster of the namespace)');
  } else {
    for (const p of validateLabelSelector(spec.clusterSelector)) problems.push(`spec.clusterSelector: ${p}`);
  }
  problems.push(...validateWaves(spec.waves));
  if (spec.bakeTime !== undefined && computeDurationMs(spec.bakeTime) === undefined) {
    problems.push(`spec.bakeTime: invalid duration "${spec.bakeTime}"`);
  }
  const timeout = spec.healthGate?.timeout;
  if (timeout !== undefined && !computeDurationMs(timeout)) {
    problems.push(`spec.healthGate.timeout: must be a positive duration, got "${timeout}"`);
  }
  const zone = spec.maintenanceWindow?.timeZone;
  if (zone !== undefined && !isKnownTimeZone(zone)) {
    problems.push(`spec.maintenanceWindow.timeZone: unknown time zone "${zone}"`);
  }
  return problems;
}
