// The controller handler through middy with EventBridge-shaped events, against a real kube-apiserver and
// DynamoDB Local: a pass runs and records, an unchanged object is skipped for free, two invocations contend for
// one lease, failures back off, a malformed event is rejected, and a pass stops before the Lambda timeout.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import { getObject } from '#shared/kube/index.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent, tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createMetrics } from '#shared/runtime/middlewares/record-metrics.ts';
import type { PassKey, PassReport, Reconciler } from '#shared/runtime/types.ts';
import { createConfigMapReconciler, type ConfigMapReconcilerHooks } from './configmap-reconciler.ts';
import { putSource, resetCounters, useRuntimeServers, writeCommands } from './setup.ts';

const ctx = useRuntimeServers();
const logger = new Logger({ serviceName: 'runtime-test', logLevel: 'SILENT' });
let eventCount = 0;

function handlerFor(hooks: ConfigMapReconcilerHooks = {}, reconciler: Reconciler = createConfigMapReconciler(hooks)) {
  return createControllerHandler({ reconciler, logger, getDeps: () => Promise.resolve(ctx.deps) });
}

function changeEvent(name: string) {
  eventCount++;
  return objectChangedEvent(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name, type: 'MODIFIED' },
    `event-${eventCount}`,
    new Date(ctx.clock.now),
  );
}

function onlyPass(result: HandlerResult): PassReport {
  assert.equal(result.status, 'Handled', JSON.stringify(result));
  if (result.status !== 'Handled') throw new Error('unreachable');
  assert.equal(result.passes.length, 1);
  return result.passes[0] as PassReport;
}

const keyOf = (name: string) => ({ controller: 'addons' as const, kind: 'ConfigMap', namespace: 'default', name });
const writes = () => ctx.ddbCommands.filter((c) => writeCommands.has(c));
const reads = () => ctx.ddbCommands.filter((c) => !writeCommands.has(c));

