// The marginal monthly cost of running capi-serverless (B) instead of upstream's topology and ClusterResourceSet
// controllers (A, with or without the Cluster API Operator), for a fleet and a change mix: what each side adds to a
// management cluster that stays either way. Pure: the deployed stack (read from the synthesized template), the
// measured profile, the fleet and the prices are arguments. Every line says whether its quantity is measured (scaled
// from the bench), read from the template, or modelled (an assumption, named in its note).
import type { AwsPrices } from '#shared/pricing/aws-prices.ts';
import { computeForwarderCpu } from '#shared/pricing/compute-forwarder-cpu.ts';
import { computeForwarderRss } from '#shared/pricing/compute-forwarder-rss.ts';
import {
  computeMonthlyActivity,
  type ChangeMix,
  type MonthlyActivity,
} from '#shared/pricing/compute-monthly-activity.ts';
import type { MeasuredProfile, PassFigures } from '#shared/pricing/measured-profile-types.ts';
import type { DeployedStack } from '#shared/pricing/read-deployed-stack.ts';
import { clusterControllers, objectRow, passWriteUnits } from '#shared/pricing/pass-write-units.ts';
import { emittedMetrics } from '#shared/runtime/emitted-metrics.ts';

/** Who A is: a user who installed Cluster API with the Cluster API Operator (its pod goes), or with clusterctl. */
export const userTypes = ['operator', 'clusterctl'] as const;
export type UserType = (typeof userTypes)[number];

/** A pod's resource requests (vCPU, MiB) and its memory limit (MiB; none: unlimited). */
export type PodRequests = { readonly cpu: number; readonly memoryMiB: number; readonly memoryLimitMiB?: number };

/** The modelled assumptions, in one place with their reasons. */
export const costAssumptions = {
  /** CloudWatch Logs bytes: START/END/REPORT per invocation; a JSON log line per pass (two when it runs) or tick. */
  platformLogBytesPerInvocation: 350,
  logBytesPerLine: 450,
  /**
   * DynamoDB: an item's stored size at most, the 1 KB a write unit covers (a settled item measures less, see
   * `objectRow`; owned objects' generations add to it). How many items per Cluster is derived from the template.
   */
  rowBytes: 1_024,
  /**
   * Minutes Lambda keeps an idle execution environment for the next invocation. AWS does not document it; idle
   * environments are commonly observed to live 5 to 15 minutes or more, so the short end errs towards cold starts.
   * Hourly ticks are then always cold; a fleet's change bursts, minutes apart at 10,000 Clusters, mostly warm.
   */
  warmWindowMinutes: 5,
  /**
   * Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB (Lambda Developer Guide, 'Configure
   * Lambda function memory'): a call billed at memory M takes at least its measured CPU time × 1,769 / M.
   */
  lambdaMbPerVcpu: 1_769,
  /** Watched objects per Cluster for the forwarder: the Cluster, its Secrets, a few ConfigMaps and templates. */
  watchedObjectsPerCluster: 8,
  /**
   * Node capacity: a t3.medium (2 vCPU, 4 GiB) priced half by CPU, half by memory. A pod is charged its share of that
   * capacity: max(request, measured use), since the scheduler reserves the request and use above it still fills
   * the node.
   */
  nodeVcpus: 2,
  nodeGib: 4,
  /** The Cluster API Operator's Deployment requests (its config/manager/manager.yaml, v0.29.0). */
  operatorRequest: { cpu: 0.1, memoryMiB: 100 },
  /** A: memory the replaced controllers' caches grow by per Cluster (ClusterClass templates, topology objects). */
  replacedRssKiBPerCluster: 25,
  /** SQS: a dead-letter queue gets a message per event that failed every retry: none failed in the bench. */
  failedEventsPerMonth: 0,
  /** Malformed events answered Rejected: none in the bench (only the forwarder and the scheduler put events). */
  rejectedEventsPerMonth: 0,
} as const;

