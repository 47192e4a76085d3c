// The end of a pass in DynamoDB: write the checkpoint and give the lease back, in one transaction.
import {
  recordCheckpointAndReleaseLease,
  type Checkpoint,
  type CheckpointKey,
  type CheckpointStore,
} from '#shared/checkpoint/index.ts';

/**
 * Records the checkpoint and releases the lease in one `TransactWriteItems` (conditional on still holding the
 * lease), so a pass that runs costs two DynamoDB write requests: the lease acquire and this.
 * Throws LeaseHeldError when the lease was lost; then nothing is written.
 *
 * @example
 * await recordCheckpointAndRelease(store, key, checkpoint, passId);
 */
export async function recordCheckpointAndRelease(
  store: CheckpointStore,
  key: CheckpointKey,
  checkpoint: Checkpoint,
  holder: string,
): Promise<void> {
  await recordCheckpointAndReleaseLease(store, key, checkpoint, holder);
}