describe('controller handler on the real servers', () => {
  test('a first event runs the pass, applies the derived object and records a Success checkpoint', async () => {
    await putSource(ctx, 'first', { greeting: 'hello' });
    resetCounters(ctx);
    const pass = onlyPass(await handlerFor()(changeEvent('first'), localLambdaContext('addons', 60_000)));
    const [passReads, passWrites] = [reads(), writes()];
    assert.equal(pass.status, 'Ran');
    assert.equal(pass.result, 'Success');
    assert.deepEqual(pass.changed, ['applied ConfigMap default/first-derived']);
    const derived = await getObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'first-derived',
    });
    assert.deepEqual(derived['data'], { greeting: 'HELLO' });
    const checkpoint = await getCheckpoint(ctx.store, keyOf('first'));
    assert.equal(checkpoint?.result, 'Success');
    assert.equal(checkpoint?.attempts, 0);
    assert.equal(checkpoint?.lastPassId, pass.passId);
    assert.ok(checkpoint?.noChange, 'the pass leaves a no-change record');
    assert.deepEqual(passReads, ['GetItemCommand'], 'one checkpoint read');
    // NOTE: take the lease, then record and release in one conditional update of the same row: 2 writes, no transaction.
    assert.deepEqual(passWrites, ['UpdateItemCommand', 'UpdateItemCommand']);
  });

  test('an event about an unchanged object is skipped with zero mutating requests and zero DynamoDB writes', async () => {
    resetCounters(ctx);
    const pass = onlyPass(await handlerFor()(changeEvent('first'), localLambdaContext('addons', 60_000)));
    assert.equal(pass.status, 'Skipped');
    assert.equal(pass.reason, 'UpToDate');
    assert.deepEqual(ctx.kubeLog.mutating(), []);
    assert.ok(ctx.kubeLog.records.length <= 2, `≤ 2 Kubernetes reads, got ${ctx.kubeLog.records.length}`);
    assert.deepEqual(writes(), []);
    assert.deepEqual(reads(), ['GetItemCommand']);
  });

  test('of two concurrent invocations for one object one runs and the other skips on the held lease', async () => {
    await putSource(ctx, 'first', { greeting: 'hello again' });
    let invocations: Promise<HandlerResult>[] = [];
    // NOTE: whichever invocation wins the lease waits inside its pass until the other one has answered.
    const handler = handlerFor({ beforeApply: async () => void (await Promise.race(invocations)) });
    invocations = [
      handler(changeEvent('first'), localLambdaContext('addons', 60_000)),
      handler(changeEvent('first'), localLambdaContext('addons', 60_000)),
    ];
    const passes = (await Promise.all(invocations)).map(onlyPass);
    const ran = passes.filter((p) => p.status === 'Ran');
    const skipped = passes.filter((p) => p.status === 'Skipped');
    assert.equal(ran.length, 1, JSON.stringify(passes));
    assert.equal(skipped.length, 1);
    assert.match(
      skipped[0]?.reason ?? '',
      new RegExp(`^LeaseHeld by ${escape(ran[0]?.passId ?? '')}, asked to run again$`),
    );
    // NOTE: the holder ran once more when it released the lease; nothing had changed, so that pass was skipped.
    assert.equal(ran[0]?.runs, 2);
    assert.equal((await getCheckpoint(ctx.store, keyOf('first')))?.lastPassId, ran[0]?.passId);
  });

  test('a change that lands while a pass holds the lease, after it read the object, is reconciled by the holder', async () => {
    await putSource(ctx, 'late', { greeting: 'one' });
    let changed = false;
    let late: PassReport | undefined;
    const handler = handlerFor({
      beforeApply: async (key) => {
        if (key.name !== 'late' || changed) return;
        changed = true;
        // NOTE: the user's change lands after this pass read the source; its event's pass finds the lease held.
        await putSource(ctx, 'late', { greeting: 'two' });
        late = onlyPass(await handler(changeEvent('late'), localLambdaContext('addons', 60_000)));
      },
    });
    resetCounters(ctx);
    const pass = onlyPass(await handler(changeEvent('late'), localLambdaContext('addons', 60_000)));
    assert.equal(late?.status, 'Skipped');
    assert.match(late?.reason ?? '', /^LeaseHeld by .*, asked to run again$/);
    assert.equal(pass.status, 'Ran');
    assert.equal(pass.runs, 2, 'the holder ran again when it released the lease');
    assert.deepEqual(
      pass.changed,
      ['applied ConfigMap default/late-derived', 'applied ConfigMap default/late-derived'],
      'the report keeps what both passes changed',
    );
    const derived = await getObject(ctx.mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'late-derived',
    });
    assert.deepEqual(derived['data'], { greeting: 'TWO' }, 'the late change is applied, not left to the sweep');
    const checkpoint = await getCheckpoint(ctx.store, keyOf('late'));
    assert.equal(checkpoint?.lastPassId, pass.passId);
    // NOTE: no pass waited: the skipped one failed to take the lease and wrote its mark (two UpdateItems) and returned.
    // The holder: take the lease, record (refused: a rerun is asked), record again; its rerun: take, record.
    assert.equal(writes().filter((c) => c === 'UpdateItemCommand').length, 2 + 3 + 2);
  });

  test('a failing pass records attempts and a backed-off next attempt, skips until then, and resets on success', async () => {
    await putSource(ctx, 'flaky', { fail: 'upstream unavailable' });
    const handler = handlerFor();
    const t0 = ctx.clock.now;
    const first = onlyPass(await handler(changeEvent('flaky'), localLambdaContext('addons', 60_000)));
    assert.equal(first.result, 'Error');
    let checkpoint = await getCheckpoint(ctx.store, keyOf('flaky'));
    assert.equal(checkpoint?.attempts, 1);
    // equal jitter with jitter() = 0.5: 1000 / 2 + 0.5 * 1000 / 2
    assert.equal(checkpoint?.nextAttemptAt, t0 + 750);
    assert.match(checkpoint?.lastError ?? '', /failed to derive ConfigMap default\/flaky: upstream unavailable/);

    resetCounters(ctx);
    ctx.clock.now = t0 + 500;
    const early = onlyPass(await handler(changeEvent('flaky'), localLambdaContext('addons', 60_000)));
    assert.deepEqual([early.status, early.reason], ['Skipped', 'BackingOff']);
    assert.deepEqual(writes(), []);

    ctx.clock.now = t0 + 1_000;
    const retry = onlyPass(await handler(changeEvent('flaky'), localLambdaContext('addons', 60_000)));
    assert.equal(retry.result, 'Error');
    checkpoint = await getCheckpoint(ctx.store, keyOf('flaky'));
    assert.equal(checkpoint?.attempts, 2);
    assert.equal(checkpoint?.nextAttemptAt, t0 + 1_000 + 1_500);

    await putSource(ctx, 'flaky', { greeting: 'fixed' });
    const fixed = onlyPass(await handler(changeEvent('flaky'), localLambdaContext('addons', 60_000)));
    assert.equal(fixed.result, 'Success');
    checkpoint = await getCheckpoint(ctx.store, keyOf('flaky'));
    assert.equal(checkpoint?.attempts, 0);
    assert.equal(checkpoint?.nextAttemptAt, undefined);
    assert.equal(checkpoint?.lastError, undefined);
  });

  const malformed = [
    {
      name: 'rejects an event without detail-type and names the field',
      event: { id: 'x', source: 'capi-serverless.forwarder', detail: {} },
      field: /detail-type/,
    },
    {
      name: 'rejects an object change without a name and names the field',
      event: {
        id: 'n',
        source: 'capi-serverless.forwarder',
        'detail-type': 'Object Changed',
        detail: { apiVersion: 'v1', kind: 'ConfigMap', type: 'MODIFIED' },
      },
      field: /detail\.name/,
    },
    {
      name: 'rejects a tick meant for another controller',
      event: {
        id: 't',
        source: 'capi-serverless.scheduler',
        'detail-type': 'Tick',
        detail: { controller: 'topology' },
      },
      field: /controller topology, this is addons/,
    },
  ];
  for (const c of malformed) {
    test(c.name, async () => {
      resetCounters(ctx);
      const result = await handlerFor()(c.event, localLambdaContext('addons', 60_000));
      assert.equal(result.status, 'Rejected');
      if (result.status === 'Rejected') assert.match(result.reason, c.field);
      assert.deepEqual(ctx.kubeLog.records, []);
      assert.deepEqual(ctx.ddbCommands, []);
    });
  }

  test('a pass still running shortly before the Lambda timeout is stopped and recorded, and its lease released', async () => {
    await putSource(ctx, 'slow', { greeting: 'slow' });
    const seen: { aborted?: boolean } = {};
    const handler = handlerFor({
      beforeApply: (_key: PassKey, signal: AbortSignal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            seen.aborted = true;
            resolve();
          });
        }),
    });
    // stopBeforeTimeoutMs is 10 s by default: a 10.5 s deadline leaves the pass half a second.
    const pass = onlyPass(await handler(changeEvent('slow'), localLambdaContext('addons', 10_500)));
    assert.equal(pass.result, 'Error');
    assert.equal(pass.reason, 'pass stopped before the Lambda timeout');
    assert.equal(seen.aborted, true);
    const again = onlyPass(await handlerFor()(changeEvent('slow'), localLambdaContext('addons', 60_000)));
    assert.equal(again.status, 'Skipped', 'backing off, and not because of a held lease');
    assert.equal(again.reason, 'BackingOff');
  });
});