export type CostInputs = {
  readonly deployed: DeployedStack;
  readonly profile: MeasuredProfile;
  readonly clusters: number;
  readonly mix: ChangeMix;
  readonly userType: UserType;
  /** The forwarder's requests (the chart's values.yaml, forwarder.resources). */
  readonly forwarderRequests: PodRequests;
  readonly prices: AwsPrices;
  /**
   * Fraction of traced invocations X-Ray records (default 1: Lambda's default rule records the first request each
   * second and 5 % of the rest, so at these rates nearly every one). Design changes model sampling with it.
   */
  readonly traceSampling?: { readonly ticks: number; readonly events: number };
};

export type MarginalLine = {
  readonly side: 'B' | 'A';
  readonly item: string;
  readonly usd: number;
  readonly basis: 'measured' | 'template' | 'modelled';
  readonly note: string;
  /**
   * Priced, but not in its side's total: alerting. Both sides are compared without alerting (`monitoringBasis`): B's
   * health alarm is a line of its own, which the stack's `healthAlarm=false` setting removes.
   */
  readonly optional?: true;
};

export type MarginalCost = {
  readonly lines: readonly MarginalLine[];
  /** B and A without the optional lines (alerting). */
  readonly totalB: number;
  readonly totalA: number;
  /** The optional lines of B (its health alarm), to add to `totalB` for B with alerting. */
  readonly optionalB: number;
  readonly activity: MonthlyActivity;
};

/**
 * How monitoring is counted, the same way on both sides: without alerting. Each side's metrics and logs that its
 * controllers produce anyway stay in its total (B: its EMF metrics, sent only when non-zero, and its log lines; A:
 * upstream's Prometheus endpoint, no AWS bill). Alerting is a choice a team makes for both: B's health alarm is
 * printed as an optional line; A's equivalent (alerts on upstream's `controller_runtime_reconcile_errors_total` and on
 * its pod being down) costs nothing more on a management cluster whose Prometheus and Alertmanager already run, and
 * is not priced.
 */
export const monitoringBasis =
  "both sides without alerting: B's health alarm (one CloudWatch alarm reading two metrics, the Unhealthy metric (failed passes and invocations, a stale forwarder heartbeat, unreachable webhooks) and the webhooks function's Lambda Throttles) is an optional line outside B's total (the stack setting healthAlarm=false removes it); A's equivalent (alerts on upstream's controller_runtime_reconcile_errors_total and on its pod being down) costs nothing more where a Prometheus and Alertmanager already run on the cluster, and is not priced either. B's custom metrics (sent only when non-zero) and log lines, which its functions write with or without the alarm, stay in its total; failed events go to the alarm topic (SNS, free at these rates)";

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The monthly marginal cost of B and of A for a fleet and a change mix.
 *
 * @example
 * computeMarginalCost({ deployed: readDeployedStack(synthesizeStack('public')), profile: measuredProfile,
 *   clusters: 1_000, mix: defaultChangeMix, userType: 'operator', forwarderRequests, prices: awsPrices });
 */
