// The local bus's invocation limit: a burst of events runs at most `concurrency` invocations of a controller at once,
// in arrival order, each with its full "Lambda timeout" from when it starts (not from when it was put).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { createLocalBus, defaultLocalConcurrency } from '#shared/runtime/local-bus.ts';

const clusterChange = (name: string): ObjectChange => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  namespace: 'fleet',
  name,
  type: 'ADDED',
});

/** A handler that takes `ms` and records how many ran at once, the order and the time each had left at start. */
function recordingHandler(ms: number) {
  const seen = { running: 0, most: 0, order: [] as string[], remainingAtStart: [] as number[] };
  const handler: ControllerHandler = async (event, context) => {
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    seen.order.push((event as { detail: { name: string } }).detail.name);
    seen.remainingAtStart.push(context.getRemainingTimeInMillis());
    await new Promise((resolve) => setTimeout(resolve, ms));
    seen.running--;
    return { status: 'Handled', eventId: (event as { id: string }).id, passes: [] };
  };
  return { handler, seen };
}

describe('local bus invocation limit', () => {
  test('a burst of 12 events runs 3 at a time, in order, each with its whole timeout', async () => {
    const { handler, seen } = recordingHandler(40);
    const bus = createLocalBus({ handlers: { topology: handler }, concurrency: 3, timeoutMs: 100 });
    const names = Array.from({ length: 12 }, (_, i) => `c-${String(i).padStart(2, '0')}`);
    await bus.putEvents(names.map(clusterChange));
    await bus.drain();

    assert.equal(seen.most, 3);
    assert.deepEqual(seen.order, names);
    // NOTE: the last ones waited about 3 x 40 ms in the queue: with the timeout counted from the put they would
    // have started with less than half of it left.
    for (const remaining of seen.remainingAtStart) assert.ok(remaining > 90, `started with ${remaining} ms left`);
    await bus.stop();
  });

  test('by default as many invocations as one process has Kubernetes sockets', async () => {
    const { handler, seen } = recordingHandler(20);
    const bus = createLocalBus({ handlers: { topology: handler } });
    await bus.putEvents(Array.from({ length: 40 }, (_, i) => clusterChange(`c-${i}`)));
    await bus.drain();
    assert.equal(defaultLocalConcurrency, 16);
    assert.equal(seen.most, 16);
    assert.equal(seen.order.length, 40);
    await bus.stop();
  });

  test('rejects a limit that is not a positive integer', () => {
    for (const concurrency of [0, -1, 1.5])
      assert.throws(() => createLocalBus({ handlers: {}, concurrency }), /concurrency must be a positive integer/);
  });
});
