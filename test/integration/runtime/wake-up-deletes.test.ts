// The one-time schedule of a pass that asked to run again, deleted when a later pass no longer asks: the runtime
// tests' ConfigMap reconciler (a `wait` key makes it requeue for 5 minutes, like an upgrade's safety net while events
// drive it; a `fail` key makes it fail) through the controller handler, on a real kube-apiserver, DynamoDB Local and
// EventBridge Scheduler API (moto's server). moto never fires a schedule: the test fires one itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { deleteObject, getObject } from '#shared/kube/index.ts';
import { computeWakeUpScheduleName, parseAtExpression } from '#shared/runtime/compute-wake-up.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createSchedulerWakeUpDeletes, createSchedulerWakeUps } from '#shared/runtime/scheduler-wake-ups.ts';
import type { PassKey, PassOutcome, Reconciler } from '#shared/runtime/types.ts';
import {
  createScheduleGroup,
  fireSchedule,
  getSchedules,
  startMoto,
  type MotoServer,
} from '#test/support/harness/moto.ts';
import { createConfigMapReconciler } from './configmap-reconciler.ts';
import { putSource, useRuntimeServers } from './setup.ts';

const ctx = useRuntimeServers();
const group = 'wake-up-deletes';
const functionArn = 'arn:aws:lambda:us-east-1:123456789012:function:Test-AddonsFunction';
const min = 60_000;
const keyOf = (name: string): PassKey => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

/** The ConfigMap reconciler, except that a source with a `wait` key requeues for 5 minutes. */
function createWaitingReconciler(): Reconciler {
  const derive = createConfigMapReconciler();
  return {
    ...derive,
    async reconcile(deps, key, pass): Promise<PassOutcome> {
      const data = ((await getObject(deps.kube, key))['data'] ?? {}) as Record<string, string>;
      if (data['wait'] !== undefined) return { result: 'Requeue', requeueAfterMs: 5 * min, changed: [] };
      return derive.reconcile(deps, key, pass);
    },
  };
}

let moto: MotoServer;
let scheduler: SchedulerClient;
let handler: ReturnType<typeof createControllerHandler>;
/** The Scheduler calls the handler sent, by name (`CreateScheduleCommand`, `DeleteScheduleCommand`, ...). */
const schedulerCalls: string[] = [];
let eventCount = 0;

async function invoke(event: unknown): Promise<Extract<HandlerResult, { status: 'Handled' }>> {
  const result = await handler(event, { ...localLambdaContext('addons', 60_000), invokedFunctionArn: functionArn });
  if (result.status !== 'Handled') throw new Error(`event rejected: ${result.reason}`);
  return result;
}

function changeEvent(name: string, type: 'MODIFIED' | 'DELETED' = 'MODIFIED') {
  eventCount++;
  return objectChangedEvent({ ...keyOf(name), type }, `event-${eventCount}`, new Date(ctx.clock.now));
}

/** The group's schedules: the object's name → its due time, ms after `from`. */
async function scheduled(from: number): Promise<Record<string, number>> {
  const names = new Map(['a', 'b', 'c', 'd', 'e'].map((n) => [computeWakeUpScheduleName('addons', keyOf(n)), n]));
  return Object.fromEntries(
    (await getSchedules(scheduler, group)).map((s) => [
      names.get(s.name) ?? s.name,
      (parseAtExpression(s.expression) ?? 0) - from,
    ]),
  );
}

