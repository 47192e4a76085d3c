// The metrics an invocation publishes: nothing for a tick or a pass that went well (no metric-hour billed), and
// otherwise only the declared names, with their declared unit and no dimension.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import middy from '@middy/core';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import { emittedMetrics, metricDimensions, metricsNamespace } from '#shared/runtime/emitted-metrics.ts';
import { createMetrics, recordPassMetrics } from '#shared/runtime/middlewares/record-metrics.ts';
import type { PassReport } from '#shared/runtime/types.ts';

type EmfLine = {
  _aws: {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
} & Record<string, unknown>;

/** Runs one invocation returning `result` through the middleware; returns the EMF lines it wrote. */
async function invoke(result: HandlerResult): Promise<EmfLine[]> {
  const lines: string[] = [];
  const metrics: Metrics = createMetrics();
  // NOTE: Powertools writes EMF through its own console; capture it instead of stdout.
  Object.assign(metrics, { console: { log: (line: string) => lines.push(line), warn: () => undefined } });
  const handler = middy<unknown, HandlerResult>(() => Promise.resolve(result)).use(recordPassMetrics(metrics));
  await handler({}, {} as never);
  return lines.map((l) => JSON.parse(l) as EmfLine);
}

const key = Object.freeze({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'ns', name: 'c-1' });
const pass = (p: Partial<PassReport>): PassReport =>
  ({ key, passId: 'p', status: 'Ran', result: 'Done', reason: '', ...p }) as unknown as PassReport;
const tick = {} as NonNullable<Extract<HandlerResult, { status: 'Handled' }>['tick']>;

describe('recordPassMetrics', () => {
  const quiet: [string, HandlerResult][] = [
    ['a tick that did nothing', { status: 'Handled', eventId: 't1', passes: [], tick }],
    [
      'a tick whose passes were skipped',
      { status: 'Handled', eventId: 't2', passes: [pass({ status: 'Skipped' })], tick },
    ],
    ['an event whose pass ran and changed objects', { status: 'Handled', eventId: 'e1', passes: [pass({})] }],
    ['a pass that asked to run again', { status: 'Handled', eventId: 'e2', passes: [pass({ result: 'Requeue' })] }],
  ];
  for (const [name, result] of quiet)
    test(`${name} publishes no metric at all`, async () => {
      assert.deepEqual(await invoke(Object.freeze(result)), []);
    });

  test('a failed pass and a timed-out one publish only non-zero declared metrics, with no dimension', async () => {
    const lines = await invoke({
      status: 'Handled',
      eventId: 'e3',
      passes: [pass({ result: 'Error' }), pass({ result: 'Error', timedOut: 'Kubernetes' }), pass({})],
    });
    assert.equal(lines.length, 1, 'one EMF line per invocation');
    const line = lines[0] as EmfLine;
    const [directive] = line._aws.CloudWatchMetrics;
    assert.equal(directive?.Namespace, metricsNamespace);
    assert.deepEqual(directive?.Dimensions, [metricDimensions]);
    assert.deepEqual(
      directive?.Metrics.map((m) => m.Name),
      ['PassErrors', 'Unhealthy', 'KubernetesTimeouts'],
    );
    for (const m of directive?.Metrics ?? []) {
      assert.ok(m.Name in emittedMetrics, `${m.Name} is declared`);
      assert.equal(m.Unit, emittedMetrics[m.Name as keyof typeof emittedMetrics].unit);
    }
    assert.equal(line['PassErrors'], 2);
    assert.equal(line['KubernetesTimeouts'], 1);
    assert.equal(line['Unhealthy'], 2, 'each failed pass counts toward the alarmed metric');
    assert.equal(line['service'], undefined, 'no per-function service dimension');
  });

  test('an invocation that fails publishes Unhealthy (the alarmed metric) once', async () => {
    const lines: string[] = [];
    const metrics: Metrics = createMetrics();
    Object.assign(metrics, { console: { log: (line: string) => lines.push(line), warn: () => undefined } });
    const handler = middy<unknown, HandlerResult>(() => Promise.reject(new Error('boom'))).use(
      recordPassMetrics(metrics),
    );
    await assert.rejects(handler({}, {} as never), /boom/);
    const [line] = lines.map((l) => JSON.parse(l) as EmfLine);
    assert.deepEqual(
      line?._aws.CloudWatchMetrics[0]?.Metrics.map((m) => m.Name),
      ['Unhealthy'],
    );
    assert.equal(line?.['Unhealthy'], 1);
  });
});
