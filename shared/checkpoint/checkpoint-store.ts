// The handle every lease and checkpoint function takes: a DynamoDB client, the table name and retention settings.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export type CheckpointStore = {
  /** The low-level client, for table administration ({@link ensureTable}). */
  readonly client: DynamoDBClient;
  /** The same client with plain-JavaScript marshalling, for rows. */
  readonly documents: DynamoDBDocumentClient;
  readonly tableName: string;
  /** How long a checkpoint row outlives its last write before TTL may delete it (seconds). */
  readonly checkpointRetentionSeconds: number;
};

export type CheckpointStoreOptions = {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Default 30 days: every pass rewrites its checkpoint, so only rows of deleted objects ever expire. */
  readonly checkpointRetentionSeconds?: number;
};

export const defaultCheckpointRetentionSeconds = 30 * 24 * 60 * 60;

/**
 * Builds the store from a client and a table name. Cheap; keep one per cold start.
 *
 * @example
 * const store = createCheckpointStore({ client: createDynamoDBClient({}), tableName: env.TABLE_NAME });
 */
export function createCheckpointStore(options: CheckpointStoreOptions): CheckpointStore {
  const retention = options.checkpointRetentionSeconds ?? defaultCheckpointRetentionSeconds;
  if (!Number.isInteger(retention) || retention <= 0) {
    throw new RangeError(`checkpointRetentionSeconds must be a positive integer, got ${retention}`);
  }
  return {
    client: options.client,
    documents: DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    tableName: options.tableName,
    checkpointRetentionSeconds: retention,
  };
}

export type DynamoDBClientOptions = {
  /** Set for DynamoDB Local or another DynamoDB-protocol server; unset on AWS. */
  readonly endpoint?: string;
  readonly region?: string;
  /** Unset on AWS (the default credential chain applies). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
};

/**
 * A DynamoDB client, so nothing outside `shared/checkpoint/` imports the SDK. Call `destroy()` when done in
 * short-lived processes (tests, CLI) so open sockets do not keep them alive.
 *
 * @example
 * const client = createDynamoDBClient({ endpoint: 'http://127.0.0.1:8000', region: 'us-east-1', credentials });
 */
export function createDynamoDBClient(options: DynamoDBClientOptions): DynamoDBClient {
  return new DynamoDBClient({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined
      ? {}
      : {
          credentials: {
            accessKeyId: options.credentials.accessKeyId,
            secretAccessKey: options.credentials.secretAccessKey,
          },
        }),
  });
}
