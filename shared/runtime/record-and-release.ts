// The end of a pass in DynamoDB: write the checkpoint while still holding the lease, then give the lease back.
import {
  recordCheckpoint,
  releaseLease,
  type Checkpoint,
  type CheckpointKey,
  type CheckpointStore,
} from '#shared/checkpoint/index.ts';

/**
 * Records the checkpoint (conditional on holding the lease) and releases the lease.
 * NOTE: two write requests today (a TransactWriteItems and a DeleteItem). Issue 9's budget is ≤ 2 writes per pass
 * including the acquire, which needs the release folded into the checkpoint transaction by `shared/checkpoint/`;
 * this is the one place to switch over when it offers that.
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
  await recordCheckpoint(store, key, checkpoint, { leaseHolder: holder });
  await releaseLease(store, key, holder);
}
