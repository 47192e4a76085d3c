// The functions' fan-out sink with the real AWS SDK against an EventBridge endpoint on loopback: ten entries per
// PutEvents, each entry a 'Passes Requested' event the functions accept; entries EventBridge refuses and batches whose
// PutEvents fails come back to the caller, which runs them itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { parseRuntimeEvent } from '#shared/runtime/events.ts';
import { createEventBridgeFanOut } from '#shared/runtime/eventbridge-fan-out.ts';
import { computeFanOutPlan } from '#shared/runtime/fan-out.ts';
import { startEventBridgeRecorder, type EventBridgeRecorder } from './loopback.ts';

const logger = new Logger({ serviceName: 'fan-out-test', logLevel: 'SILENT' });
const keys = Array.from({ length: 255 }, (_, i) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  namespace: 'fleet',
  name: `c-${i}`,
}));

describe('the EventBridge fan-out sink', () => {
  let recorder: EventBridgeRecorder;
  let client: EventBridgeClient;
  before(async () => {
    recorder = await startEventBridgeRecorder();
    client = new EventBridgeClient({
      endpoint: recorder.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
  });
  after(async () => {
    client.destroy();
    await recorder.stop();
  });

  test('puts every batch as one entry, ten entries per PutEvents, each an event the functions accept', async () => {
    const { handedOff } = computeFanOutPlan('topology', 'event e-1', keys, 10);
    assert.equal(handedOff.length, 25);
    const sink = createEventBridgeFanOut({ client, eventBusName: 'capi-serverless-test', logger });
    assert.deepEqual(await sink(handedOff), []);
    assert.deepEqual(
      // NOTE: the PutEvents run a few at a time, so they may arrive in any order.
      recorder.requests.map((r) => r.entries.length).sort((a, b) => b - a),
      [10, 10, 5],
    );
    const entries = recorder.requests.flatMap((r) => r.entries);
    for (const e of entries) {
      assert.equal(e.EventBusName, 'capi-serverless-test');
      // NOTE: EventBridge delivers an entry as this envelope; the handler parses exactly that.
      const event = parseRuntimeEvent({
        id: 'x',
        source: e.Source,
        'detail-type': e.DetailType,
        detail: JSON.parse(e.Detail),
      });
      assert.equal(event['detail-type'], 'Passes Requested');
    }
    const sent = entries.flatMap((e) => (JSON.parse(e.Detail) as { keys: { name: string }[] }).keys.map((k) => k.name));
    assert.deepEqual(
      sent.sort(),
      keys
        .slice(10)
        .map((k) => k.name)
        .sort(),
    );
  });

  test('entries EventBridge refuses come back to the caller, the others stay sent', async () => {
    recorder.requests.length = 0;
    const { handedOff } = computeFanOutPlan('topology', 'event e-2', keys.slice(0, 50), 10);
    recorder.failNextEntries(2);
    const sink = createEventBridgeFanOut({ client, eventBusName: 'capi-serverless-test', logger });
    const refused = await sink(handedOff);
    assert.equal(refused.length, 2);
    const failed = recorder.requests.flatMap((r) => r.failedIndexes.map((i) => r.entries[i]?.Detail));
    assert.deepEqual(refused.map((r) => JSON.stringify(r)).sort(), failed.map((d) => d ?? '').sort());
  });

  test('a bus that cannot be reached gives every batch back, so nothing is lost', async () => {
    const unreachable = new EventBridgeClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    try {
      const { handedOff } = computeFanOutPlan('addons', 'event e-3', keys.slice(0, 35), 10);
      const sink = createEventBridgeFanOut({ client: unreachable, eventBusName: 'capi-serverless-test', logger });
      assert.deepEqual(await sink(handedOff), handedOff);
    } finally {
      unreachable.destroy();
    }
  });
});
