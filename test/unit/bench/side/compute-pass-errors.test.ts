// Side B's pass errors read from the functions process's output: what a bench result says about each failed pass
// and failed invocation (the creation pass error of the 2026-11-28 profile run was counted but never said what it was).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  betweenPhases,
  computeInvocationFailedLine,
  computePassErrorPhases,
  computePassErrors,
  computePassErrorsMarkdown,
  describeEventObjects,
  maxErrorChars,
  type PassErrorRecord,
} from '#test/bench/side/compute-pass-errors.ts';

const passFinished = JSON.stringify({
  level: 'ERROR',
  message: 'pass finished',
  timestamp: '2026-11-28T13:28:05.120Z',
  service: 'capi-serverless-topology',
  sampling_rate: 0,
  controller: 'topology',
  object: 'Cluster bench/c-0003',
  passId: 'req-1#Cluster bench/c-0003',
  trigger: 'event-7',
  result: 'Error',
  changed: [],
  attempts: 1,
  error: 'failed to update status of Cluster bench/c-0003: Operation cannot be fulfilled',
  timings: { readMs: 3 },
});

const passTimedOut = JSON.stringify({
  level: 'ERROR',
  message: 'pass timed out',
  timestamp: '2026-11-28T13:29:00.000Z',
  service: 'capi-serverless-addons',
  controller: 'addons',
  object: 'Cluster bench/c-0001',
  dependency: 'dynamodb',
  error: 'DynamoDB did not answer within 500 ms',
});

