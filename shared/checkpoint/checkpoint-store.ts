// The handle every lease and checkpoint function takes: a DynamoDB client, the table name and retention settings.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { callWithDeadline, dependencies } from '#shared/deadline/index.ts';

export type CheckpointStore = {
  /** The low-level client, for table administration ({@link ensureTable}). */
  readonly client: DynamoDBClient;
  /**
   * The same client with plain-JavaScript marshalling, for rows. Every `send` is bounded by `callTimeoutMs` and by
   * the deadline of the pass it runs in, and fails with a DependencyTimeoutError naming DynamoDB when it is not met.
   */
  readonly documents: DynamoDBDocumentClient;
  readonly tableName: string;
  /** How long a checkpoint row outlives its last write before TTL may delete it (seconds). */
  readonly checkpointRetentionSeconds: number;
  /** The longest one DynamoDB request may take (milliseconds). */
  readonly callTimeoutMs: number;
};

export type CheckpointStoreOptions = {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Default 30 days: every pass rewrites its checkpoint, so only rows of deleted objects ever expire. */
  readonly checkpointRetentionSeconds?: number;
  /** Default 5 s: a healthy table answers in milliseconds; a frozen one must not stall the pass. */
  readonly callTimeoutMs?: number;
};

export const defaultCheckpointRetentionSeconds = 30 * 24 * 60 * 60;
export const defaultStoreCallTimeoutMs = 5_000;

/** A document client whose `send` honours the call cap and the pass deadline. */
function createBoundedDocuments(client: DynamoDBClient, callTimeoutMs: number): DynamoDBDocumentClient {
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const send = documents.send.bind(documents) as (command: unknown, options?: object) => Promise<unknown>;
  const bounded = (command: { constructor: { name: string } }, options?: object) =>
    callWithDeadline(
      dependencies.dynamoDB,
      command.constructor.name.replace(/Command$/, ''),
      callTimeoutMs,
      (abortSignal) => send(command, { ...options, abortSignal }),
    );
  // NOTE: replacing `send` on this one instance covers every row operation of the store without wrapping each call.
  documents.send = bounded as unknown as DynamoDBDocumentClient['send'];
  return documents;
}

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
  const callTimeoutMs = options.callTimeoutMs ?? defaultStoreCallTimeoutMs;
  if (!Number.isInteger(callTimeoutMs) || callTimeoutMs <= 0) {
    throw new RangeError(`callTimeoutMs must be a positive integer, got ${callTimeoutMs}`);
  }
  return {
    client: options.client,
    documents: createBoundedDocuments(options.client, callTimeoutMs),
    tableName: options.tableName,
    checkpointRetentionSeconds: retention,
    callTimeoutMs,
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
