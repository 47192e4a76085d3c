// The wake-up sink on a real EventBridge Scheduler API (moto's server): what CreateSchedule, GetSchedule and
// UpdateSchedule leave in the group when requests for one object repeat, come earlier or later, or find a schedule
// that already fired; and what DeleteSchedule leaves when a pass no longer asks to run again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { parseAtExpression } from '#shared/runtime/compute-wake-up.ts';
import { parseRuntimeEvent } from '#shared/runtime/events.ts';
import {
  createSchedulerWakeUpDeletes,
  createSchedulerWakeUps,
  type WakeUpDeleteSink,
  type WakeUpSink,
} from '#shared/runtime/scheduler-wake-ups.ts';
import { createScheduleGroup, getSchedules, startMoto, type MotoServer } from '#test/support/harness/moto.ts';

const group = 'sink';
const arn = 'arn:aws:lambda:us-east-1:123456789012:function:Test-TopologyFunction';
const key = (name: string) => ({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name });
const t0 = Date.parse('2026-11-27T13:00:00Z');
const min = 60_000;

describe('one-time schedules on EventBridge Scheduler (moto)', () => {
  let moto: MotoServer;
  let client: SchedulerClient;
  const clock = { now: t0 };
  let sink: WakeUpSink;
  let deletes: WakeUpDeleteSink;
  const dueTimes = async () =>
    Object.fromEntries(
      (await getSchedules(client, group)).map((s) => [
        (JSON.parse(s.input) as { detail: { key: { name: string } } }).detail.key.name,
        (parseAtExpression(s.expression) ?? 0) - t0,
      ]),
    );

  before(async () => {
    moto = await startMoto();
    client = moto.createSchedulerClient();
    await createScheduleGroup(client, group);
    sink = createSchedulerWakeUps({
      client,
      groupName: group,
      roleArn: 'arn:aws:iam::123456789012:role/r',
      logger: new Logger({ logLevel: 'SILENT' }),
      now: () => clock.now,
    });
    deletes = createSchedulerWakeUpDeletes({ client, groupName: group, logger: new Logger({ logLevel: 'SILENT' }) });
  });
  after(async () => {
    client?.destroy();
    await moto?.stop();
  });

  test('creates one schedule per object; two requests in one invocation keep the earlier', async () => {
    const report = await sink('topology', arn, [
      { key: key('a'), dueAtMs: t0 + 10 * min },
      { key: key('a'), dueAtMs: t0 + 5 * min },
      { key: key('b'), dueAtMs: t0 + 7 * min },
    ]);
    assert.deepEqual(report, { created: 2, updated: 0, kept: 0, failed: 0 });
    assert.deepEqual(await dueTimes(), { a: 5 * min, b: 7 * min });
    for (const s of await getSchedules(client, group)) {
      assert.equal(s.actionAfterCompletion, 'DELETE');
      assert.equal(s.targetArn, arn);
      assert.equal(
        parseRuntimeEvent(JSON.parse(s.input.replaceAll('<aws.scheduler.', '<')))['detail-type'],
        'Pass Due',
      );
    }
  });

  test('a later request keeps the earlier schedule; an earlier one moves it', async () => {
    const report = await sink('topology', arn, [
      { key: key('a'), dueAtMs: t0 + 9 * min },
      { key: key('b'), dueAtMs: t0 + 2 * min },
    ]);
    assert.deepEqual(report, { created: 0, updated: 1, kept: 1, failed: 0 });
    assert.deepEqual(await dueTimes(), { a: 5 * min, b: 2 * min });
  });

  test('a schedule whose time has passed (fired, not yet deleted) is moved to the new time', async () => {
    clock.now = t0 + 6 * min;
    const report = await sink('topology', arn, [{ key: key('a'), dueAtMs: t0 + 20 * min }]);
    assert.deepEqual(report, { created: 0, updated: 1, kept: 0, failed: 0 });
    assert.equal((await dueTimes())['a'], 20 * min);
  });

  test('with the invocation out of time nothing more is sent: the requests are left to the sweep', async () => {
    const report = await sink('topology', arn, [{ key: key('d'), dueAtMs: t0 + 30 * min }], () => true);
    assert.deepEqual(report, { created: 0, updated: 0, kept: 0, failed: 1 });
    assert.equal((await dueTimes())['d'], undefined);
  });

  test('a failure is counted and never thrown (the sweep runs the pass from the due index)', async () => {
    const broken = createSchedulerWakeUps({
      client,
      groupName: 'no-such-group',
      roleArn: 'arn:aws:iam::123456789012:role/r',
      logger: new Logger({ logLevel: 'SILENT' }),
    });
    assert.deepEqual(await broken('topology', arn, [{ key: key('c'), dueAtMs: t0 + min }]), {
      created: 0,
      updated: 0,
      kept: 0,
      failed: 1,
    });
  });
  test('a delete removes the object’s schedule and leaves the others', async () => {
    assert.deepEqual(Object.keys(await dueTimes()).sort(), ['a', 'b']);
    const report = await deletes('topology', [key('a')]);
    assert.deepEqual(report, { deleted: 1, absent: 0, failed: 0 });
    assert.deepEqual(Object.keys(await dueTimes()), ['b']);
  });

  test('a schedule that is not there (fired, deleted, never created) counts as absent, not as a failure', async () => {
    const report = await deletes('topology', [key('a'), key('never')]);
    assert.deepEqual(report, { deleted: 0, absent: 2, failed: 0 });
  });

  test('another function’s schedule of the same object is not touched', async () => {
    const report = await deletes('addons', [key('b')]);
    assert.deepEqual(report, { deleted: 0, absent: 1, failed: 0 });
    assert.deepEqual(Object.keys(await dueTimes()), ['b']);
  });

  test('with the invocation out of time no delete is sent', async () => {
    const report = await deletes('topology', [key('b')], () => true);
    assert.deepEqual(report, { deleted: 0, absent: 0, failed: 1 });
    assert.deepEqual(Object.keys(await dueTimes()), ['b']);
  });

  test('a delete failure is counted and never thrown (the schedule fires into a pass with nothing due)', async () => {
    // NOTE: a missing group answers ResourceNotFoundException (absent), so the failure is a server that does not answer.
    const unreachable = new SchedulerClient({
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      maxAttempts: 1,
    });
    const broken = createSchedulerWakeUpDeletes({
      client: unreachable,
      groupName: group,
      logger: new Logger({ logLevel: 'SILENT' }),
    });
    try {
      assert.deepEqual(await broken('topology', [key('b')]), { deleted: 0, absent: 0, failed: 1 });
    } finally {
      unreachable.destroy();
    }
    assert.deepEqual(Object.keys(await dueTimes()), ['b']);
  });
});
