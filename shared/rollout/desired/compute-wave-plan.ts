// Waves: checking the spec's list, and dealing the selected Clusters (sorted by name) into waves of the sizes it
// asks for. Shared by the pass and the admission webhook.
import type { RolloutWave } from '#shared/api/management/v1alpha1/cluster-rollout.ts';

/** Problems with `spec.waves`, each a sentence naming the field; empty when the list is valid. */
export function validateWaves(waves: readonly RolloutWave[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  let percent = 0;
  waves.forEach((wave, i) => {
    const name = waveName(waves, i);
    if (names.has(name)) problems.push(`spec.waves[${i}].name: duplicate wave name "${name}"`);
    names.add(name);
    const size = wave.clusters;
    if (size === 'rest' && i !== waves.length - 1) {
      problems.push(`spec.waves[${i}].clusters: "rest" is only allowed in the last wave`);
    }
    if (typeof size === 'string' && size.endsWith('%')) {
      const value = Number(size.slice(0, -1));
      if (value < 1) problems.push(`spec.waves[${i}].clusters: a percentage must be at least 1%`);
      percent += value;
    }
  });
  const last = waves[waves.length - 1];
  if (last !== undefined && last.clusters !== 'rest' && percent < 100) {
    problems.push(
      `spec.waves: the waves must cover every selected Cluster: end with a wave of clusters: rest, or use percentages summing to at least 100% (they sum to ${percent}%)`,
    );
  }
  return problems;
}

/** A wave's name: its own, or `wave-<n>` (1-based). */
export function waveName(waves: readonly RolloutWave[], index: number): string {
  return waves[index]?.name ?? `wave-${index + 1}`;
}

/**
 * How many of `total` Clusters each wave takes: a count as is, a percentage of `total` rounded up, `rest` what is
 * left; never more than is left. Clusters no wave takes (a spec admission would refuse) go to the last wave.
 *
 * @example
 * computeWaveSizes([{ clusters: 1 }, { clusters: 3 }, { clusters: 'rest' }], 8); // [1, 3, 4]
 * computeWaveSizes([{ clusters: '10%' }, { clusters: '100%' }], 8); // [1, 7]
 */
export function computeWaveSizes(waves: readonly RolloutWave[], total: number): number[] {
  let left = total;
  const sizes = waves.map((wave) => {
    const size = wave.clusters;
    const wanted =
      size === 'rest' ? left : typeof size === 'number' ? size : Math.ceil((Number(size.slice(0, -1)) * total) / 100);
    const taken = Math.min(wanted, left);
    left -= taken;
    return taken;
  });
  if (left > 0 && sizes.length > 0) sizes[sizes.length - 1] = (sizes[sizes.length - 1] ?? 0) + left;
  return sizes;
}

/**
 * The wave (0-based) of each Cluster, dealt in name order.
 *
 * @example
 * computeWaveAssignment(['c', 'a', 'b'], [{ clusters: 1 }, { clusters: 'rest' }]); // Map { 'a' => 0, 'b' => 1, 'c' => 1 }
 */
export function computeWaveAssignment(names: readonly string[], waves: readonly RolloutWave[]): Map<string, number> {
  const sorted = [...names].sort(compareNames);
  const sizes = computeWaveSizes(waves, sorted.length);
  const assignment = new Map<string, number>();
  let at = 0;
  sizes.forEach((size, wave) => {
    for (const name of sorted.slice(at, at + size)) assignment.set(name, wave);
    at += size;
  });
  return assignment;
}

/** Code-point order, the same on every machine (not locale order). */
export const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