describe('a one-time schedule is deleted when a later pass no longer asks to run again', () => {
  before(async () => {
    moto = await startMoto({ region: ctx.ddb.region });
    scheduler = moto.createSchedulerClient();
    await createScheduleGroup(scheduler, group);
    const logger = new Logger({ serviceName: 'wake-up-deletes', logLevel: 'SILENT' });
    // NOTE: the handler's own client counts its calls; the test reads and fires with another.
    const counted = moto.createSchedulerClient();
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        schedulerCalls.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countSchedulerCalls' },
    );
    const options = {
      client: counted,
      groupName: group,
      roleArn: 'arn:aws:iam::123456789012:role/Test-WakeUpSchedulerRole',
      logger,
      now: () => ctx.clock.now,
    };
    handler = createControllerHandler({
      reconciler: createWaitingReconciler(),
      logger,
      getDeps: () => Promise.resolve(ctx.deps),
      wakeUps: createSchedulerWakeUps(options),
      wakeUpDeletes: createSchedulerWakeUpDeletes(options),
    });
  });
  after(async () => {
    scheduler?.destroy();
    await moto?.stop();
  });

  test('a requeued pass gets a schedule; the pass an event runs before it fires succeeds and deletes it', async () => {
    const t = ctx.clock.now;
    await putSource(ctx, 'a', { wait: 'the control plane' });
    const requeued = await invoke(changeEvent('a'));
    assert.deepEqual(
      requeued.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    assert.deepEqual(requeued.wakeUps, { created: 1, updated: 0, kept: 0, failed: 0 });
    assert.equal(requeued.wakeUpsDeleted, undefined);
    assert.deepEqual(await scheduled(t), { a: Math.ceil((t + 5 * min) / 1000) * 1000 - t });

    // NOTE: the change the pass waited for, a minute later: it converges through its event, not its schedule.
    ctx.clock.now = t + min;
    await putSource(ctx, 'a', { greeting: 'converged' });
    schedulerCalls.length = 0;
    const converged = await invoke(changeEvent('a'));
    assert.deepEqual(
      converged.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    assert.equal(converged.passes[0]?.previousNextAttemptAt, t + 5 * min);
    assert.deepEqual(converged.wakeUpsDeleted, { deleted: 1, absent: 0, failed: 0 });
    assert.deepEqual(schedulerCalls, ['DeleteScheduleCommand']);
    assert.deepEqual(await scheduled(t), {}, 'no schedule left to fire into a pass with nothing to do');
  });

  test('a failed pass’s backoff schedule is deleted when the next pass succeeds', async () => {
    const t = ctx.clock.now;
    await putSource(ctx, 'b', { fail: 'boom' });
    const failed = await invoke(changeEvent('b'));
    assert.deepEqual(
      failed.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Error']],
    );
    assert.deepEqual(failed.wakeUps, { created: 1, updated: 0, kept: 0, failed: 0 });
    assert.deepEqual(Object.keys(await scheduled(t)), ['b']);
    await putSource(ctx, 'b', { greeting: 'fixed' });
    const fixed = await invoke(changeEvent('b'));
    assert.deepEqual(
      fixed.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    assert.deepEqual(fixed.wakeUpsDeleted, { deleted: 1, absent: 0, failed: 0 });
    assert.deepEqual(await scheduled(t), {});
  });

  test('a pass whose checkpoint held no due time sends no Scheduler call at all', async () => {
    await putSource(ctx, 'b', { greeting: 'again' });
    schedulerCalls.length = 0;
    const result = await invoke(changeEvent('b'));
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    assert.equal(result.passes[0]?.previousNextAttemptAt, undefined);
    assert.equal(result.wakeUpsDeleted, undefined);
    assert.deepEqual(schedulerCalls, []);
  });

  test('a pass its schedule wakes sends no delete: the fired schedule deletes itself', async () => {
    const t = ctx.clock.now;
    await putSource(ctx, 'c', { wait: 'a hook' });
    await invoke(changeEvent('c'));
    const [schedule] = await getSchedules(scheduler, group);
    assert.ok(schedule);
    // NOTE: the change lands with no event (a lost one): the schedule is the net.
    await putSource(ctx, 'c', { greeting: 'done waiting' });
    const atMs = parseAtExpression(schedule.expression) ?? Number.NaN;
    assert.equal(atMs, Math.ceil((t + 5 * min) / 1000) * 1000);
    ctx.clock.now = atMs;
    schedulerCalls.length = 0;
    const woken = await fireSchedule(scheduler, group, schedule, new Date(atMs), invoke);
    assert.deepEqual(
      woken.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Success']],
    );
    assert.equal(woken.wakeUpsDeleted, undefined);
    assert.deepEqual(schedulerCalls, []);
    assert.deepEqual(await scheduled(t), {});
  });

  test('an object deleted while its pass waits: the pass finds it gone and deletes its schedule', async () => {
    const t = ctx.clock.now;
    await putSource(ctx, 'd', { wait: 'a worker' });
    await invoke(changeEvent('d'));
    assert.deepEqual(Object.keys(await scheduled(t)), ['d']);
    await deleteObject(ctx.mgmt.kube, keyOf('d'));
    const gone = await invoke(changeEvent('d', 'DELETED'));
    assert.deepEqual(
      gone.passes.map((p) => [p.status, p.reason]),
      [['Skipped', 'NotFound']],
    );
    assert.deepEqual(gone.wakeUpsDeleted, { deleted: 1, absent: 0, failed: 0 });
    assert.deepEqual(await scheduled(t), {});
  });

  test('a requeue asked again keeps its schedule: only a pass that stops asking deletes it', async () => {
    const t = ctx.clock.now;
    await putSource(ctx, 'e', { wait: 'one' });
    await invoke(changeEvent('e'));
    ctx.clock.now = t + min;
    await putSource(ctx, 'e', { wait: 'two' });
    schedulerCalls.length = 0;
    const again = await invoke(changeEvent('e'));
    assert.deepEqual(
      again.passes.map((p) => [p.status, p.result]),
      [['Ran', 'Requeue']],
    );
    assert.equal(again.wakeUpsDeleted, undefined);
    assert.ok(!schedulerCalls.includes('DeleteScheduleCommand'), schedulerCalls.join(', '));
    assert.deepEqual(await scheduled(t), { e: Math.ceil((t + 5 * min) / 1000) * 1000 - t });
  });
});
