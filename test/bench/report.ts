// The benchmark's report: the table with measured values beside the targets (printed), the raw results as
// JSON (test/bench/results/latest.json) and a Markdown fragment for docs/benchmarks.md (test/bench/RESULTS.md).
import { writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { cpus, totalmem } from 'node:os';

export type Row = {
  readonly figure: string;
  readonly target: string;
  readonly measured: string;
  /** undefined: informational, no target. */
  readonly met?: boolean;
  /** Why the target is not met (printed only then). */
  readonly why?: string;
};

const mark = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'yes' : 'NO');

/** The table as fixed-width text for the terminal. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['figure', 'target', 'measured', 'met'];
  const cells = rows.map((r) => [r.figure, r.target, r.measured, mark(r.met)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) => c.map((x, i) => x.padEnd(widths[i] ?? 0)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}

export function machineDescription(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform}/${process.arch}, Node ${process.version}`;
}

/**
 * Writes a file formatted as the repository's Prettier settings would, so `npm test`'s format check stays green
 * after a benchmark run.
 */
export async function writeFormatted(path: URL, text: string): Promise<void> {
  mkdirSync(new URL('.', path), { recursive: true });
  const filepath = fileURLToPath(path);
  const options = (await resolveConfig(filepath)) ?? {};
  writeFileSync(path, await format(text, { ...options, filepath }));
}

export type MarkdownInput = {
  readonly date: string;
  readonly clusters: number;
  readonly machine: string;
  readonly durationSeconds: number;
  readonly rows: readonly Row[];
  readonly costRows: readonly { readonly what: string; readonly usd: number; readonly note: string }[];
  readonly priceNote: string;
  readonly notes: readonly string[];
};

const escape = (s: string) => s.replaceAll('|', '\\|');

/** The docs/benchmarks.md fragment: the figures, where they come from, and how to reproduce them. */
export function formatMarkdown(input: MarkdownInput): string {
  return [
    '## Benchmarks',
    '',
    `Measured by \`npm run bench\` on ${input.date} with a fleet of ${input.clusters} Clusters on ${input.machine}; ` +
      `the management cluster (kube-apiserver + etcd), the workload cluster and DynamoDB Local ran on the same machine, ` +
      `so every figure includes their CPU time. The run took ${Math.round(input.durationSeconds)} s. Requests are ` +
      'counted at the HTTP level (every request the process sends, per verb and resource); the full breakdown is in ' +
      '`test/bench/results/latest.json`.',
    '',
    '| figure | target | measured | met |',
    '| --- | --- | --- | --- |',
    ...input.rows.map((r) => `| ${escape(r.figure)} | ${escape(r.target)} | ${escape(r.measured)} | ${mark(r.met)} |`),
    '',
    ...(input.rows.some((r) => r.met === false)
      ? [
          'Targets not met, by how much and why:',
          '',
          ...input.rows
            .filter((r) => r.met === false)
            .map((r) => `- **${r.figure}**: ${r.measured} against ${r.target}. ${r.why ?? ''}`.trimEnd()),
          '',
        ]
      : []),
    'Notes:',
    '',
    ...input.notes.map((n) => `- ${n}`),
    '',
    '### Monthly cost of an idle fleet (default stack, no NAT gateway)',
    '',
    '| what | USD / month | basis |',
    '| --- | ---: | --- |',
    ...input.costRows.map((c) => `| ${escape(c.what)} | ${c.usd.toFixed(2)} | ${escape(c.note)} |`),
    '',
    input.priceNote,
    '',
    '### Reproduce',
    '',
    '```',
    'npm run bench                 # 100 Clusters (about 1 minute on 2 cores)',
    'BENCH_FULL=1 npm run bench    # 1,000 Clusters (about 3 minutes on 2 cores)',
    'BENCH_CLUSTERS=300 npm run bench',
    '```',
    '',
    'It needs what `npm test` needs (Go or KUBEBUILDER_ASSETS, Java 17 for DynamoDB Local); nothing fails on a slow ' +
      'machine: the figures are printed and written, not asserted.',
    '',
  ].join('\n');
}