describe('computePassErrors: the error lines of the functions output', () => {
  const cases: { name: string; output: string; want: PassErrorRecord[] }[] = [
    {
      name: 'keeps a pass that ended in Error with its time, controller, object, attempts and trigger',
      output: `${passFinished}\n`,
      want: [
        {
          at: '2026-11-28T13:28:05.120Z',
          controller: 'topology',
          object: 'Cluster bench/c-0003',
          what: 'pass error',
          error: 'failed to update status of Cluster bench/c-0003: Operation cannot be fulfilled',
          trigger: 'event-7',
          attempts: 1,
        },
      ],
    },
    {
      name: 'keeps a pass that timed out before recording with the dependency that did not answer',
      output: passTimedOut,
      want: [
        {
          at: '2026-11-28T13:29:00.000Z',
          controller: 'addons',
          object: 'Cluster bench/c-0001',
          what: 'pass timed out',
          error: 'DynamoDB did not answer within 500 ms',
          dependency: 'dynamodb',
        },
      ],
    },
    {
      name: 'skips lines below ERROR, the bench stamps, READY and a line cut short',
      output: [
        'READY {"eventsUrl":"http://127.0.0.1:1/events"}',
        '2026-11-28T13:28:05.000Z topology failed: boom',
        JSON.stringify({ level: 'WARN', message: 'lost the lease before recording the checkpoint' }),
        passFinished.slice(0, 40),
        '',
      ].join('\n'),
      want: [],
    },
    {
      name: 'names the controller of another error line by its service and keeps its message as what it was',
      output: JSON.stringify({
        level: 'ERROR',
        message: 'rejected malformed event',
        timestamp: '2026-11-28T13:30:00.000Z',
        service: 'capi-serverless-topology',
        reason: 'detail.controller: expected topology',
      }),
      want: [
        {
          at: '2026-11-28T13:30:00.000Z',
          controller: 'topology',
          object: '',
          what: 'rejected malformed event',
          error: 'detail.controller: expected topology',
        },
      ],
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(computePassErrors(c.output), c.want));

  test('cuts a very long error message', () => {
    const long = JSON.stringify({ level: 'ERROR', message: 'pass finished', error: 'x'.repeat(maxErrorChars + 10) });
    const [record] = computePassErrors(long);
    assert.equal(record?.error.length, maxErrorChars + 1);
    assert.ok(record?.error.endsWith('…'));
  });

  test('reads back the line the bench writes for a failed invocation, with the objects of its event', () => {
    const event = {
      'detail-type': 'Passes Requested',
      detail: {
        keys: [
          { kind: 'Cluster', namespace: 'bench', name: 'c-0001' },
          { kind: 'Cluster', namespace: 'bench', name: 'c-0002' },
        ],
      },
    };
    const line = computeInvocationFailedLine({
      at: new Date('2026-11-28T13:31:00.000Z'),
      controller: 'topology',
      event,
      durationMs: 290_123.4,
      error: '1 pass(es) ended before recording a checkpoint',
    });
    assert.deepEqual(computePassErrors(`${line}`), [
      {
        at: '2026-11-28T13:31:00.000Z',
        controller: 'topology',
        object: 'Cluster bench/c-0001, Cluster bench/c-0002',
        what: 'invocation failed',
        error: '1 pass(es) ended before recording a checkpoint',
        trigger: 'Passes Requested',
      },
    ]);
  });
});

describe('describeEventObjects: the objects a controller event names', () => {
  const cases: { name: string; event: unknown; want: string }[] = [
    {
      name: 'an object change names its object',
      event: { 'detail-type': 'Object Changed', detail: { kind: 'Cluster', namespace: 'bench', name: 'c-0001' } },
      want: 'Cluster bench/c-0001',
    },
    {
      name: 'a due pass names its key',
      event: { 'detail-type': 'Pass Due', detail: { key: { kind: 'ClusterClass', namespace: 'b', name: 'cc' } } },
      want: 'ClusterClass b/cc',
    },
    { name: 'a tick names none', event: { 'detail-type': 'Tick', detail: { controller: 'topology' } }, want: '' },
    {
      name: 'a cluster-scoped object has no namespace',
      event: { 'detail-type': 'Object Changed', detail: { kind: 'Namespace', namespace: '', name: 'bench' } },
      want: 'Namespace bench',
    },
    {
      name: 'a long batch names the first ones and how many more',
      event: { detail: { keys: [1, 2, 3].map((i) => ({ kind: 'Cluster', namespace: 'n', name: `c${i}` })) } },
      want: 'Cluster n/c1, Cluster n/c2 +1 more',
    },
    { name: 'something that is not an event names none', event: undefined, want: '' },
  ];
  for (const c of cases)
    test(c.name, () =>
      assert.equal(describeEventObjects(c.event, c.name.startsWith('a long') ? 2 : undefined), c.want),
    );
});

describe('computePassErrorPhases: the bench phase of each error', () => {
  const record = (at: string): PassErrorRecord =>
    Object.freeze({ at, controller: 'topology', object: 'Cluster bench/c-0001', what: 'pass error', error: 'boom' });
  const phases = Object.freeze([
    { name: 'create', from: Date.parse('2026-11-28T13:27:31Z'), to: Date.parse('2026-11-28T13:38:00Z') },
    { name: 'idle', from: Date.parse('2026-11-28T13:40:00Z'), to: Date.parse('2026-11-28T13:50:00Z') },
  ]);
  const cases = [
    { name: 'within a phase', at: '2026-11-28T13:28:05.120Z', want: 'create' },
    { name: 'on the last millisecond of a phase', at: '2026-11-28T13:38:00.000Z', want: 'create' },
    { name: 'in the pause between two phases', at: '2026-11-28T13:39:00.000Z', want: betweenPhases },
    { name: 'without a time', at: '', want: betweenPhases },
  ];
  for (const c of cases)
    test(`an error ${c.name}`, () => assert.equal(computePassErrorPhases([record(c.at)], phases)[0]?.phase, c.want));
});

describe('computePassErrorsMarkdown: the report section', () => {
  test('says nothing for a result without records (side A only, or an older run)', () => {
    assert.deepEqual(computePassErrorsMarkdown(undefined), []);
  });
  test('says none when side B had none', () => {
    assert.match(computePassErrorsMarkdown([]).join('\n'), /^\nPass errors \(B: .*\): none\.$/);
  });
  test('gives one line per error with its time, phase, controller, object, message and details', () => {
    const [record] = computePassErrors(passFinished);
    const lines = computePassErrorsMarkdown([{ ...record!, phase: 'create' }]);
    assert.equal(
      lines.at(-1),
      '- 13:28:05 UTC, create: topology pass error Cluster bench/c-0003: failed to update status of Cluster bench/c-0003: Operation cannot be fulfilled (attempt 1, trigger event-7)',
    );
  });
});
