// Creates the table (with TTL) when it is missing: for local mode and the test harness. Deployed stacks get it from CDK.
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CheckpointStoreError, storeOperations } from './errors.ts';
import { createTableInput, dueIndex, dueIndexInput, tableDesign, timeToLiveInput } from './table.ts';

/**
 * Makes sure the table exists, is ACTIVE and has TTL on `expiresAt`. Idempotent and safe to race.
 *
 * @example
 * await ensureTable(store); // or ensureTable({ client, tableName })
 */
export async function ensureTable(target: {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}): Promise<void> {
  const { client, tableName } = target;
  try {
    if (!(await tableExists(client, tableName))) {
      try {
        await client.send(new CreateTableCommand(createTableInput(tableName)));
      } catch (err) {
        // Someone else created it between our look and our create.
        if (!(err instanceof ResourceInUseException)) throw err;
      }
    }
    await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
    await ensureDueIndex(client, tableName);
    if (await timeToLiveEnabled(client, tableName)) return;
    try {
      await client.send(new UpdateTimeToLiveCommand(timeToLiveInput(tableName)));
    } catch (err) {
      // Someone else turned it on between our look and our update ("TimeToLive is already enabled").
      if (!(await timeToLiveEnabled(client, tableName))) throw err;
    }
  } catch (err) {
    throw new CheckpointStoreError(storeOperations.ensureTable, tableName, err);
  }
}

/** Adds the due index to a table made before it existed, and waits until it is ACTIVE. */
async function ensureDueIndex(client: DynamoDBClient, tableName: string): Promise<void> {
  const statusOf = async () => {
    const table = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return table.Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === dueIndex.name)?.IndexStatus;
  };
  let status = await statusOf();
  if (status === undefined) {
    const { AttributeDefinitions } = createTableInput(tableName);
    try {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: dueIndexInput() }],
        }),
      );
    } catch (err) {
      // Someone else is adding it.
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    status = await statusOf();
  }
  for (let i = 0; status !== 'ACTIVE' && i < 120; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    status = await statusOf();
  }
  if (status !== 'ACTIVE') throw new Error(`index ${dueIndex.name} of table ${tableName} is ${status ?? 'missing'}`);
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return false;
    throw err;
  }
}

/** Whether TTL is on (or turning on); throws when it is on for another attribute than the table design's. */
async function timeToLiveEnabled(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') return false;
  const attribute = ttl.TimeToLiveDescription?.AttributeName;
  if (attribute !== tableDesign.timeToLiveAttribute) {
    throw new Error(`TTL is on attribute ${attribute ?? '?'}, expected ${tableDesign.timeToLiveAttribute}`);
  }
  return true;
}
