// A rollout's gate timeout and bake time completing through one-time schedules, with no tick: functions/rollout.ts's
// reconciler on a real kube-apiserver and DynamoDB Local, its wake-ups on a real EventBridge Scheduler API (moto's
// server). moto stores schedules but never fires them, so the test fires one itself: it reads the schedule back
// (GetSchedule), sets the fake clock to its `at(...)` time, deletes it (ActionAfterCompletion DELETE) and invokes the
// handler with the schedule's own target input.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { RolloutApiVersion, type ClusterRolloutStatus } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import { applyObject, applyStatus, createObject, getObject } from '#shared/kube/index.ts';
import { reconcilers } from '#shared/controllers.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { computeWakeUpScheduleName, parseAtExpression } from '#shared/runtime/compute-wake-up.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { parseRuntimeEvent, tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createSchedulerWakeUpDeletes, createSchedulerWakeUps } from '#shared/runtime/scheduler-wake-ups.ts';
import {
  createScheduleGroup,
  fireSchedule,
  getSchedules,
  startMoto,
  type MotoServer,
} from '#test/support/harness/moto.ts';
import { changeEvent, useWiredFunction } from '#test/integration/runtime/wired-setup.ts';

const ctx = useWiredFunction('rollout');
const ns = 'default';
const capi = 'cluster.x-k8s.io/v1beta2';
const user = { fieldManager: 'test-user', force: true };
const min = 60_000;
const group = 'wake-ups';
const functionArn = 'arn:aws:lambda:us-east-1:123456789012:function:Test-RolloutFunction';
const rolloutRef = { apiVersion: RolloutApiVersion, kind: 'ClusterRollout', namespace: ns, name: 'v134' };
const clusterRef = (name: string) => ({ apiVersion: capi, kind: 'Cluster', namespace: ns, name });
const scheduleName = computeWakeUpScheduleName('rollout', rolloutRef);

let moto: MotoServer;
let scheduler: SchedulerClient;
let handler: ReturnType<typeof createControllerHandler>;
/** The same reconciler whose wake-ups go to a group that does not exist: every CreateSchedule fails. */
let failingHandler: ReturnType<typeof createControllerHandler>;

async function invokeLambda(h: typeof handler, event: unknown): Promise<Extract<HandlerResult, { status: 'Handled' }>> {
  const result = await h(event, { ...localLambdaContext('rollout', 60_000), invokedFunctionArn: functionArn });
  if (result.status !== 'Handled') throw new Error(`event rejected: ${result.reason}`);
  return result;
}

async function setHealthy(name: string): Promise<void> {
  const generation = (await getObject(ctx.mgmt.kube, clusterRef(name))).metadata.generation ?? 1;
  const condition = ([type, status, reason]: [string, string, string]) => ({
    type,
    status,
    reason,
    message: '',
    observedGeneration: generation,
    lastTransitionTime: '2026-11-27T12:00:00Z',
  });
  const conditions: [string, string, string][] = [
    ['TopologyReconciled', 'True', 'ReconcileSucceeded'],
    ['ControlPlaneAvailable', 'True', 'Available'],
    ['WorkersAvailable', 'True', 'Available'],
    ['ControlPlaneMachinesUpToDate', 'True', 'UpToDate'],
    ['WorkerMachinesUpToDate', 'True', 'UpToDate'],
    ['RollingOut', 'False', 'NotRollingOut'],
    ['Remediating', 'False', 'NotRemediating'],
  ];
  await applyStatus(
    ctx.mgmt.kube,
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: { namespace: ns, name },
      status: { observedGeneration: generation, conditions: conditions.map(condition) },
    },
    { fieldManager: 'cluster-api-simulator', force: true },
  );
}

const statusOf = async () => ((await getObject(ctx.mgmt.kube, rolloutRef))['status'] ?? {}) as ClusterRolloutStatus;
const checkpointOf = () =>
  getCheckpoint(ctx.store, { controller: 'rollout', kind: 'ClusterRollout', namespace: ns, name: 'v134' });

