// The DynamoDB Local harness on disk: killed and restarted on the same port, it comes back with the same table and
// rows (the fault suite's "DynamoDB Local stopped" case relies on it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createCheckpointStore,
  createDynamoDBClient,
  ensureTable,
  getCheckpoint,
  recordCheckpoint,
} from '#shared/checkpoint/index.ts';
import type { Checkpoint, CheckpointKey } from '#shared/checkpoint/index.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';

const key: CheckpointKey = { controller: 'addons', namespace: 'default', name: 'survivor' };

test('a DynamoDB Local on disk keeps its table and rows across kill and restart on the same port', async () => {
  const server = await startDynamoDB({ onDisk: true });
  const client = createDynamoDBClient(server);
  try {
    const store = createCheckpointStore({ client, tableName: `harness-${process.pid}-${Date.now()}` });
    await ensureTable(store);
    // NOTE: a real "now": DynamoDB Local runs TTL deletion, so rows stamped in the past could vanish.
    const checkpoint: Checkpoint = {
      observedGeneration: 1,
      inputHash: 'sha256:1',
      resourceVersion: '42',
      result: 'Success',
      attempts: 0,
      lastPassId: 'pass-1',
      updatedAt: Date.now(),
    };
    await recordCheckpoint(store, key, checkpoint);

    await server.kill();
    await assert.rejects(getCheckpoint(store, key), 'a killed server does not answer');
    await server.restart();

    assert.deepEqual(await getCheckpoint(store, key), checkpoint);
  } finally {
    client.destroy();
    await server.stop();
  }
});

test('an in-memory DynamoDB Local refuses restart(), which would bring it back empty', async () => {
  const server = await startDynamoDB();
  try {
    await assert.rejects(server.restart(), /onDisk/);
  } finally {
    await server.stop();
  }
});

test('a second DynamoDB Local on a port another already serves fails instead of sharing its tables', async () => {
  const first = await startDynamoDB();
  try {
    const port = Number(new URL(first.endpoint).port);
    // NOTE: what two test files picking the same free port at once come to: the second JVM cannot bind, and the
    // first one's answers must not be taken for its own.
    await assert.rejects(startDynamoDB({ port, startTimeoutMs: 30_000 }), /exited early|another process answers/);
  } finally {
    await first.stop();
  }
});
