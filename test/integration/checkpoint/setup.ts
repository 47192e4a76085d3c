// Shared setup of the checkpoint integration tests: one DynamoDB Local per test file, one fresh table in it.
import { after, before } from 'node:test';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import type { CheckpointStore } from '#shared/checkpoint/index.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import type { DynamoDBServer } from '#test/support/harness/dynamodb.ts';

export type CheckpointTestContext = { store: CheckpointStore; server: DynamoDBServer };

/**
 * Registers before/after hooks that start DynamoDB Local and create a table named after the file, and returns
 * an object whose fields are filled in by the time the tests run.
 */
export function useCheckpointStore(tableSuffix: string): CheckpointTestContext {
  const context = {} as CheckpointTestContext;
  before(async () => {
    context.server = await startDynamoDB();
    const client = createDynamoDBClient(context.server);
    // NOTE: unique per run, so a shared server given by DYNAMODB_ENDPOINT starts from an empty table too.
    const tableName = `checkpoint-${tableSuffix}-${process.pid}-${Date.now()}`;
    context.store = createCheckpointStore({ client, tableName });
    await ensureTable(context.store);
  });
  after(async () => {
    context.store?.client.destroy();
    await context.server?.stop();
  });
  return context;
}