/** The rollout's one schedule in the group, and its due time. */
async function theSchedule() {
  const schedules = await getSchedules(scheduler, group);
  assert.equal(schedules.length, 1, 'one schedule per object');
  const [schedule] = schedules;
  assert.ok(schedule);
  return { schedule, atMs: parseAtExpression(schedule.expression) ?? Number.NaN };
}

/** EventBridge Scheduler's part, done by the test: at the schedule's time, delete it and invoke its target. */
async function fireTheSchedule() {
  const { schedule, atMs } = await theSchedule();
  ctx.clock.now = atMs;
  return fireSchedule(scheduler, group, schedule, new Date(atMs), (event) => invokeLambda(handler, event));
}

describe('a rollout whose gate timeout and bake time complete through one-time schedules, no tick', () => {
  const t0 = Date.parse('2026-11-27T13:00:00Z');

  before(async () => {
    moto = await startMoto({ region: ctx.ddb.region });
    scheduler = moto.createSchedulerClient();
    await createScheduleGroup(scheduler, group);
    const logger = new Logger({ serviceName: 'wake-up', logLevel: 'SILENT' });
    const deps = {
      kube: (await ctx.mgmt.newClient()).kube,
      store: ctx.store,
      logger,
      config: computeRuntimeConfig(process.env),
      now: () => ctx.clock.now,
      jitter: () => 0.5,
    };
    const reconciler = reconcilers.rollout;
    if (!reconciler) throw new Error('no rollout reconciler');
    const wakeUps = (groupName: string) =>
      createSchedulerWakeUps({
        client: scheduler,
        groupName,
        roleArn: 'arn:aws:iam::123456789012:role/Test-WakeUpSchedulerRole',
        logger,
        now: () => ctx.clock.now,
      });
    handler = createControllerHandler({
      reconciler,
      logger,
      getDeps: () => Promise.resolve(deps),
      wakeUps: wakeUps(group),
      // NOTE: every pass of this rollout either asks to run again or is woken at its due time: nothing to delete.
      wakeUpDeletes: createSchedulerWakeUpDeletes({ client: scheduler, groupName: group, logger }),
    });
    failingHandler = createControllerHandler({
      reconciler,
      logger,
      getDeps: () => Promise.resolve(deps),
      wakeUps: wakeUps('no-such-group'),
    });
    ctx.clock.now = t0;
    for (const name of ['c01', 'c02']) {
      await applyObject(
        ctx.mgmt.kube,
        {
          apiVersion: capi,
          kind: 'Cluster',
          metadata: { namespace: ns, name, labels: { env: 'prod' } },
          spec: { topology: { classRef: { name: 'dev' }, version: 'v1.33.0' } },
        },
        user,
      );
      await setHealthy(name);
    }
    await createObject(
      ctx.mgmt.kube,
      {
        ...rolloutRef,
        metadata: { namespace: ns, name: 'v134' },
        spec: {
          clusterSelector: { matchLabels: { env: 'prod' } },
          change: { version: 'v1.34.1' },
          waves: [{ name: 'canary', clusters: 1 }, { clusters: 'rest' }],
          bakeTime: '10m',
          healthGate: { timeout: '5m' },
        },
      },
      user,
    );
  });
  after(async () => {
    scheduler?.destroy();
    await moto?.stop();
  });

  test('the rollout event requeues until the gate timeout and creates a one-time schedule then', async () => {
    const result = await invokeLambda(handler, changeEvent({ ...rolloutRef }));
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    assert.deepEqual(result.wakeUps, { created: 1, updated: 0, kept: 0, failed: 0 });
    assert.equal(result.wakeUpsDeleted, undefined);
    const { schedule, atMs } = await theSchedule();
    assert.equal(schedule.name, scheduleName);
    assert.equal(schedule.expression, 'at(2026-11-27T13:05:00)');
    assert.equal(atMs, (await checkpointOf())?.nextAttemptAt);
    assert.equal(schedule.actionAfterCompletion, 'DELETE');
    assert.equal(schedule.targetArn, functionArn);
    const event = parseRuntimeEvent(JSON.parse(schedule.input.replaceAll('<aws.scheduler.', '<')));
    assert.equal(event['detail-type'], 'Pass Due');
    assert.deepEqual(event['detail-type'] === 'Pass Due' ? event.detail.key : undefined, rolloutRef);
  });

  test('the canary turning healthy requeues to the bake time; the earlier schedule is kept, not duplicated', async () => {
    ctx.clock.now = t0 + min;
    await setHealthy('c01');
    const result = await invokeLambda(
      handler,
      changeEvent({ apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c01' }),
    );
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    assert.equal((await statusOf()).phase, 'Baking');
    assert.equal((await checkpointOf())?.nextAttemptAt, t0 + 11 * min);
    assert.deepEqual(result.wakeUps, { created: 0, updated: 0, kept: 1, failed: 0 });
    assert.equal(result.wakeUpsDeleted, undefined);
    assert.equal((await theSchedule()).schedule.expression, 'at(2026-11-27T13:05:00)');
  });

  test('the earlier schedule fires while baking: the pass is skipped and the schedule moves to the bake time', async () => {
    const result = await fireTheSchedule();
    assert.equal(ctx.clock.now, t0 + 5 * min);
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.reason]),
      [['Skipped', 'BackingOff']],
    );
    assert.deepEqual(result.wakeUps, { created: 1, updated: 0, kept: 0, failed: 0 });
    assert.equal(result.wakeUpsDeleted, undefined);
    assert.equal((await theSchedule()).schedule.expression, 'at(2026-11-27T13:11:00)');
    assert.equal((await statusOf()).phase, 'Baking');
  });

  test('the bake-time schedule fires: the canary wave succeeds and the next wave changes the other Cluster', async () => {
    const result = await fireTheSchedule();
    assert.equal(ctx.clock.now, t0 + 11 * min);
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    const status = await statusOf();
    assert.deepEqual(
      (status.waves ?? []).map((w) => w.state),
      ['Succeeded', 'Progressing'],
    );
    const version = (await getObject(ctx.mgmt.kube, clusterRef('c02')))['spec'] as { topology: { version: string } };
    assert.equal(version.topology.version, 'v1.34.1');
    // NOTE: the next gate timeout has its own schedule (the fired one was deleted before the invocation).
    assert.deepEqual(result.wakeUps, { created: 1, updated: 0, kept: 0, failed: 0 });
    assert.equal(result.wakeUpsDeleted, undefined);
    assert.equal((await theSchedule()).schedule.expression, 'at(2026-11-27T13:16:00)');
  });

  test('a schedule that cannot be created loses nothing: the checkpoint stays due and the sweep runs the pass', async () => {
    ctx.clock.now = t0 + 12 * min;
    await setHealthy('c02');
    const result = await invokeLambda(
      failingHandler,
      changeEvent({ apiVersion: capi, kind: 'Cluster', namespace: ns, name: 'c02' }),
    );
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    assert.deepEqual(result.wakeUps, { created: 0, updated: 0, kept: 0, failed: 1 });
    const dueAt = (await checkpointOf())?.nextAttemptAt ?? 0;
    assert.equal(dueAt, t0 + 22 * min, 'the last wave bakes 10 minutes');
    ctx.clock.now = dueAt;
    const swept = await invokeLambda(failingHandler, tickEvent('rollout', randomUUID(), new Date(ctx.clock.now)));
    assert.deepEqual(
      swept.passes.map((p) => [p.key.name, p.status, p.result]),
      [['v134', 'Ran', 'Success']],
    );
    assert.equal((await statusOf()).phase, 'Completed');
  });
});
