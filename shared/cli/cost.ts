// `capi-serverless cost`: the marginal monthly cost of capi-serverless against upstream's controllers it replaces,
// for a fleet size, a way to reach the API and (optionally) the user's own prices, from the measured profile.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CapiError } from '#shared/errors/index.ts';
import { awsPrices, priceSource, type AwsPrices } from '#shared/pricing/aws-prices.ts';
import {
  computeMarginalCost,
  networkPaths,
  type MarginalCost,
  type NetworkPath,
} from '#shared/pricing/compute-marginal-cost.ts';
import { measuredProfile } from '#shared/pricing/measured-profile.ts';

type Streams = { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } };

export type CostArgs = {
  clusters: number[];
  changesPerClusterMonth: number;
  network: NetworkPath;
  pricesFile?: string;
  output: 'table' | 'json' | 'markdown';
};

const positive = (flag: string, v: string | undefined) => {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n) || n < 0)
    throw new CapiError(`${flag} needs a number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

export function parseCostArgs(argv: readonly string[]): CostArgs {
  const args: CostArgs = { clusters: [], changesPerClusterMonth: 10, network: 'public', output: 'table' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--clusters' || a === '-n')
      args.clusters.push(...(argv[++i] ?? '').split(',').map((v) => positive(a, v)));
    else if (a === '--changes-per-cluster') args.changesPerClusterMonth = positive(a, argv[++i]);
    else if (a === '--network') {
      const v = argv[++i];
      if (!networkPaths.some((p) => p === v))
        throw new CapiError(`--network must be one of ${networkPaths.join(', ')}, got ${JSON.stringify(v)}`);
      args.network = v as NetworkPath;
    } else if (a === '--prices') {
      const v = argv[++i];
      if (!v) throw new CapiError('--prices needs a JSON file');
      args.pricesFile = v;
    } else if (a === '-o' || a === '--output') {
      const v = argv[++i];
      if (v !== 'table' && v !== 'json' && v !== 'markdown')
        throw new CapiError(`-o must be table, json or markdown, got ${JSON.stringify(v)}`);
      args.output = v;
    } else throw new CapiError(`unknown argument ${JSON.stringify(a)}`);
  }
  if (args.clusters.length === 0) args.clusters = [100, 1_000, 10_000];
  return args;
}

/** A prices file: any subset of the list prices' keys (USD), e.g. `{"natGatewayPerHour": 0.052}`. */
const PricesFile = z
  .object(Object.fromEntries(Object.keys(awsPrices).map((k) => [k, z.number().nonnegative().optional()])))
  .strict();

export function loadPrices(file: string | undefined): AwsPrices {
  if (!file) return awsPrices;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CapiError(`failed to read prices file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = PricesFile.safeParse(raw);
  if (!parsed.success)
    throw new CapiError(
      `prices file ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  const overrides = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
  return { ...awsPrices, ...overrides } as AwsPrices;
}

const usd = (n: number) => `$${n.toFixed(2)}`;

/** The table for one fleet size. */
export function formatCost(clusters: number, cost: MarginalCost): string {
  const rows = cost.lines.map((l) => [
    l.side === 'B' ? 'B capi-serverless' : 'A upstream',
    l.item,
    usd(l.usd),
    l.basis,
    l.note,
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 2 ? c.padStart(widths[i] ?? 0) : i < 4 ? c.padEnd(widths[i] ?? 0) : c)).join('  ');
  return [
    `${clusters.toLocaleString('en-US')} Clusters: B ${usd(cost.totalB)} / month, A ${usd(cost.totalA)} / month (marginal, what each adds to the management cluster)`,
    ...rows.map(line),
  ].join('\n');
}

/** One row per line item, one column per fleet size (the table in docs/cost.md). */
export function formatCostMarkdown(clusters: readonly number[], results: readonly MarginalCost[]): string {
  const first = results[0];
  if (!first) return '';
  const head = `| side | item | ${clusters.map((n) => `${n.toLocaleString('en-US')} Clusters`).join(' | ')} | basis | note |`;
  const rule = `| --- | --- | ${clusters.map(() => '---:').join(' | ')} | --- | --- |`;
  const rows = first.lines.map(
    (l, i) =>
      `| ${l.side} | ${l.item} | ${results.map((r) => usd(r.lines[i]?.usd ?? 0)).join(' | ')} | ${l.basis} | ${l.note.replaceAll('|', '\\|')} |`,
  );
  const totals = (['B', 'A'] as const).map(
    (side) =>
      `| ${side} | **total** | ${results.map((r) => `**${usd(side === 'B' ? r.totalB : r.totalA)}**`).join(' | ')} | | |`,
  );
  return [head, rule, ...rows, ...totals].join('\n');
}

export function runCost(argv: readonly string[], io: Streams): number {
  let args: CostArgs;
  let prices: AwsPrices;
  try {
    args = parseCostArgs(argv);
    prices = loadPrices(args.pricesFile);
  } catch (err) {
    io.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const results = args.clusters.map((clusters) => ({
    clusters,
    ...computeMarginalCost(
      measuredProfile,
      { clusters, changesPerClusterMonth: args.changesPerClusterMonth, network: args.network },
      prices,
    ),
  }));
  if (args.output === 'markdown') {
    io.stdout.write(`${formatCostMarkdown(args.clusters, results)}\n`);
    return 0;
  }
  if (args.output === 'json') {
    io.stdout.write(
      `${JSON.stringify({ network: args.network, changesPerClusterMonth: args.changesPerClusterMonth, profile: measuredProfile.basis, results }, null, 2)}\n`,
    );
    return 0;
  }
  io.stdout.write(
    [
      `network path: ${args.network}; ${args.changesPerClusterMonth} changes per Cluster per month; measured profile: ${measuredProfile.basis}`,
      `prices: ${args.pricesFile ?? `${priceSource.region} list prices recorded ${priceSource.recordedOn}`}; free tiers not applied`,
      '',
      results.map((r) => formatCost(r.clusters, r)).join('\n\n'),
      '',
    ].join('\n'),
  );
  return 0;
}
