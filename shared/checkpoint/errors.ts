// Errors of the checkpoint store: a lease someone else holds, and DynamoDB failures.
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { partitionKeyOf } from './table.ts';
import type { CheckpointKey } from './table.ts';

/** The operations of the store, as they read in messages (`failed to acquire lease topology#default/c1: ...`). */
export const storeOperations = {
  acquireLease: 'acquire lease',
  renewLease: 'renew lease',
  releaseLease: 'release lease',
  requestRerun: 'request a rerun',
  getCheckpoint: 'get checkpoint',
  recordCheckpoint: 'record checkpoint',
  ensureTable: 'ensure table',
  listDue: 'list due objects',
  getCheckpoints: 'get checkpoints',
  claimSweep: 'claim sweep',
  recordSweptLists: 'record swept lists',
  forgetObject: 'forget object',
} as const;
export type StoreOperation = (typeof storeOperations)[keyof typeof storeOperations];

function fieldsOf(key: CheckpointKey) {
  return key.namespace ? { namespace: key.namespace, name: key.name } : { name: key.name };
}

/**
 * A lease condition failed: another holder has the lease (acquire, renew, release), or it is gone (renew).
 * Carries the holder and expiry found in the same request, so callers can log who is busy and until when.
 */
export class LeaseHeldError extends CapiError {
  readonly operation: StoreOperation;
  readonly key: CheckpointKey;
  /** The current holder; undefined when no lease exists. */
  readonly holder: string | undefined;
  /** When the current lease lapses (epoch milliseconds); undefined when no lease exists. */
  readonly expiresAtMs: number | undefined;

  constructor(
    operation: StoreOperation,
    key: CheckpointKey,
    requester: string,
    current: { holder: string; expiresAtMs: number } | undefined,
  ) {
    const why = current
      ? `held by ${current.holder} until ${new Date(current.expiresAtMs).toISOString()}`
      : 'no lease is held';
    super(`failed to ${operation} ${partitionKeyOf(key)} for ${requester}: ${why}`, {
      ...fieldsOf(key),
      reason: 'LeaseHeld',
    });
    this.operation = operation;
    this.key = key;
    this.holder = current?.holder;
    this.expiresAtMs = current?.expiresAtMs;
  }
}

/** DynamoDB failed (or returned a row that does not parse); names the operation and the key. */
export class CheckpointStoreError extends CapiError {
  readonly operation: StoreOperation;
  readonly key: CheckpointKey | undefined;

  constructor(operation: StoreOperation, key: CheckpointKey | string, cause: unknown) {
    const target = typeof key === 'string' ? key : partitionKeyOf(key);
    super(
      `failed to ${operation} ${target}: ${errorMessage(cause)}`,
      { ...(typeof key === 'string' ? {} : fieldsOf(key)), reason: 'CheckpointStoreFailed' },
      { cause },
    );
    this.operation = operation;
    this.key = typeof key === 'string' ? undefined : key;
  }
}
