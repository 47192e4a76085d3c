// How `plan` prints a fleet forecast: one block per Cluster and a one-line summary for people, or one JSON document
// for tools (stable key and Cluster order). Pure.
import type { ClusterForecast, ObjectName } from '#shared/cli/plan/compute-cluster-forecast.ts';
import type { FleetForecast, FleetSummary } from '#shared/cli/plan/compute-fleet-forecast.ts';

/** The change as the JSON output names it. */
export type DescribedChange = {
  readonly objects: readonly ObjectName[];
  readonly version?: string | undefined;
  readonly rebaseTo?: string | undefined;
  readonly namespace?: string | undefined;
  readonly selector?: string | undefined;
};

export const FleetForecastApiVersion = 'capi-serverless/v1alpha1';

const id = (o: ObjectName) => `${o.kind} ${o.namespace}/${o.name}`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function describeTopologies(c: ClusterForecast): string {
  const from = `${c.from.class}@${c.from.version}`;
  const to = `${c.to.class}@${c.to.version}`;
  return from === to ? from : `${from} → ${to}`;
}

/**
 * One Cluster's block.
 *
 * @example
 * formatClusterForecast(forecast);
 * // 'Cluster fleet/c1: quick-start@v1.30.0: changes\n  rotates   DockerMachineTemplate fleet/c1-md-a-x → c1-md-a-y (MachineDeployment md-a)\n…'
 */
export function formatClusterForecast(c: ClusterForecast): string {
  const head = `Cluster ${c.namespace}/${c.name}: ${describeTopologies(c)}: `;
  if (c.result === 'Invalid') return `${head}fails validation: ${c.error ?? ''}\n`;
  if (c.result === 'Unchanged') return `${head}unchanged\n`;
  const lines = [`${head}changes`];
  for (const r of c.rotations) lines.push(`  rotates   ${id(r)} → ${r.replacedBy}${r.usedBy ? ` (${r.usedBy})` : ''}`);
  for (const o of c.inPlace) lines.push(`  in place  ${id(o)}`);
  for (const o of c.created) lines.push(`  creates   ${id(o)}`);
  for (const r of c.rollouts) {
    const what =
      r.owner === 'ControlPlane'
        ? `control plane ${id(r)}`
        : `${r.owner} ${r.topologyName ?? ''} (${r.namespace}/${r.name})`;
    const count = r.replicas === undefined ? 'its Machines' : plural(r.replicas, 'Machine', 'Machines');
    lines.push(`  rolls     ${what}: ${count} (${r.reasons.join(', ')})`);
  }
  if (lines.length === 1) lines.push('  only the Cluster changes (spec.topology); no other object changes');
  return lines.join('\n') + '\n';
}

/**
 * The one-line summary.
 *
 * @example
 * formatFleetSummary(summary, ['fleet/c5']);
 * // '5 Clusters change; 5 roll 10 worker Machines, 0 roll their control planes; 1 fails validation: fleet/c5; 1 unchanged'
 */
export function formatFleetSummary(s: FleetSummary, invalid: readonly string[]): string {
  const parts = [
    `${plural(s.changed, 'Cluster changes', 'Clusters change')}; ${s.workerRollouts} roll ${plural(s.workerMachines, 'worker Machine', 'worker Machines')}, ${s.controlPlaneRollouts} roll their control planes (${plural(s.controlPlaneMachines, 'Machine', 'Machines')})`,
  ];
  if (s.invalid > 0) parts.push(`${s.invalid} ${s.invalid === 1 ? 'fails' : 'fail'} validation: ${invalid.join(', ')}`);
  if (s.unchanged > 0) parts.push(`${s.unchanged} unchanged`);
  return parts.join('; ');
}

/** The whole forecast as text: the Cluster blocks, then the summary line. */
export function formatFleetForecastText(forecast: FleetForecast): string {
  const invalid = forecast.clusters.filter((c) => c.result === 'Invalid').map((c) => `${c.namespace}/${c.name}`);
  return forecast.clusters.map(formatClusterForecast).join('') + formatFleetSummary(forecast.summary, invalid) + '\n';
}

/** The forecast as one JSON document, for tools. */
export function formatFleetForecastJson(forecast: FleetForecast, change: DescribedChange): string {
  const document = {
    apiVersion: FleetForecastApiVersion,
    kind: 'FleetForecast',
    change: {
      objects: change.objects,
      ...(change.version !== undefined ? { version: change.version } : {}),
      ...(change.rebaseTo !== undefined ? { rebaseTo: change.rebaseTo } : {}),
      ...(change.namespace !== undefined ? { namespace: change.namespace } : {}),
      ...(change.selector !== undefined ? { selector: change.selector } : {}),
    },
    summary: forecast.summary,
    clusters: forecast.clusters.map((c) => ({
      namespace: c.namespace,
      name: c.name,
      from: c.from,
      to: c.to,
      result: c.result,
      ...(c.error !== undefined ? { error: c.error } : {}),
      machines: c.machines,
      rollouts: c.rollouts.map((r) => ({
        owner: r.owner,
        ...(r.topologyName !== undefined ? { topologyName: r.topologyName } : {}),
        kind: r.kind,
        namespace: r.namespace,
        name: r.name,
        replicas: r.replicas ?? null,
        reasons: r.reasons,
      })),
      rotations: c.rotations,
      inPlace: c.inPlace,
      created: c.created,
    })),
  };
  return JSON.stringify(document, null, 2) + '\n';
}
