// The end of a pass in DynamoDB: write the checkpoint and give the lease back, in one transaction.
import {
  recordCheckpointAndReleaseLease,
  type Checkpoint,
  type CheckpointKey,
  type CheckpointStore,
  type RerunRequest,
} from '#shared/checkpoint/index.ts';

/**
 * Records the checkpoint and releases the lease in one `TransactWriteItems` (conditional on still holding the
 * lease), so a pass that runs costs two DynamoDB write requests: the lease acquire and this. Returns the "run
 * again" request another pass left on the lease while this one ran, if any.
 * Throws LeaseHeldError when the lease was lost; then nothing is written.
 *
 * @example
 * const rerun = await recordCheckpointAndRelease(store, key, checkpoint, passId);
 */
export async function recordCheckpointAndRelease(
  store: CheckpointStore,
  key: CheckpointKey,
  checkpoint: Checkpoint,
  holder: string,
): Promise<RerunRequest | undefined> {
  return recordCheckpointAndReleaseLease(store, key, checkpoint, holder);
}
