// `capi-serverless cost`: the marginal monthly cost of capi-serverless (B) against upstream's controllers it replaces
// (A, installed with the Cluster API Operator or with clusterctl), priced from the synthesized template of each
// deployment variant, the measured per-change profile and a monthly change mix; every line printed.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CapiError } from '#shared/errors/index.ts';
import { awsPrices, priceSource, type AwsPrices } from '#shared/pricing/aws-prices.ts';
import {
  computeMarginalCost,
  monitoringBasis,
  userTypes,
  type MarginalCost,
  type UserType,
} from '#shared/pricing/compute-marginal-cost.ts';
import { defaultChangeMix, type ChangeMix } from '#shared/pricing/compute-monthly-activity.ts';
import { computeDesignOutcome, designChanges, type DesignOutcome } from '#shared/pricing/design-changes.ts';
import { changeTypes, type ChangeType } from '#shared/pricing/measured-profile-types.ts';
import { measuredProfile } from '#shared/pricing/measured-profile.ts';
import { readDeployedStack, type DeployedStack } from '#shared/pricing/read-deployed-stack.ts';
import { forwarderValues, readPodRequests } from '#shared/pricing/read-pod-requests.ts';
import { stackVariants, synthesizeStack, type StackVariant } from '#shared/pricing/synthesize-stack.ts';

type Streams = { stdout: { write(s: string): unknown }; stderr: { write(s: string): unknown } };

const variants = Object.keys(stackVariants) as StackVariant[];

export type CostArgs = {
  clusters: number[];
  mix: ChangeMix;
  variants: StackVariant[];
  userTypes: UserType[];
  pricesFile?: string;
  output: 'table' | 'json' | 'markdown';
};

