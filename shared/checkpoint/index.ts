// Leases and checkpoints in one DynamoDB table: who may reconcile an object now, and what its last pass saw and
// decided. The only importer of the DynamoDB SDK; everything else calls these functions.
export {
  controllers,
  defaultTableName,
  createTableInput,
  dueAttributesOf,
  dueIndex,
  dueIndexInput,
  dueShardCount,
  dueShardCountOf,
  dueShardOf,
  dueShardOfKey,
  dueShardsOf,
  parsePartitionKey,
  partitionKeyOf,
  primaryKeyOf,
  recordKinds,
  tableAttributes,
  tableDesign,
  sweepKeyOf,
  timeToLiveInput,
} from './table.ts';
export type { CheckpointKey, Controller, RecordKind } from './table.ts';
export { createCheckpointStore, createDynamoDBClient, defaultCheckpointRetentionSeconds } from './checkpoint-store.ts';
export type { CheckpointStore, CheckpointStoreOptions, DynamoDBClientOptions } from './checkpoint-store.ts';
export { ensureTable } from './ensure-table.ts';
export { CheckpointStoreError, LeaseHeldError, storeOperations } from './errors.ts';
export type { StoreOperation } from './errors.ts';
export {
  acquireLease,
  lapsedLeaseRetentionSeconds,
  leaseConditions,
  leaseExpressionNames,
  releaseLease,
  renewLease,
  requestRerun,
  rerunOfLeaseItem,
} from './lease.ts';
export type { Lease, LeaseTiming, OwnedChange, RerunRequest } from './lease.ts';
export {
  Checkpoint,
  CheckpointResult,
  NoChange,
  OwnedGenerations,
  OwnedMetadata,
  getCheckpoint,
  hasCheckpoint,
  recordCheckpoint,
} from './checkpoint.ts';
export { checkpointFields, dueAtOfCheckpoint, leaseAttributes } from './object-row.ts';
export type { RecordCheckpointOptions } from './checkpoint.ts';
export { recordCheckpointAndReleaseLease } from './record-and-release.ts';
export { computeBackoff } from './compute-backoff.ts';
export type { BackoffOptions } from './compute-backoff.ts';
export { computeAwaitedOwnedObject, computeDueReason, computeEditedOwnedObject, dueReasons, isDue } from './is-due.ts';
export type { DueFacts, DueReason } from './is-due.ts';
export {
  claimSweep,
  forgetLegacyLease,
  forgetObject,
  getCheckpoints,
  listDueObjects,
  recordSweptLists,
} from './due.ts';
export type { SweepClaim } from './due.ts';
export type { DueObject } from './due.ts';