/** Runs `fn` and returns the CloudWatch EMF documents written to stdout meanwhile. */
async function captureEmf(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n'));
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('metrics (Powertools Metrics, CloudWatch embedded metric format)', () => {
  const metricsHandler = () =>
    createControllerHandler({
      reconciler: createConfigMapReconciler(),
      logger,
      getDeps: () => Promise.resolve(ctx.deps),
      metrics: createMetrics(),
    });

  test('a pass that ran and one skipped publish no metric; a rejected event publishes EventsRejected alone', async () => {
    await putSource(ctx, 'metered', { a: '1' });
    const handler = metricsHandler();
    assert.deepEqual(
      await captureEmf(() => handler(changeEvent('metered'), localLambdaContext('addons', 60_000))),
      [],
      'nothing to report: no metrics line, no metric-hour billed',
    );
    assert.deepEqual(await captureEmf(() => handler(changeEvent('metered'), localLambdaContext('addons', 60_000))), []);
    const tick = tickEvent('addons', `tick-metered-${Date.now()}`, new Date());
    const [ticked] = await captureEmf(async () => {
      const result = await handler(tick, localLambdaContext('addons', 60_000));
      assert.equal(result.status, 'Handled', JSON.stringify(result));
    });
    assert.equal(ticked, undefined, 'a tick with nothing due publishes no metric');

    const [rejected, ...more] = await captureEmf(() =>
      handler({ not: 'an event' }, localLambdaContext('addons', 60_000)),
    );
    assert.equal(more.length, 0);
    const directives = (
      rejected?.['_aws'] as {
        CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
      }
    ).CloudWatchMetrics[0];
    assert.equal(directives?.Namespace, 'CapiServerless');
    assert.deepEqual(directives?.Dimensions, [[]], 'no per-function dimension');
    assert.deepEqual(
      directives?.Metrics.map((m) => m.Name),
      ['EventsRejected'],
    );
    assert.equal(rejected?.['EventsRejected'], 1);
    assert.equal(rejected?.['service'], undefined);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