export function computeMarginalCost(inputs: CostInputs): MarginalCost {
  const { deployed, profile, clusters, prices } = inputs;
  const a = costAssumptions;
  const h = prices.hoursPerMonth;
  const activity = computeMonthlyActivity(profile, clusters, inputs.mix, h);
  const million = (count: number, price: number) => (count / 1_000_000) * price;
  const gbSecond = prices.lambdaArmPerGbSecond;

  const controllers = deployed.functions.filter((f) => f.role === 'controller');
  const webhooks = deployed.functions.filter((f) => f.role === 'webhooks');
  const nControllers = Math.max(1, controllers.length);
  const controllerGb = controllers.reduce((s, f) => s + f.memoryGb, 0) / nControllers;
  const webhooksGb = webhooks.reduce((s, f) => s + f.memoryGb, 0) / Math.max(1, webhooks.length);
  const ticks = controllers.reduce((s, f) => s + f.scheduledPerMonth, 0);
  // NOTE: each pass that asks to run again gets a one-time schedule that fires once (an earlier one kept instead
  // counts as one): one Scheduler invocation and one Lambda invocation each, counted by the bench per change type
  // (an upper bound where a type was not counted). Without them (private subnets) the template's ticks run those
  // passes. A schedule a later pass deleted before it fired (the pass succeeded first) is not counted, and its
  // DeleteSchedule call is not priced: Scheduler bills only invocations (CreateSchedule, UpdateSchedule, GetSchedule
  // and DeleteSchedule are free API calls), and the call's few ms are inside the measured invocation durations.
  const wakeUps = deployed.wakeUpSchedules ? activity.wakeUps : 0;
  // NOTE: passes measured in the Lambda runtime emulator (profile.passMs) are priced at the memory of the functions
  // measured, each invocation billed max(its duration on a whole core, its CPU time stretched to the CPU share of the
  // memory size); without them, the bench machine's invocation means (every function in one process) at the
  // controllers' mean memory.
  const passes = profile.passMs;
  const passFunctions = controllers.filter((f) => f.name !== undefined && passes?.functions.includes(f.name));
  const passGb =
    passFunctions.length > 0 ? passFunctions.reduce((s, f) => s + f.memoryGb, 0) / passFunctions.length : controllerGb;
  const vcpuAt = (gb: number) => Math.min(1, (gb * 1024) / a.lambdaMbPerVcpu);
  const billedPassMs = (p: PassFigures) => Math.max(p.billedMs, (p.cpuMs * a.lambdaMbPerVcpu) / (passGb * 1024));
  const eventGbMs = passes
    ? passGb *
      (activity.eventPasses.change * billedPassMs(passes.change) +
        activity.eventPasses.create * billedPassMs(passes.create) +
        activity.eventPasses.skip * billedPassMs(passes.skip))
    : activity.eventMs * controllerGb;
  const wakeUpMs = passes ? billedPassMs(passes.change) : (profile.invocationMs.wakeUp ?? profile.invocationMs.change);
  const wakeUpGb = passes ? passGb : controllerGb;
  const passNote = (what: string, count: number, p: PassFigures) =>
    `${fmt(count)} ${what} at ${billedPassMs(p).toFixed(0)} ms: max(${p.billedMs.toFixed(0)} ms measured, ${p.cpuMs.toFixed(0)} ms CPU at ${vcpuAt(passGb).toFixed(2)} vCPU)`;
  const controllerColdMs = Math.max(
    profile.coldStartMs.controller,
    ((passes?.coldCpuMs ?? 0) * a.lambdaMbPerVcpu) / (controllerGb * 1024),
  );
  const webhookCalls = webhooks.length > 0 ? activity.webhookCalls : 0;
  // NOTE: the measured call ran on a whole core of the bench machine; under 1,769 MB Lambda gives less.
  const webhookCpuMs = profile.webhookCallMs.cpuMs ?? 0;
  const webhookBilledMs = Math.max(
    profile.webhookCallMs.value,
    (webhookCpuMs * a.lambdaMbPerVcpu) / Math.max(1, webhooksGb * 1024),
  );
  // NOTE: cold starts (costAssumptions.warmWindowMinutes): an invocation is cold when nothing reached its function in
  // the window before it. A function's ticks are periodic: ticks closer than the window keep an environment warm,
  // farther apart each tick is cold unless another arrival came within the window. The other arrivals (the change
  // bursts that reach it, the one-time schedules that fire) are taken as independent (Poisson); the invocations of one
  // burst reuse the burst's environment.
  const minutesPerMonth = h * 60;
  const W = a.warmWindowMinutes;
  const burstsPerController = Math.min(activity.changeBursts, activity.eventInvocations) / nControllers;
  const webhookBursts = Math.min(activity.changeBursts, webhookCalls);
  const computeColdStarts = (ticksPerMonth: number, othersPerMonth: number) => {
    const tickMinutes = ticksPerMonth > 0 ? minutesPerMonth / ticksPerMonth : Infinity;
    if (tickMinutes <= W) return 0;
    const noOther = Math.exp(-(othersPerMonth / minutesPerMonth) * W);
    return ticksPerMonth * noOther + othersPerMonth * noOther * (1 - W / tickMinutes);
  };

  // Per function: invocations and cold starts (event invocations spread evenly over the controllers).
  const perFunction = deployed.functions.map((f) => {
    const invocations =
      f.role === 'webhooks' ? webhookCalls : f.scheduledPerMonth + activity.eventInvocations / nControllers;
    const others = f.role === 'webhooks' ? webhookBursts : burstsPerController + wakeUps / nControllers;
    return {
      f,
      invocations,
      arrivals: f.scheduledPerMonth + others,
      coldStarts: computeColdStarts(f.scheduledPerMonth, others),
    };
  });
  const coldOf = (role: string, count: (p: (typeof perFunction)[number]) => number) =>
    perFunction.filter((p) => p.f.role === role).reduce((s, p) => s + count(p), 0);
  const controllerColdStarts = coldOf('controller', (p) => p.coldStarts);
  const webhooksColdStarts = coldOf('webhooks', (p) => p.coldStarts);
  const controllerArrivals = coldOf('controller', (p) => p.arrivals);
  const traced = perFunction.filter((p) => p.f.tracing === 'Active');
  const sampling = inputs.traceSampling ?? { ticks: 1, events: 1 };
  const traces = traced.reduce(
    (s, p) => s + p.f.scheduledPerMonth * sampling.ticks + (p.invocations - p.f.scheduledPerMonth) * sampling.events,
    0,
  );
  const secretCalls = perFunction.reduce(
    (s, p) => s + p.f.secretsRead * Math.min(p.invocations, p.coldStarts + (h * 3600) / p.f.secretsTtlSeconds),
    0,
  );

  // NOTE: Lambda's START/END/REPORT lines only for the functions whose system log level keeps them (INFO, DEBUG); at
  // WARN a failed invocation's lines alone (none failed in the bench).
  const platformLogged = (p: (typeof perFunction)[number]) =>
    p.f.systemLogLevel === 'WARN' ? 0 : p.invocations + (p.f.role === 'controller' ? wakeUps / nControllers : 0);
  const platformLines = perFunction.reduce((s, p) => s + platformLogged(p), 0);
  const logBytes =
    platformLines * a.platformLogBytesPerInvocation +
    (2 * activity.passesRun + activity.passesSkipped + ticks) * a.logBytesPerLine;
  const logGb = logBytes / 1e9;
  // NOTE: with retention R days the stored volume settles at R days of ingestion (never-expiring groups: a year).
  const retentionDays =
    deployed.functions.reduce((s, f) => s + (f.logRetentionDays === 0 ? 365 : f.logRetentionDays), 0) /
    Math.max(1, deployed.functions.length);
  const storedLogGb = logGb * (retentionDays / (h / 24));

  const readUnits =
    activity.passesRun * profile.dynamoDb.passRunReadUnits +
    activity.passesSkipped * profile.dynamoDb.passSkippedReadUnits +
    ticks * profile.dynamoDb.tickReadUnits;
  const indexes = deployed.table.globalSecondaryIndexes.length;
  // NOTE: the writes of a pass are measured per request against DynamoDB Local (pass-write-units.ts), not taken from
  // the bench profile, whose figure predates one row per object.
  const w = passWriteUnits;
  // NOTE: the due index is sparse: a settled pass writes it not at all; each pass that asks to run again (
  // counted by the bench as Requeues and Errors) costs its row's entry and exit (or a move), whether a schedule, an event
  // or a tick runs it next; its schedule may have been deleted before it fired, so the wake-ups undercount them.
  const requeuedPasses = Math.min(activity.passesRun, activity.requeuedPasses);
  const indexWrites =
    indexes * ((activity.passesRun - requeuedPasses) * w.passSettledIndex + requeuedPasses * w.passRequeueIndex);
  const writeUnits = activity.passesRun * w.passRunTable + activity.passesSkipped * w.passSkipped + indexWrites;
  const clusterRowControllers = controllers.filter((f) =>
    (clusterControllers as readonly string[]).includes(f.name ?? ''),
  );
  const rowsPerCluster = clusterRowControllers.length * objectRow.itemsPerObject;
  const tableGb = (clusters * rowsPerCluster * (a.rowBytes + objectRow.storageOverheadBytes)) / 1e9;

  // NOTE: `Unhealthy` counts failed passes and failed invocations (none measured), a stale forwarder heartbeat and
  // webhooks the forwarder's probe cannot reach (none in a healthy month): one metric-hour per failed pass at worst, as for PassErrors.
  const occurrences = {
    'pass error': activity.passErrors,
    'rejected event': a.rejectedEventsPerMonth,
    'health finding': activity.passErrors,
  } as const;
  const metricHours = Object.values(emittedMetrics).reduce((s, m) => s + Math.min(h, occurrences[m.occursOn]), 0);

  const perVcpuHour = prices.ec2T3MediumPerHour / 2 / a.nodeVcpus;
  const perGibHour = prices.ec2T3MediumPerHour / 2 / a.nodeGib;
  const node = (vcpu: number, mib: number) => (vcpu * perVcpuHour + (mib / 1024) * perGibHour) * h;
  const watched = clusters * a.watchedObjectsPerCluster;
  const fw = profile.forwarder;
  const forwarderRss = computeForwarderRss(fw.rss, watched);
  const forwarderMiB = Math.max(inputs.forwarderRequests.memoryMiB, forwarderRss.rssMiB);
  // NOTE: the CPU per entry was measured in a burst that coalesced several watch events into some entries; events the
  // forwarder filters out without an entry (e.g. status-only changes of settled topologies) are not priced.
  const forwarderUse = computeForwarderCpu(fw, {
    watchedObjects: watched,
    entries: activity.forwarderEvents,
    hours: h,
  });
  const forwarderCpu = Math.max(inputs.forwarderRequests.cpu, forwarderUse.vcpu);
  const replacedMiB = profile.idle.replacedRssMiB + (clusters * a.replacedRssKiBPerCluster) / 1024;
  const replacedVcpu = activity.replacedCpuSeconds / (h * 3600);
  const secrets = deployed.secretsCreated + deployed.secretsReferenced;
  const wakeUpsHow =
    activity.wakeUpsBasis === 'measured'
      ? '(created by the functions for passes that asked to run again, counted by the bench per change type)'
      : `(upper bound where the bench did not count them: ${fmt(activity.passErrors)} pass errors measured + every pass beyond one per converged change)`;
  const rssPoints = forwarderRss.from.map((p) => `${p.rssMiB} MiB at ${fmt(p.watchedObjects)}`).join(', ');
  const idlePoints = forwarderUse.from.map((p) => `${p.cpuSecondsPerHour} at ${fmt(p.watchedObjects)}`).join(', ');
  const notMeasured =
    activity.notMeasured.length > 0 ? `; not measured, priced at nothing: ${activity.notMeasured.join(', ')}` : '';

  const lines: MarginalLine[] = [
    {
      side: 'B',
      item: 'Lambda: controller invocations for changes',
      usd: million(activity.eventInvocations, prices.lambdaPerMillionRequests) + (eventGbMs / 1000) * gbSecond,
      basis: 'measured',
      note: passes
        ? `${fmt(activity.eventInvocations)} invocations, one pass each (Lambda runtime emulator, whole core): ${passNote('passes run', activity.eventPasses.change, passes.change)}; ${passNote("new Clusters' first passes", activity.eventPasses.create, passes.create)}; ${passNote('skipped', activity.eventPasses.skip, passes.skip)}; ${passGb * 1024} MB (template: ${passes.functions.join(', ')})${notMeasured}`
        : `${fmt(activity.eventInvocations)} invocations, ${(activity.eventMs / Math.max(1, activity.eventInvocations)).toFixed(0)} ms mean (bench machine), ${controllerGb} GB (template)${notMeasured}`,
    },
    {
      side: 'B',
      item: 'Lambda: ticks',
      usd:
        million(ticks, prices.lambdaPerMillionRequests) +
        ticks * (profile.invocationMs.tick / 1000) * controllerGb * gbSecond,
      basis: 'template',
      note: `${fmt(ticks)} scheduled invocations (${deployed.schedules} schedules in the template), ${profile.invocationMs.tick.toFixed(0)} ms each measured`,
    },
    {
      side: 'B',
      item: 'Lambda: passes woken by one-time schedules',
      usd: million(wakeUps, prices.lambdaPerMillionRequests) + wakeUps * (wakeUpMs / 1000) * wakeUpGb * gbSecond,
      basis: deployed.wakeUpSchedules ? activity.wakeUpsBasis : 'template',
      note: deployed.wakeUpSchedules
        ? `${fmt(wakeUps)} invocations, one per one-time schedule ${wakeUpsHow}, ${wakeUpMs.toFixed(0)} ms each (${passes ? `a pass that runs, measured in the Lambda runtime emulator, at ${wakeUpGb * 1024} MB` : profile.invocationMs.wakeUp === undefined ? "a change invocation's mean, measured" : 'mean of the woken invocations, measured'})`
        : 'no one-time schedules in the template (the ticks run requeued passes)',
    },
    {
      side: 'B',
      item: 'Lambda: webhooks (Function URL)',
      usd:
        million(webhookCalls, prices.lambdaPerMillionRequests) +
        webhookCalls * (webhookBilledMs / 1000) * webhooksGb * gbSecond,
      basis: 'measured',
      note:
        profile.webhookCallMs.basis === 'measured'
          ? `${fmt(webhookCalls)} admission calls measured per change type; ${webhookBilledMs.toFixed(1)} ms each billed: max(${profile.webhookCallMs.value.toFixed(1)} ms measured in the Lambda runtime emulator, its ${webhookCpuMs.toFixed(1)} ms CPU at ${Math.min(1, (webhooksGb * 1024) / a.lambdaMbPerVcpu).toFixed(2)} vCPU), ${webhooksGb} GB (template)`
          : `${fmt(webhookCalls)} admission calls measured per change type; ${profile.webhookCallMs.value.toFixed(0)} ms each (${profile.webhookCallMs.source.split(';')[0]}: proxy), ${webhooksGb} GB (template)`,
    },
    {
      side: 'B',
      item: 'Lambda: INIT (cold starts)',
      usd:
        (gbSecond / 1000) *
        (controllerColdStarts * controllerColdMs * controllerGb +
          webhooksColdStarts * profile.coldStartMs.webhooks * webhooksGb),
      basis: 'modelled',
      note: `${fmt(controllerColdStarts)} of ${fmt(controllerArrivals)} controller and ${fmt(webhooksColdStarts)} of ${fmt(webhookBursts)} webhooks arrivals (ticks, change bursts, one-time schedules) cold: an environment assumed kept ${W} min idle, periodic ticks, other arrivals independent; ${controllerColdMs.toFixed(0)} ms (controller${controllerColdMs > profile.coldStartMs.controller ? `: its ${passes?.coldCpuMs} ms CPU at ${vcpuAt(controllerGb).toFixed(2)} vCPU` : ''}) and ${profile.coldStartMs.webhooks.toFixed(0)} ms (webhooks) per cold start measured (INIT + first invocation over a warm one)`,
    },
    {
      side: 'B',
      item: 'EventBridge Scheduler',
      usd: million(ticks, prices.schedulerPerMillionInvocations),
      basis: 'template',
      note: `${fmt(ticks)} invocations of the template's schedules (free tier not applied)`,
    },
    {
      side: 'B',
      item: 'EventBridge Scheduler: one-time schedules',
      usd: million(wakeUps, prices.schedulerPerMillionInvocations),
      basis: deployed.wakeUpSchedules ? activity.wakeUpsBasis : 'template',
      note: deployed.wakeUpSchedules
        ? `${fmt(wakeUps)} one-time schedules fired ${wakeUpsHow} (free tier not applied; API calls are not billed)`
        : 'no one-time schedules in the template',
    },
    {
      side: 'B',
      item: 'EventBridge PutEvents',
      usd: million(
        activity.forwarderEvents + (deployed.fanOutOnBus ? activity.fanOutEntries : 0),
        prices.eventBridgePerMillionEvents,
      ),
      basis: 'measured',
      note: `${fmt(activity.forwarderEvents)} forwarder entries + ${fmt(deployed.fanOutOnBus ? activity.fanOutEntries : 0)} fanned-out batches${deployed.fanOutOnBus ? '' : ' (no fan-out on the bus in this variant)'}`,
    },
    {
      side: 'B',
      item: 'DynamoDB reads and writes',
      usd:
        million(readUnits, prices.dynamoDbPerMillionReadUnits) +
        million(writeUnits, prices.dynamoDbPerMillionWriteUnits),
      basis: 'measured',
      note: `${fmt(readUnits)} RRU, ${fmt(writeUnits)} WRU of which ${fmt(indexWrites)} to ${indexes} index(es) (template: ${deployed.table.globalSecondaryIndexes.join(', ') || 'none'}; measured per pass run ${w.passRunTable} table WRU, index ${w.passSettledIndex} WRU when it settles and ${w.passRequeueIndex} per pass that asks to run again (${fmt(requeuedPasses)} of ${fmt(activity.passesRun)}) by ${w.source.split(' ')[0]})`,
    },
    {
      side: 'B',
      item: 'DynamoDB storage and point-in-time recovery',
      usd:
        tableGb *
        (prices.dynamoDbStoragePerGbMonth + (deployed.table.pointInTimeRecovery ? prices.dynamoDbPitrPerGbMonth : 0)),
      basis: 'modelled',
      note: `${rowsPerCluster} item${rowsPerCluster === 1 ? '' : 's'} per Cluster (one per controller that reconciles Clusters in the template: ${clusterRowControllers.map((f) => f.name).join(', ') || 'none'}; lease and checkpoint in one item, measured), ≤ ${a.rowBytes} B + ${objectRow.storageOverheadBytes} B overhead each (a settled item measured ${objectRow.settledItemBytes} B); PITR ${deployed.table.pointInTimeRecovery ? 'on' : 'off'} (template)`,
    },
    {
      side: 'B',
      item: 'CloudWatch Logs ingestion and storage',
      usd: logGb * prices.cloudWatchLogsPerGbIngested + storedLogGb * prices.cloudWatchLogsPerGbMonthStored,
      basis: 'modelled',
      note: `${(logGb * 1000).toFixed(1)} MB a month (${a.platformLogBytesPerInvocation} B per invocation of a function at system log level INFO: ${fmt(platformLines)} (template: ${[...new Set(deployed.functions.map((f) => f.systemLogLevel))].join(', ')}), ${a.logBytesPerLine} B per pass/tick line); kept ${retentionDays.toFixed(0)} days (template), stored uncompressed`,
    },
    {
      side: 'B',
      item: 'CloudWatch custom metrics',
      usd: (metricHours / h) * prices.cloudWatchCustomMetricPerMonth,
      basis: 'measured',
      note: `${Object.keys(emittedMetrics).length} declared metrics, no dimension, sent only when non-zero: ${metricHours.toFixed(1)} metric-hours (${activity.passErrors.toFixed(1)} pass errors measured; each in its own hour at worst)`,
    },
    {
      side: 'B',
      item: 'CloudWatch alarms (optional: alerting)',
      usd: deployed.alarms * prices.cloudWatchAlarmPerMonth,
      basis: 'template',
      note: `not in the total (both sides without alerting; healthAlarm=false removes it): ${deployed.alarms} standard-resolution alarm metric(s) in the template${deployed.alarmedMetrics.length > 0 ? ` (${deployed.alarmedMetrics.join(', ')}: sent only in hours something is wrong, so missing data is healthy)` : ''}`,
      optional: true,
    },
    {
      side: 'B',
      item: 'X-Ray traces',
      usd: million(traces, prices.xrayPerMillionTraces),
      basis: 'template',
      note:
        traced.length === 0
          ? 'tracing off on every function (template)'
          : `tracing Active on ${traced.length} of ${deployed.functions.length} functions (template): ${fmt(traces)} traces (${inputs.traceSampling ? `sampled: ticks ${sampling.ticks}, events ${sampling.events}` : 'every invocation at these rates'}; free tier not applied)`,
    },
    {
      side: 'B',
      item: 'Secrets Manager secrets and API calls',
      usd: secrets * prices.secretsManagerPerSecretMonth + (secretCalls / 10_000) * prices.secretsManagerPer10kApiCalls,
      basis: 'template',
      note: `${deployed.secretsCreated} created + ${deployed.secretsReferenced} referenced (template); ${fmt(secretCalls)} calls (one per cold start and per cache TTL of ${perFunction[0]?.f.secretsTtlSeconds ?? 300} s at most)`,
    },
    {
      side: 'B',
      item: 'SSM parameters',
      usd: deployed.advancedParameters * prices.ssmAdvancedParameterPerMonth,
      basis: 'template',
      note: `${deployed.advancedParameters} advanced, ${deployed.standardParameters} standard (free) in the template`,
    },
    {
      side: 'B',
      item: 'SQS dead-letter queues',
      usd: million(deployed.queues * a.failedEventsPerMonth, prices.sqsPerMillionRequests),
      basis: 'measured',
      note: `${deployed.queues} queues (template), billed per request: 0 failed invocations in the bench`,
    },
    {
      side: 'B',
      item: 'VPC interface endpoints',
      usd: deployed.interfaceEndpoints * prices.interfaceEndpointPerAzHour * h,
      basis: 'template',
      note: `${deployed.interfaceEndpoints} interface endpoint-zones in the template (gateway endpoints are free)`,
    },
    {
      side: 'B',
      item: "forwarder pod's node share",
      usd: node(forwarderCpu, forwarderMiB),
      basis: 'measured',
      note: `max(request in the chart's values.yaml, measured): ${forwarderCpu.toFixed(3)} vCPU, ${forwarderMiB.toFixed(0)} MiB (request ${inputs.forwarderRequests.cpu} vCPU, ${inputs.forwarderRequests.memoryMiB} MiB; CPU ${forwarderUse.vcpu.toFixed(4)} vCPU: ${forwarderUse.idleCpuSecondsPerHour.toFixed(1)} CPU-s an hour idle, ${forwarderUse.basis}${forwarderUse.basis === 'measured' ? '' : ` from ${idlePoints}`}, + ${fmt(activity.forwarderEvents)} entries at ${fw.cpuMsPerEntry} ms each, measured; RSS ${forwarderRss.rssMiB.toFixed(1)} MiB for ${fmt(watched)} watched objects, ${forwarderRss.basis}${forwarderRss.basis === 'measured' ? '' : ` from ${rssPoints}`})${inputs.forwarderRequests.memoryLimitMiB !== undefined && forwarderRss.rssMiB > inputs.forwarderRequests.memoryLimitMiB ? ` ABOVE its ${inputs.forwarderRequests.memoryLimitMiB} MiB limit (OOM-killed)` : ''}, of a t3.medium priced half by vCPU, half by GiB`,
    },
    {
      side: 'A',
      item: "replaced controllers' share of the core manager",
      usd: node(replacedVcpu, replacedMiB),
      basis: 'measured',
      note: `${profile.idle.replacedRssMiB.toFixed(0)} MiB measured + ${a.replacedRssKiBPerCluster} KiB per Cluster modelled; ${fmt(activity.replacedCpuSeconds)} CPU-s measured (idle and per change)`,
    },
    {
      side: 'A',
      item: 'Cluster API Operator pod',
      usd: inputs.userType === 'operator' ? node(a.operatorRequest.cpu, a.operatorRequest.memoryMiB) : 0,
      basis: 'modelled',
      note:
        inputs.userType === 'operator'
          ? `its requests: ${a.operatorRequest.cpu} vCPU, ${a.operatorRequest.memoryMiB} MiB`
          : 'installed with clusterctl: no operator pod to remove',
    },
  ];
  const total = (side: 'A' | 'B', optional = false) =>
    lines.filter((l) => l.side === side && (l.optional === true) === optional).reduce((s, l) => s + l.usd, 0);
  return { lines, totalB: total('B'), totalA: total('A'), optionalB: total('B', true), activity };
}
