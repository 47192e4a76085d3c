import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  awsPrices,
  changeTypes,
  computeMarginalCost,
  defaultChangeMix,
  measuredProfile,
  clusterControllers,
  objectRow,
  passWriteUnits,
  type ChangeMix,
  type DeployedStack,
  type MeasuredProfile,
  type UserType,
} from '#shared/pricing/index.ts';

const deployed: DeployedStack = Object.freeze({
  functions: [
    ...(
      [
        ['a', 'topology'],
        ['b', 'addons'],
        ['c', 'providers'],
      ] as const
    ).map(([id, name]) => ({
      logicalId: id,
      role: 'controller' as const,
      name,
      memoryGb: 0.5,
      architecture: 'arm64' as const,
      tracing: 'Active' as const,
      logRetentionDays: 30,
      systemLogLevel: 'INFO' as const,
      secretsRead: 1,
      secretsTtlSeconds: 300,
      scheduledPerMonth: 8_760,
    })),
    {
      logicalId: 'w',
      role: 'webhooks' as const,
      memoryGb: 1,
      architecture: 'arm64' as const,
      tracing: 'Active' as const,
      logRetentionDays: 30,
      systemLogLevel: 'INFO' as const,
      secretsRead: 2,
      secretsTtlSeconds: 300,
      scheduledPerMonth: 0,
    },
  ],
  alarms: 9,
  alarmedMetrics: [],
  secretsCreated: 1,
  secretsReferenced: 1,
  advancedParameters: 0,
  standardParameters: 0,
  schedules: 3,
  queues: 3,
  interfaceEndpoints: 0,
  table: { onDemand: true, pointInTimeRecovery: true, globalSecondaryIndexes: ['due'] },
  fanOutOnBus: true,
  wakeUpSchedules: true,
  unpriced: [],
});
const none = Object.fromEntries(changeTypes.map((t) => [t, 0])) as ChangeMix;

const cost = (
  clusters: number,
  o: { mix?: ChangeMix; userType?: UserType; profile?: MeasuredProfile; d?: DeployedStack } = {},
) =>
  computeMarginalCost({
    deployed: o.d ?? deployed,
    profile: o.profile ?? measuredProfile,
    clusters,
    mix: o.mix ?? defaultChangeMix,
    userType: o.userType ?? 'operator',
    forwarderRequests: { cpu: 0.02, memoryMiB: 64 },
    prices: awsPrices,
  });
const line = (c: ReturnType<typeof cost>, item: string) => c.lines.find((l) => l.item.startsWith(item))?.usd ?? NaN;

