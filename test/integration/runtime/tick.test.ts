// The tick and the local bus on the real servers: a tick reconciles what has no checkpoint, an idle tick costs one
// LIST and one checkpoint read per object with no writes, a resync forces passes that still write nothing, and
// the local bus routes an object change to the handler.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Controller } from '#shared/checkpoint/index.ts';
import { createControllerHandler, type HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { tickEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { createLocalBus } from '#shared/runtime/local-bus.ts';
import { createConfigMapReconciler } from './configmap-reconciler.ts';
import { putSource, resetCounters, useRuntimeServers, writeCommands } from './setup.ts';

const ctx = useRuntimeServers({ RESYNC_AFTER_MS: '3600000' });
const logger = new Logger({ serviceName: 'runtime-test', logLevel: 'SILENT' });
const names = ['tick-a', 'tick-b', 'tick-c'];

function handler() {
  return createControllerHandler({
    reconciler: createConfigMapReconciler(),
    logger,
    getDeps: () => Promise.resolve(ctx.deps),
  });
}

async function tick(): Promise<Extract<HandlerResult, { status: 'Handled' }>> {
  const result = await handler()(
    tickEvent('addons', `tick-${ctx.clock.now}`, new Date(ctx.clock.now)),
    localLambdaContext('addons', 60_000),
  );
  assert.equal(result.status, 'Handled', JSON.stringify(result));
  return result as Extract<HandlerResult, { status: 'Handled' }>;
}

describe('tick and local bus on the real servers', () => {
  test('a tick runs a pass over every listed object that has no checkpoint', async () => {
    for (const name of names) await putSource(ctx, name, { value: name });
    const result = await tick();
    assert.deepEqual(result.tick?.reasons, { NoCheckpoint: 3 });
    assert.deepEqual(
      result.passes.map((p) => [p.key.name, p.status, p.result]),
      names.map((n) => [n, 'Ran', 'Success']),
    );
  });

  test('an idle tick makes one LIST, one checkpoint read per object and no writes', async () => {
    resetCounters(ctx);
    const result = await tick();
    assert.deepEqual(result.passes, []);
    assert.deepEqual(result.tick?.reasons, { UpToDate: 3 });
    assert.deepEqual(
      ctx.kubeLog.records.map((r) => `${r.method} ${r.path}`),
      ['GET /api/v1/configmaps'],
    );
    assert.deepEqual(ctx.ddbCommands, ['GetItemCommand', 'GetItemCommand', 'GetItemCommand']);
  });

  test('a tick after the resync interval forces passes that find nothing to change and write nothing to Kubernetes', async () => {
    ctx.clock.now += 3_600_000;
    resetCounters(ctx);
    const result = await tick();
    assert.deepEqual(result.tick?.reasons, { Resync: 3 });
    assert.deepEqual(
      result.passes.map((p) => [p.status, p.result, p.changed]),
      names.map(() => ['Ran', 'Success', []]),
    );
    assert.deepEqual(ctx.kubeLog.mutating(), []);
    assert.ok(
      ctx.ddbCommands.some((c) => writeCommands.has(c)),
      'the forced passes record their checkpoints',
    );
  });

  test('the local bus routes a ConfigMap change to the addons handler and reports the pass', async () => {
    await putSource(ctx, 'tick-a', { value: 'changed' });
    const results: [Controller, HandlerResult][] = [];
    const bus = createLocalBus({ handlers: { addons: handler() }, onResult: (c, _e, r) => results.push([c, r]) });
    const failed = await bus.putEvents([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'tick-a', type: 'MODIFIED' },
    ]);
    assert.deepEqual(failed, []);
    await bus.stop();
    assert.equal(results.length, 1);
    const [controller, result] = results[0] ?? [];
    assert.equal(controller, 'addons');
    assert.equal(result?.status, 'Handled');
    if (result?.status === 'Handled') {
      assert.deepEqual(
        result.passes.map((p) => [p.status, p.changed]),
        [['Ran', ['applied ConfigMap default/tick-a-derived']]],
      );
    }
  });
});
