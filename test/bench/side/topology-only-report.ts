// The topology-only bench's result and its Markdown page (run-topology-only.ts writes them; merge-topology-only.ts
// joins two one-sided runs).
import type { EstimatedSeats } from './compute-seats.ts';
import type { RequestBreakdownRow, RequestCounts } from './count-requests.ts';
import type { SideName } from './side-report.ts';

export type PhaseReport = {
  name: string;
  durationMs: number;
  loadAverage: { start: readonly number[]; end: readonly number[] };
  latencyMs?: { p50: number; p99: number; max: number; samples: number };
  requests: Record<string, RequestCounts>;
  estimatedSeats: Record<string, EstimatedSeats>;
  /** The API server's own flow-control counters over the phase (deltas), by label set. */
  flowControl: {
    dispatched: Record<string, number>;
    rejected: Record<string, number>;
    estimatedSeatsSum: Record<string, number>;
  };
  cpuSeconds: Record<string, number>;
  memory: Record<string, { meanMiB: number; peakMiB: number }>;
  breakdown?: RequestBreakdownRow[];
  error?: string;
};

export type SideResult = {
  side: SideName;
  durationMs: number;
  storedObjects: Record<string, number>;
  phases: PhaseReport[];
};

const mib = (m: { peakMiB: number } | undefined) => (m ? m.peakMiB.toFixed(0) : '–');

/** The run as a Markdown page: per side, each phase's time and per component its requests, seats, CPU and memory. */
export function computeTopologyOnlyMarkdown(result: TopologyOnlyResult): string {
  const lines = [
    `# Topology only: one ClusterClass change on ${result.config.clusters} converged Clusters`,
    '',
    `Measured ${result.date} on ${result.machine} with \`BENCH_TOPO_CLUSTERS=${result.config.clusters} npm run bench:topology-only\`${result.merged ? ` (${result.merged})` : ''}.`,
    'Real servers: kube-apiserver and etcd (harness), upstream Cluster API v1.14 core manager (A: topology on;',
    'B: ClusterTopology off), capi-serverless functions and forwarder with DynamoDB Local (B). No Machines.',
    '',
  ];
  for (const side of Object.values(result.sides)) {
    lines.push(`## Side ${side.side}`, '');
    for (const p of side.phases) {
      const l = p.latencyMs;
      lines.push(
        `### ${p.name}`,
        '',
        `${(p.durationMs / 1000).toFixed(1)} s; load average ${p.loadAverage.start.map((x) => x.toFixed(2)).join(' ')} at the start, ${p.loadAverage.end.map((x) => x.toFixed(2)).join(' ')} after.` +
          (l
            ? ` Per Cluster, from the write to converged: p50 ${(l.p50 / 1000).toFixed(1)} s, p99 ${(l.p99 / 1000).toFixed(1)} s, last ${(l.max / 1000).toFixed(1)} s (${l.samples} Clusters).`
            : '') +
          (p.error ? ` **Failed:** ${p.error.slice(0, 300)}` : ''),
        '',
        '| component | requests | mutating | LIST | est. seats | CPU s | peak MiB |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      );
      const names = new Set([...Object.keys(p.requests), ...Object.keys(p.cpuSeconds)]);
      for (const n of [...names].sort()) {
        const r = p.requests[n];
        lines.push(
          `| ${n} | ${r?.total ?? 0} | ${r?.mutating ?? 0} | ${r?.byVerb['list'] ?? 0} | ${p.estimatedSeats[n]?.seats ?? 0} | ${(p.cpuSeconds[n] ?? 0).toFixed(1)} | ${mib(p.memory[n])} |`,
        );
      }
      lines.push('');
    }
  }
  lines.push(
    'Est. seats: the v1.34 LIST work estimate (size-based, 4 kB an object as the scale model takes it: one seat per',
    "100 kB listed, 1 to 10) for each counted LIST, 1 for any other request. The server's own counters (all users",
    'together; the harness identities are in system:masters, the exempt level) are in the JSON, `flowControl`.',
    '',
  );
  return lines.join('\n');
}

export type TopologyOnlyResult = {
  /** Set by merge-topology-only.ts: which runs the sides come from and whether they overlapped in time. */
  merged?: string;
  date: string;
  machine: string;
  config: Record<string, unknown> & { clusters: number; parallel?: boolean };
  durationMs: number;
  sides: Partial<Record<SideName, SideResult>>;
};