describe('computeMarginalCost', () => {
  test('every line says where its quantity comes from, and the totals are their sums', () => {
    const c = cost(1_000);
    for (const l of c.lines) assert.ok(['measured', 'template', 'modelled'].includes(l.basis), l.item);
    const sum = (side: 'A' | 'B', optional = false) =>
      c.lines.filter((l) => l.side === side && (l.optional ?? false) === optional).reduce((s, l) => s + l.usd, 0);
    assert.equal(c.totalB, sum('B'));
    assert.equal(c.totalA, sum('A'));
    assert.equal(c.optionalB, sum('B', true));
  });

  test("both sides are compared without alerting: B's alarm is an optional line, priced, in neither total", () => {
    const c = cost(1_000);
    const alarm = c.lines.find((l) => l.item.startsWith('CloudWatch alarms'));
    assert.equal(alarm?.optional, true);
    assert.ok(Math.abs((alarm?.usd ?? 0) - 9 * awsPrices.cloudWatchAlarmPerMonth) < 1e-9);
    assert.ok(Math.abs(c.optionalB - (alarm?.usd ?? 0)) < 1e-9);
    const noAlarm = cost(1_000, { d: { ...deployed, alarms: 0 } });
    assert.ok(Math.abs(noAlarm.totalB - c.totalB) < 1e-9, 'the alarm does not move B');
    assert.deepEqual(
      c.lines.filter((l) => l.optional).map((l) => l.side),
      ['B'],
    );
  });

  test("controller passes are billed max(measured duration, CPU stretched) at the measured functions' memory", () => {
    const passMs = {
      change: { billedMs: 100, cpuMs: 50 },
      create: { billedMs: 200, cpuMs: 10 },
      skip: { billedMs: 20, cpuMs: 10 },
      coldCpuMs: 0,
      maxRssMiB: 100,
      functions: ['topology'],
      source: '',
    };
    const profile: MeasuredProfile = { ...measuredProfile, passMs };
    const at = (memoryMb: number) => {
      const d: DeployedStack = {
        ...deployed,
        functions: deployed.functions.map((f, i) =>
          i === 0 ? { ...f, name: 'topology', memoryGb: memoryMb / 1024 } : { ...f, name: `other-${i}` },
        ),
      };
      const c = cost(1_000, { d, profile, mix: { ...none, variable: 1 } });
      const p = c.activity.eventPasses;
      const requests = (c.activity.eventInvocations / 1e6) * awsPrices.lambdaPerMillionRequests;
      const gbMs = ((line(c, 'Lambda: controller') - requests) / awsPrices.lambdaArmPerGbSecond) * 1000;
      return { gbMs, p };
    };
    const big = at(1_769);
    assert.ok(big.p.change > 0);
    const expected = (mb: number, billed: number, cpu: number) => Math.max(billed, (cpu * 1769) / mb) * (mb / 1024);
    const want = (mb: number) =>
      big.p.change * expected(mb, 100, 50) + big.p.create * expected(mb, 200, 10) + big.p.skip * expected(mb, 20, 10);
    assert.ok(Math.abs(big.gbMs - want(1_769)) < 1e-6, 'at one vCPU: the measured durations');
    assert.ok(Math.abs(at(256).gbMs - want(256)) < 1e-6, 'at 256 MB: the CPU time stretched where it exceeds them');
    assert.ok(at(256).gbMs < big.gbMs);
  });

  test('usage-priced lines grow with the fleet; the template-fixed ones do not', () => {
    const [small, large] = [cost(100), cost(10_000)];
    for (const item of ['Lambda: controller', 'Lambda: webhooks', 'DynamoDB reads', 'X-Ray'])
      assert.ok(line(large, item) > line(small, item), item);
    for (const item of ['CloudWatch alarms', 'EventBridge Scheduler', 'Cluster API Operator'])
      assert.equal(line(large, item), line(small, item), item);
  });

  test('alarms, secrets and schedules are priced from the deployed stack', () => {
    const fewer: DeployedStack = { ...deployed, alarms: 1, secretsCreated: 0, secretsReferenced: 0 };
    assert.ok(Math.abs(line(cost(100), 'CloudWatch alarms') - 0.9) < 1e-9);
    assert.ok(Math.abs(line(cost(100, { d: fewer }), 'CloudWatch alarms') - 0.1) < 1e-9);
    assert.ok(line(cost(100, { d: fewer }), 'Secrets Manager') < line(cost(100), 'Secrets Manager'));
  });

  test('one-time schedules: one Scheduler and one Lambda invocation per schedule the bench counted', () => {
    const upgrades = { ...none, upgrade: 1 };
    const figures = measuredProfile.changes.upgrade;
    assert.ok(figures !== 'not measured');
    const counted: MeasuredProfile = {
      ...measuredProfile,
      changes: { ...measuredProfile.changes, upgrade: { ...figures, wakeUps: 3 } },
      idle: { ...measuredProfile.idle, wakeUpsPerClusterHour: 0 },
    };
    const c = cost(1_000, { mix: upgrades, profile: counted });
    assert.equal(c.activity.wakeUps, 3_000);
    assert.equal(c.activity.wakeUpsBasis, 'measured');
    assert.ok(Math.abs(line(c, 'EventBridge Scheduler: one-time') - 3_000 / 1e6) < 1e-12);
    assert.equal(c.lines.find((l) => l.item.startsWith('Lambda: passes woken'))?.basis, 'measured');
    assert.equal(line(cost(1_000, { mix: none, profile: counted }), 'EventBridge Scheduler: one-time'), 0);
  });

  test('a change type whose wake-ups the bench did not count is priced at an upper bound, marked modelled', () => {
    const upgrades = { ...none, upgrade: 1 };
    const figures = measuredProfile.changes.upgrade;
    assert.ok(figures !== 'not measured');
    const { wakeUps: _dropped, ...uncounted } = figures;
    const profile: MeasuredProfile = {
      ...measuredProfile,
      changes: { ...measuredProfile.changes, upgrade: uncounted },
    };
    const perUpgrade = figures.passErrors + Math.max(0, figures.passesRun - figures.passErrors - 1);
    const c = cost(1_000, { mix: upgrades, profile });
    assert.equal(c.activity.wakeUps, 1_000 * perUpgrade + 1_000 * 730 * (profile.idle.wakeUpsPerClusterHour ?? 0));
    assert.equal(c.activity.wakeUpsBasis, 'modelled');
    assert.ok(line(c, 'Lambda: passes woken') > 0);
  });

  test('without one-time schedules in the template (private subnets) the ticks run requeued passes', () => {
    const ticksOnly: DeployedStack = { ...deployed, wakeUpSchedules: false };
    const c = cost(1_000, { d: ticksOnly });
    assert.equal(line(c, 'EventBridge Scheduler: one-time'), 0);
    assert.equal(line(c, 'Lambda: passes woken'), 0);
    // NOTE: with hourly ticks, so that the ticks alone do not keep the controllers warm.
    const hourly = (d: DeployedStack): DeployedStack => ({
      ...d,
      functions: d.functions.map((f) => (f.role === 'controller' ? { ...f, scheduledPerMonth: 730 } : f)),
    });
    // NOTE: a profile whose upgrades leave one schedule to fire (the measured one deletes them before they fire).
    const upgrade = measuredProfile.changes.upgrade;
    assert.ok(upgrade !== 'not measured');
    const profile: MeasuredProfile = {
      ...measuredProfile,
      changes: { ...measuredProfile.changes, upgrade: { ...upgrade, wakeUps: 1 } },
    };
    assert.ok(
      line(cost(1_000, { d: hourly(ticksOnly), profile }), 'Lambda: INIT') <
        line(cost(1_000, { d: hourly(deployed), profile }), 'Lambda: INIT'),
    );
  });

  test('cold starts: hourly ticks are cold, 5-minute ticks keep the controllers warm, a busy fleet mostly is', () => {
    const withTicks = (perMonth: number): DeployedStack => ({
      ...deployed,
      functions: deployed.functions.map((f) => (f.role === 'controller' ? { ...f, scheduledPerMonth: perMonth } : f)),
    });
    const initUsd = (clusters: number, d: DeployedStack, mix: ChangeMix = none) =>
      line(cost(clusters, { d, mix }), 'Lambda: INIT');
    const perColdStart = (ms: number, gb: number) => (ms / 1000) * gb * awsPrices.lambdaArmPerGbSecond;
    const controllerCold = perColdStart(measuredProfile.coldStartMs.controller, 0.5);
    // An idle month: every hourly tick of the 3 controllers is cold; 5-minute ticks are never cold.
    assert.ok(Math.abs(initUsd(100, withTicks(730)) - 3 * 730 * controllerCold) < 1e-9);
    assert.equal(initUsd(100, withTicks(8_760)), 0);
    // Every arrival cold (a tick, a change burst at the controllers and at the webhooks, a one-time schedule) is the
    // most it can be: at 100 Clusters the bursts are hours apart and nearly all cold; at 10,000 minutes apart and
    // most find a warm environment.
    const upgrades = { ...none, upgrade: 1 };
    const figures = measuredProfile.changes.upgrade;
    assert.ok(figures !== 'not measured');
    const worst = (clusters: number) =>
      (3 * 730 + clusters * (1 + (figures.wakeUps ?? 0))) * controllerCold +
      clusters * perColdStart(measuredProfile.coldStartMs.webhooks, 1);
    assert.ok(initUsd(100, withTicks(730), upgrades) <= worst(100) + 1e-9);
    assert.ok(initUsd(100, withTicks(730), upgrades) > 0.9 * worst(100));
    assert.ok(initUsd(10_000, withTicks(730), upgrades) < worst(10_000) / 2);
  });

  test('tracing off in the template prices no X-Ray traces', () => {
    const off: DeployedStack = {
      ...deployed,
      functions: deployed.functions.map((f) => ({ ...f, tracing: 'Disabled' as const })),
    };
    assert.equal(line(cost(1_000, { d: off }), 'X-Ray'), 0);
  });

  test("functions at system log level WARN write no START/END/REPORT lines: only the passes' lines are ingested", () => {
    const quiet = {
      ...deployed,
      functions: deployed.functions.map((f) => ({ ...f, systemLogLevel: 'WARN' as const })),
    };
    const [loud, warn] = [cost(10_000), cost(10_000, { d: quiet })];
    const logs = (c: ReturnType<typeof cost>) => line(c, 'CloudWatch Logs');
    const a = loud.activity;
    const ticks = deployed.functions.reduce((s, f) => s + f.scheduledPerMonth, 0);
    const invocations = a.eventInvocations + ticks + a.wakeUps + a.webhookCalls;
    const perGb =
      awsPrices.cloudWatchLogsPerGbIngested +
      (awsPrices.cloudWatchLogsPerGbMonthStored * 30) / (awsPrices.hoursPerMonth / 24);
    assert.ok(Math.abs(logs(loud) - logs(warn) - ((invocations * 350) / 1e9) * perGb) < 1e-6);
    const passLines = (2 * a.passesRun + a.passesSkipped + ticks) * 450;
    assert.ok(Math.abs(logs(warn) - (passLines / 1e9) * perGb) < 1e-6);
  });

  test("DynamoDB writes are the measured pass's: 2 table units per pass run, 2 index units per pass that asks to run again, none per skipped pass", () => {
    const c = cost(1_000);
    const dynamoDb = c.lines.find((l) => l.item === 'DynamoDB reads and writes');
    assert.equal(dynamoDb?.basis, 'measured');
    assert.match(
      dynamoDb?.note ?? '',
      /measured per pass run 2 table WRU, index 0 WRU when it settles and 2 per pass that asks to run again \([\d,]+ of [\d,]+\) by test\/integration\/checkpoint\/write-units\.test\.ts/,
    );
    assert.doesNotMatch(dynamoDb?.note ?? '', /modelled/);
    const a = c.activity;
    const requeued = Math.min(a.passesRun, a.requeuedPasses);
    assert.ok(requeued > 0 && requeued < a.passesRun, 'the default mix has settled and requeued passes');
    // NOTE: a requeued pass's schedule may be deleted before it fires: the due index counts requeues, not wake-ups.
    assert.ok(a.requeuedPasses > a.wakeUps, 'the measured upgrade requeues more passes than schedules fire');
    const writes = a.passesRun * 2 + requeued * 2;
    const reads = (dynamoDb?.usd ?? NaN) - (writes / 1e6) * awsPrices.dynamoDbPerMillionWriteUnits;
    assert.ok(reads > 0 && reads < (dynamoDb?.usd ?? 0), 'the rest of the line is reads');
    assert.match(dynamoDb?.note ?? '', new RegExp(`${Math.round(writes).toLocaleString('en-US')} WRU`));
    assert.deepEqual(passWriteUnits, {
      source: passWriteUnits.source,
      passRunTable: 2,
      passSettledIndex: 0,
      passRequeueIndex: 2,
      passSkipped: 0,
    });
  });

  test('DynamoDB storage counts one item per Cluster for each controller in the template that reconciles Clusters', () => {
    const storage = (d: DeployedStack) =>
      cost(10_000, { d }).lines.find((l) => l.item === 'DynamoDB storage and point-in-time recovery');
    const deployedLine = storage(deployed);
    assert.match(
      deployedLine?.note ?? '',
      /^1 item per Cluster \(one per controller that reconciles Clusters in the template: topology;/,
    );
    assert.ok((deployedLine?.usd ?? 0) > 0);
    const withoutTopology: DeployedStack = {
      ...deployed,
      functions: deployed.functions.filter((f) => f.name !== 'topology'),
    };
    assert.match(storage(withoutTopology)?.note ?? '', /^0 items per Cluster/);
    assert.equal(storage(withoutTopology)?.usd, 0);
    assert.equal(objectRow.itemsPerObject, 1);
  });

  test('the controllers priced as writing a row per Cluster are those whose reconcilers reconcile Clusters', async () => {
    const { reconcilers } = await import('#shared/controllers.ts');
    const taking = Object.entries(reconcilers)
      .filter(([, r]) => r?.kinds.some((k) => k.kind === 'Cluster'))
      .map(([name]) => name)
      .sort();
    assert.deepEqual([...clusterControllers].sort(), taking);
  });

  test('index writes follow the table indexes in the template', () => {
    const noIndex: DeployedStack = { ...deployed, table: { ...deployed.table, globalSecondaryIndexes: [] } };
    assert.ok(line(cost(1_000, { d: noIndex }), 'DynamoDB reads') < line(cost(1_000), 'DynamoDB reads'));
  });

  test('an idle month prices no change invocations and no webhook calls beyond the idle ones measured', () => {
    const idle = cost(1_000, { mix: none });
    assert.equal(idle.activity.passesRun, 0);
    assert.ok(line(idle, 'Lambda: controller') < line(cost(1_000), 'Lambda: controller'));
  });

  test('a user who installed with clusterctl has no operator pod on side A', () => {
    assert.equal(line(cost(100, { userType: 'clusterctl' }), 'Cluster API Operator pod'), 0);
    assert.ok(cost(100, { userType: 'operator' }).totalA > cost(100, { userType: 'clusterctl' }).totalA);
    assert.equal(cost(100, { userType: 'operator' }).totalB, cost(100, { userType: 'clusterctl' }).totalB);
  });

  test('a change type not measured is priced at nothing and named', () => {
    const profile: MeasuredProfile = {
      ...measuredProfile,
      changes: { ...measuredProfile.changes, upgrade: 'not measured' },
    };
    const mix: ChangeMix = { ...none, upgrade: 5 };
    const c = cost(1_000, { profile, mix });
    assert.deepEqual(c.activity.notMeasured, ['upgrade']);
    assert.equal(c.activity.eventInvocations, 0);
    assert.match(c.lines.find((l) => l.item.startsWith('Lambda: controller'))?.note ?? '', /not measured.*upgrade/);
  });

  test('upgrades cost B per Cluster: 10 a month at 10,000 Clusters cost more than the default mix', () => {
    assert.ok(cost(10_000, { mix: { ...none, upgrade: 10 } }).totalB > cost(10_000).totalB);
  });

  test('the forwarder line follows the measured RSS points of the fleet size priced', () => {
    const forwarderLine = (c: ReturnType<typeof cost>) => c.lines.find((l) => l.item.startsWith('forwarder pod'));
    const heavier: MeasuredProfile = {
      ...measuredProfile,
      forwarder: {
        ...measuredProfile.forwarder,
        rss: measuredProfile.forwarder.rss.map((p) => ({ ...p, rssMiB: p.rssMiB + 100 })),
      },
    };
    // 10,000 Clusters: 80,000 watched objects, above the chart's request in both.
    assert.ok(line(cost(10_000, { profile: heavier }), 'forwarder pod') > line(cost(10_000), 'forwarder pod'));
    assert.ok(line(cost(100, { profile: heavier }), 'forwarder pod') > line(cost(100), 'forwarder pod'));
    // The RSS in the note is the measured points' line at the fleet's watched objects.
    const points = measuredProfile.forwarder.rss;
    const [a, b] = [points[0]!, points[1]!];
    const at80k =
      a.rssMiB + ((b.rssMiB - a.rssMiB) * (80_000 - a.watchedObjects)) / (b.watchedObjects - a.watchedObjects);
    assert.match(forwarderLine(cost(10_000))?.note ?? '', new RegExp(`RSS ${at80k.toFixed(1)} MiB for 80,000 watched`));
  });

  test("the profile's forwarder points are the forwarder bench's committed result", () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../bench/results/forwarder-floor.json', import.meta.url), 'utf8'),
    ) as {
      after: {
        runs: {
          watchedObjects: number;
          rssMiB: number;
          idleRssMiB: number;
          cpu: { idleCpuSecondsPerHour: number; burst: { cpuMsPerEntry: number } };
        }[];
      };
    };
    const runs = committed.after.runs;
    assert.deepEqual(
      measuredProfile.forwarder.rss,
      runs.map((r) => ({ watchedObjects: r.watchedObjects, rssMiB: Math.round(r.idleRssMiB * 10) / 10 })),
    );
    assert.deepEqual(
      measuredProfile.forwarder.idleCpu,
      runs.map((r) => ({ watchedObjects: r.watchedObjects, cpuSecondsPerHour: r.cpu.idleCpuSecondsPerHour })),
    );
    assert.equal(measuredProfile.forwarder.cpuMsPerEntry, Math.max(...runs.map((r) => r.cpu.burst.cpuMsPerEntry)));
  });

  test('the forwarder is priced at its measured CPU where that exceeds its CPU request', () => {
    const busier: MeasuredProfile = {
      ...measuredProfile,
      forwarder: {
        ...measuredProfile.forwarder,
        // 0.1 vCPU idle: above the 0.02 vCPU request of these tests.
        idleCpu: measuredProfile.forwarder.idleCpu.map((p) => ({ ...p, cpuSecondsPerHour: 360 })),
      },
    };
    const slower: MeasuredProfile = {
      ...busier,
      forwarder: { ...busier.forwarder, cpuMsPerEntry: busier.forwarder.cpuMsPerEntry + 1_000 },
    };
    assert.ok(line(cost(1_000, { profile: busier }), 'forwarder pod') > line(cost(1_000), 'forwarder pod'));
    assert.ok(
      line(cost(1_000, { profile: slower }), 'forwarder pod') > line(cost(1_000, { profile: busier }), 'forwarder pod'),
    );
    assert.match(
      cost(1_000, { profile: busier }).lines.find((l) => l.item.startsWith('forwarder pod'))?.note ?? '',
      /: 0\.1\d* vCPU, .*CPU-s an hour idle/,
    );
  });

  test("the profile's webhook call is the webhooks bench's committed result, measured, not a proxy", () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../bench/results/webhooks-rie.json', import.meta.url), 'utf8'),
    ) as { all: { billedMs: number; cpuMs: { mean: number } } };
    assert.equal(measuredProfile.webhookCallMs.basis, 'measured');
    assert.equal(measuredProfile.webhookCallMs.value, committed.all.billedMs);
    assert.equal(measuredProfile.webhookCallMs.cpuMs, committed.all.cpuMs.mean);
  });

  test('a webhook call is billed at least its CPU time stretched to the CPU share of the memory size', () => {
    const profile = {
      ...measuredProfile,
      webhookCallMs: { value: 5, basis: 'measured' as const, cpuMs: 4, source: '' },
    };
    const at = (memoryGb: number) => {
      const d = {
        ...deployed,
        functions: deployed.functions.map((f) => (f.role === 'webhooks' ? { ...f, memoryGb } : f)),
      };
      const c = cost(10_000, { d, profile });
      const calls = c.activity.webhookCalls;
      const requests = (calls / 1e6) * awsPrices.lambdaPerMillionRequests;
      return ((line(c, 'Lambda: webhooks') - requests) / (calls * memoryGb * awsPrices.lambdaArmPerGbSecond)) * 1000;
    };
    assert.ok(Math.abs(at(2) - 5) < 1e-9, 'over one vCPU: the measured duration');
    assert.ok(Math.abs(at(1) - (4 * 1769) / 1024) < 1e-9, 'at 1 GB: 4 ms of CPU at 0.58 vCPU');
    assert.ok(Math.abs(at(0.25) - (4 * 1769) / 256) < 1e-9, 'at 256 MB: 4 ms of CPU at 0.14 vCPU');
  });
});
