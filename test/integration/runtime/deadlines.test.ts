// Deadlines on the real servers: with DynamoDB Local frozen (SIGSTOP) or kube-apiserver frozen, a pass ends within
// the Lambda's remaining time and says which dependency timed out (report, error log line, metric); once the
// dependency answers again the next pass converges.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import {
  createControllerHandler,
  UnrecordedPassesError,
  type HandlerResult,
} from '#shared/runtime/create-controller-handler.ts';
import { objectChangedEvent } from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import type { PassReport } from '#shared/runtime/types.ts';
import { createConfigMapReconciler, type ConfigMapReconcilerHooks } from './configmap-reconciler.ts';
import { putSource, useRuntimeServers } from './setup.ts';

// NOTE: a 4 s pass inside an 8 s Lambda: every wait below is bounded by these, not by the test runner.
const lambdaTimeoutMs = 8_000;
const ctx = useRuntimeServers({ STOP_BEFORE_TIMEOUT_MS: '4000' });

type LogLine = { message: string; attributes: Record<string, unknown> };

/** A logger (and its children) that keeps its error lines, so the test can read what an operator would see. */
class CapturingLogger extends Logger {
  errors: LogLine[] = [];
  override error(message: unknown, ...extra: unknown[]): void {
    this.errors.push({ message: String(message), attributes: Object.assign({}, ...(extra as object[])) });
  }
  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    const child = new CapturingLogger(options);
    child.errors = this.errors;
    return child;
  }
}

let eventCount = 0;
function changeEvent(name: string) {
  eventCount++;
  return objectChangedEvent(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name, type: 'MODIFIED' },
    `deadline-event-${eventCount}`,
    new Date(ctx.clock.now),
  );
}

async function invoke(name: string, hooks: ConfigMapReconcilerHooks = {}) {
  const logger = new CapturingLogger({ serviceName: 'deadline-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'CapiServerlessTest', serviceName: 'deadline-test' });
  const added = mock.method(metrics, 'addMetric', () => undefined);
  mock.method(metrics, 'publishStoredMetrics', () => undefined);
  const handler = createControllerHandler({
    reconciler: createConfigMapReconciler(hooks),
    logger,
    metrics,
    getDeps: () => Promise.resolve({ ...ctx.deps, logger }),
  });
  const started = Date.now();
  let passes: readonly PassReport[];
  let invocationFailed = false;
  try {
    const result: HandlerResult = await handler(changeEvent(name), localLambdaContext('addons', lambdaTimeoutMs));
    assert.equal(result.status, 'Handled', JSON.stringify(result));
    if (result.status !== 'Handled') throw new Error('unreachable');
    passes = result.passes;
  } catch (err) {
    // A pass that recorded nothing fails the invocation, so Lambda retries the event.
    if (!(err instanceof UnrecordedPassesError)) throw err;
    passes = err.passes;
    invocationFailed = true;
  }
  const elapsedMs = Date.now() - started;
  const metricNames = added.mock.calls.filter((c) => c.arguments[2] !== 0).map((c) => String(c.arguments[0]));
  return { pass: passes[0] as PassReport, elapsedMs, errors: logger.errors, metricNames, invocationFailed };
}

describe('deadlines of external calls on the real servers', () => {
  test('a frozen DynamoDB ends the pass inside the Lambda time, naming DynamoDB; it converges once thawed', async () => {
    await putSource(ctx, 'frozen-ddb', { a: 'b' });
    ctx.ddb.freeze();
    let outcome: Awaited<ReturnType<typeof invoke>>;
    try {
      outcome = await invoke('frozen-ddb');
    } finally {
      ctx.ddb.thaw();
    }
    const { pass, elapsedMs, errors, metricNames } = outcome;
    assert.ok(elapsedMs < lambdaTimeoutMs, `ended after ${elapsedMs} ms, inside the ${lambdaTimeoutMs} ms Lambda`);
    assert.equal(pass.timedOut, 'DynamoDB');
    assert.equal(pass.result, 'Error');
    assert.match(pass.reason, /DynamoDB did not answer Get within \d+ ms/);
    const line = errors.find((e) => e.message === 'pass timed out');
    assert.ok(line, `an error line says the pass timed out: ${JSON.stringify(errors)}`);
    assert.equal(line.attributes['dependency'], 'DynamoDB');
    assert.ok(metricNames.includes('DynamoDBTimeouts'), `metrics: ${metricNames.join(', ')}`);
    assert.ok(metricNames.includes('PassErrors'));

    const again = await invoke('frozen-ddb');
    assert.equal(again.pass.result, 'Success', JSON.stringify(again.pass));
    assert.equal(again.pass.timedOut, undefined);
  });

  test('DynamoDB frozen after the lease: the checkpoint write stays inside the Lambda time and names DynamoDB', async () => {
    await putSource(ctx, 'frozen-record', { a: 'b' });
    const { pass, elapsedMs } = await (async () => {
      try {
        return await invoke('frozen-record', {
          beforeApply: () => {
            ctx.ddb.freeze();
            return Promise.resolve();
          },
        });
      } finally {
        ctx.ddb.thaw();
      }
    })();
    assert.ok(elapsedMs < lambdaTimeoutMs, `ended after ${elapsedMs} ms`);
    assert.equal(pass.timedOut, 'DynamoDB');
    assert.match(pass.reason, /DynamoDB did not answer Update within \d+ ms/);
  });

  test('a frozen kube-apiserver ends the pass inside the Lambda time, naming Kubernetes, recorded with backoff', async () => {
    await putSource(ctx, 'frozen-kube', { a: 'b' });
    const { pass, elapsedMs, errors, metricNames } = await (async () => {
      try {
        return await invoke('frozen-kube', {
          beforeApply: () => {
            ctx.mgmt.controlPlane.freezeApiServer();
            return Promise.resolve();
          },
        });
      } finally {
        ctx.mgmt.controlPlane.thawApiServer();
      }
    })();
    assert.ok(elapsedMs < lambdaTimeoutMs, `ended after ${elapsedMs} ms`);
    assert.equal(pass.timedOut, 'Kubernetes');
    assert.equal(pass.result, 'Error');
    assert.match(pass.reason, /Kubernetes did not answer (GET|PATCH) .*frozen-kube-derived within \d+ ms/);
    assert.ok(pass.nextAttemptAt !== undefined, 'the retry is scheduled through the checkpoint');
    const checkpoint = await getCheckpoint(ctx.store, {
      controller: 'addons',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'frozen-kube',
    });
    assert.match(checkpoint?.lastError ?? '', /Kubernetes did not answer/);
    const line = errors.find((e) => e.message === 'pass finished');
    assert.equal(line?.attributes['dependency'], 'Kubernetes');
    assert.ok(metricNames.includes('KubernetesTimeouts'), `metrics: ${metricNames.join(', ')}`);
  });

  test('a frozen kube-apiserver before the lease ends the pass naming Kubernetes', async () => {
    ctx.mgmt.controlPlane.freezeApiServer();
    let outcome: Awaited<ReturnType<typeof invoke>>;
    try {
      outcome = await invoke('frozen-kube');
    } finally {
      ctx.mgmt.controlPlane.thawApiServer();
    }
    assert.ok(outcome.elapsedMs < lambdaTimeoutMs, `ended after ${outcome.elapsedMs} ms`);
    assert.equal(outcome.pass.timedOut, 'Kubernetes');
    assert.match(outcome.pass.reason, /Kubernetes did not answer GET/);
    assert.equal(outcome.invocationFailed, true, 'nothing was recorded: the invocation fails so Lambda retries it');
  });
});