const nonNegative = (flag: string, v: string | undefined) => {
  const n = Number(v);
  if (v === undefined || v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new CapiError(`${flag} needs a number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

/** `upgrade=1,class=2`: the whole mix, changes per Cluster per month; types not named are 0. */
export function parseMix(text: string | undefined): ChangeMix {
  if (!text) throw new CapiError(`--mix needs type=count pairs (types: ${changeTypes.join(', ')})`);
  const mix = Object.fromEntries(changeTypes.map((t) => [t, 0])) as Record<ChangeType, number>;
  for (const pair of text.split(',')) {
    const [type, count] = pair.split('=');
    if (!changeTypes.some((t) => t === type))
      throw new CapiError(`--mix: unknown change type ${JSON.stringify(type)} (types: ${changeTypes.join(', ')})`);
    mix[type as ChangeType] = nonNegative(`--mix ${type}`, count);
  }
  return mix;
}

const oneOrBoth = <T extends string>(flag: string, all: readonly T[], v: string | undefined): T[] => {
  if (v === 'both' || v === 'all') return [...all];
  if (!all.some((x) => x === v))
    throw new CapiError(`${flag} must be one of ${[...all, 'both'].join(', ')}, got ${JSON.stringify(v)}`);
  return [v as T];
};

export function parseCostArgs(argv: readonly string[]): CostArgs {
  const args: CostArgs = {
    clusters: [],
    mix: defaultChangeMix,
    variants: [...variants],
    userTypes: [...userTypes],
    output: 'table',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--clusters' || a === '-n')
      args.clusters.push(...(argv[++i] ?? '').split(',').map((v) => nonNegative(a, v)));
    else if (a === '--mix') args.mix = parseMix(argv[++i]);
    else if (a === '--variant') args.variants = oneOrBoth(a, variants, argv[++i]);
    else if (a === '--user-type') args.userTypes = oneOrBoth(a, userTypes, argv[++i]);
    else if (a === '--prices') {
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

/** A prices file: any subset of the numeric list prices' keys (USD), e.g. `{"ec2T3MediumPerHour": 0.05}`. */
const numericPriceKeys = Object.entries(awsPrices)
  .filter(([, v]) => typeof v === 'number')
  .map(([k]) => k);
const PricesFile = z
  .object(Object.fromEntries(numericPriceKeys.map((k) => [k, z.number().nonnegative().optional()])))
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

const deployedCache = new Map<StackVariant, DeployedStack>();

/** The billable facts of a variant's template (synthesized once per process). */
export function getDeployedStack(variant: StackVariant): DeployedStack {
  const cached = deployedCache.get(variant);
  if (cached) return cached;
  const deployed = readDeployedStack(synthesizeStack(variant));
  if (deployed.unpriced.length > 0)
    throw new CapiError(
      `the ${variant} template has resource types the cost model does not price: ${deployed.unpriced.join(', ')}`,
    );
  deployedCache.set(variant, deployed);
  return deployed;
}

export type CostResult = {
  readonly variant: StackVariant;
  readonly clusters: number;
  /** By user type: A differs (the operator pod), B is the same. */
  readonly byUserType: Readonly<Partial<Record<UserType, MarginalCost>>>;
  /** The design changes of issue 32, modelled on B (A as with the first user type). */
  readonly design: DesignOutcome;
};

/** Every variant × fleet size, for each user type. */
export function computeCostResults(args: CostArgs, prices: AwsPrices): CostResult[] {
  const forwarderRequests = readPodRequests(forwarderValues);
  return args.variants.flatMap((variant) => {
    const deployed = getDeployedStack(variant);
    return args.clusters.map((clusters) => {
      const inputs = (userType: UserType) => ({
        deployed,
        profile: measuredProfile,
        clusters,
        mix: args.mix,
        userType,
        forwarderRequests,
        prices,
      });
      return {
        variant,
        clusters,
        byUserType: Object.fromEntries(args.userTypes.map((u) => [u, computeMarginalCost(inputs(u))])),
        design: computeDesignOutcome(inputs(args.userTypes[0] ?? 'operator')),
      };
    });
  });
}

const usd = (n: number) => `$${n.toFixed(2)}`;
const verdict = (b: number, a: number) => (b <= a ? 'B ≤ A' : `B > A by ${usd(b - a)}`);
const mixText = (mix: ChangeMix) => changeTypes.map((t) => `${t}=${mix[t]}`).join(',');

/** The lines of one variant and fleet size, A's totals for each user type. */
export function formatCost(result: CostResult): string {
  const costs = Object.entries(result.byUserType) as [UserType, MarginalCost][];
  const first = costs[0]?.[1];
  if (!first) return '';
  const lines = [
    ...first.lines.filter((l) => l.side === 'B'),
    ...costs.flatMap(([userType, c]) =>
      c.lines.filter((l) => l.side === 'A').map((l) => ({ ...l, side: `A ${userType}` as const })),
    ),
  ];
  const rows = lines.map((l) => [l.side === 'B' ? 'B' : l.side, l.item, usd(l.usd), l.basis, l.note]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 2 ? c.padStart(widths[i] ?? 0) : i < 4 ? c.padEnd(widths[i] ?? 0) : c)).join('  ');
  const totals = costs.map(([userType, c]) => `A (${userType}) ${usd(c.totalA)}: ${verdict(c.totalB, c.totalA)}`);
  return [
    `${result.variant} variant, ${result.clusters.toLocaleString('en-US')} Clusters: B ${usd(first.totalB)} / month (${usd(first.totalB + first.optionalB)} with its optional alarm); ${totals.join('; ')} (both without alerting)`,
    ...rows.map(line),
  ].join('\n');
}

/** One table per variant: a row per line, a column per fleet size, totals and verdicts at the bottom. */
export function formatCostMarkdown(results: readonly CostResult[]): string {
  const out: string[] = [];
  for (const variant of [...new Set(results.map((r) => r.variant))]) {
    const rs = results.filter((r) => r.variant === variant);
    const head = `| side | item | ${rs.map((r) => `${r.clusters.toLocaleString('en-US')} Clusters`).join(' | ')} | basis | note (at ${rs.at(-1)?.clusters.toLocaleString('en-US')} Clusters) |`;
    const rule = `| --- | --- | ${rs.map(() => '---:').join(' | ')} | --- | --- |`;
    const userTypesHere = Object.keys(rs[0]?.byUserType ?? {}) as UserType[];
    const base = rs[0]?.byUserType[userTypesHere[0] ?? 'operator'];
    const rows: string[] = [];
    for (const [i, l] of (base?.lines ?? []).entries()) {
      const sides = l.side === 'B' ? (['B'] as const) : userTypesHere;
      for (const s of sides) {
        const pick = (r: CostResult) => r.byUserType[s === 'B' ? (userTypesHere[0] ?? 'operator') : s]?.lines[i];
        if (
          l.side === 'A' &&
          s !== 'B' &&
          userTypesHere.length > 1 &&
          l.item === 'Cluster API Operator pod' &&
          s === 'clusterctl'
        )
          continue;
        const last = rs.at(-1);
        rows.push(
          `| ${s === 'B' ? 'B' : `A ${s}`} | ${l.item} | ${rs.map((r) => usd(pick(r)?.usd ?? 0)).join(' | ')} | ${l.basis} | ${(last ? (pick(last)?.note ?? '') : '').replaceAll('|', '\\|')} |`,
        );
      }
    }
    const bOf = (r: CostResult) => r.byUserType[userTypesHere[0] ?? 'operator'];
    const totalB = `| B | **total** (without alerting) | ${rs.map((r) => `**${usd(bOf(r)?.totalB ?? 0)}**`).join(' | ')} | | |`;
    const withAlarm = `| B | total with the optional alarm | ${rs.map((r) => usd((bOf(r)?.totalB ?? 0) + (bOf(r)?.optionalB ?? 0))).join(' | ')} | | not compared: A's alerting is not priced either |`;
    const totalsA = userTypesHere.map(
      (u) =>
        `| A ${u} | **total** (without alerting) | ${rs.map((r) => `**${usd(r.byUserType[u]?.totalA ?? 0)}**`).join(' | ')} | | ${rs
          .map((r) => {
            const c = r.byUserType[u];
            return c ? `${r.clusters.toLocaleString('en-US')}: ${verdict(c.totalB, c.totalA)}` : '';
          })
          .join('; ')} |`,
    );
    out.push(`**${variant} variant**`, '', head, rule, ...rows, totalB, withAlarm, ...totalsA, '');
  }
  return out.join('\n');
}

/** The measured per-change-type profile, one row per type, with the file and phase each comes from. */
export function formatProfile(): string {
  const rows = changeTypes.map((t) => {
    const f = measuredProfile.changes[t];
    if (f === 'not measured') return `| ${t} | not measured | | | | | | |`;
    return `| ${t} | ${f.eventInvocations} | ${f.passesRun} / ${f.passesSkipped} | ${f.forwarderEvents} | ${f.webhookCalls} | ${f.replacedCpuSeconds} | ${f.source} |`;
  });
  const i = measuredProfile.idle;
  return [
    '| change type | B invocations | B passes run / skipped | B forwarder entries | B webhook calls | A CPU-s saved | measured in |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    `| idle, per Cluster-hour | ${i.eventInvocationsPerClusterHour} | 0 / 0 | ${i.forwarderEventsPerClusterHour} | ${i.webhookCallsPerClusterHour} | ${i.replacedCpuSecondsPerHour} per hour (fleet) | ${i.source} |`,
    '',
    `Per converged change of one Cluster. Invocation ms: change ${measuredProfile.invocationMs.change.toFixed(0)}, creation ${measuredProfile.invocationMs.create.toFixed(0)}, tick ${measuredProfile.invocationMs.tick.toFixed(0)} (bench machine). Webhook call: ${measuredProfile.webhookCallMs.value.toFixed(0)} ms (${measuredProfile.webhookCallMs.source}). Cold start: ${measuredProfile.coldStartMs.controller.toFixed(0)} ms controller, ${measuredProfile.coldStartMs.webhooks.toFixed(0)} ms webhooks (${measuredProfile.coldStartMs.source}).${measuredProfile.passMs ? ` Controller passes (these price the controller invocations and the woken passes; the invocation ms above do not): ${measuredProfile.passMs.source}; CPU of INIT and the first invocation ${measuredProfile.passMs.coldCpuMs} ms, peak RSS ${measuredProfile.passMs.maxRssMiB} MiB.` : ''}`,
  ].join('\n');
}

/** The design changes' modelled savings per fleet size, and B with all of them against A. */
export function formatDesign(results: readonly CostResult[]): string {
  const out: string[] = [];
  for (const variant of [...new Set(results.map((r) => r.variant))]) {
    const rs = results.filter((r) => r.variant === variant);
    const sizes = rs.map((r) => `${r.clusters.toLocaleString('en-US')} Clusters`).join(' | ');
    out.push(
      `**${variant} variant: design changes, modelled savings on B**`,
      '',
      `| design change | ${sizes} | how (assumption) |`,
      `| --- | ${rs.map(() => '---:').join(' | ')} | --- |`,
      ...designChanges.map(
        (c, i) => `| ${c.name} | ${rs.map((r) => usd(r.design.savings[i]?.savedB ?? 0)).join(' | ')} | ${c.how} |`,
      ),
      `| **B with all of them** | ${rs.map((r) => `**${usd(r.design.totalB)}**`).join(' | ')} | |`,
      ...(Object.keys(rs[0]?.byUserType ?? {}) as UserType[]).map(
        (u) =>
          `| A ${u} | ${rs.map((r) => `${usd(r.byUserType[u]?.totalA ?? 0)} (${verdict(r.design.totalB, r.byUserType[u]?.totalA ?? 0)})`).join(' | ')} | |`,
      ),
      '',
    );
  }
  return out.join('\n');
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
  const results = computeCostResults(args, prices);
  const header = [
    `change mix (changes per Cluster per month; a fleet-wide change counts once per Cluster it reaches): ${mixText(args.mix)}`,
    `measured profile: ${measuredProfile.basis}`,
    ...measuredProfile.splits.map((s) => `  ${s}`),
    `prices: ${args.pricesFile ?? `${priceSource.region} list prices recorded ${priceSource.recordedOn}`}; free tiers not applied`,
    `monitoring: ${monitoringBasis}`,
  ];
  if (args.output === 'json') {
    io.stdout.write(`${JSON.stringify({ mix: args.mix, profile: measuredProfile.basis, results }, null, 2)}\n`);
    return 0;
  }
  if (args.output === 'markdown') {
    io.stdout.write(
      [
        header.map((h) => (h.startsWith('  ') ? `  - ${h.trim()}` : `- ${h}`)).join('\n'),
        formatProfile(),
        formatCostMarkdown(results),
        formatDesign(results),
      ].join('\n\n'),
    );
    return 0;
  }
  io.stdout.write(
    [...header, '', formatProfile(), '', results.map(formatCost).join('\n\n'), '', formatDesign(results)].join('\n'),
  );
  return 0;
}
