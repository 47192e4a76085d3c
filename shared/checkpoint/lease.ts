// Leases: one holder per object at a time, through conditional writes on the lease attributes of the object's row
// (the row that also holds its checkpoint, see object-row.ts).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '#shared/errors/index.ts';
import { Checkpoint, CheckpointResult, hasCheckpoint } from './checkpoint.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { CheckpointStoreError, LeaseHeldError, storeOperations } from './errors.ts';
import type { StoreOperation } from './errors.ts';
import { dueAtOfCheckpoint, leaseAttributes, updateExpressionOf } from './object-row.ts';
import { dueAttributesOf, primaryKeyOf, recordKinds, tableAttributes } from './table.ts';
import type { CheckpointKey } from './table.ts';

/** A lease as stored. Times are epoch milliseconds. */
export type Lease = {
  readonly key: CheckpointKey;
  readonly holder: string;
  readonly acquiredAtMs: number;
  readonly expiresAtMs: number;
  /**
   * The holder whose lapsed lease this one replaced: its pass died without recording its checkpoint (a pass that
   * ends deletes the lease row), so it may have written objects the checkpoint does not name. Set by `acquireLease`.
   */
  readonly lapsedHolder?: string;
  /**
   * The object's checkpoint as it was when the lease was taken (the row the lease write replaced, so strongly
   * consistent): `checkpoint` undefined when there was none. Absent when the stored row did not parse.
   */
  readonly atLease?: { readonly checkpoint: Checkpoint | undefined };
};

export type LeaseTiming = {
  /** How long the lease lasts from `now`; keep it above the Lambda timeout. */
  readonly ttlMs: number;
  /** The caller's clock (epoch milliseconds); the edge passes it in. */
  readonly now: number;
};

/**
 * The named conditions of lease writes. They use the placeholders of {@link leaseExpressionNames} and
 * `:now` / `:holder` for values.
 */
export const leaseConditions = {
  /** No lease on the object's row (or no row yet). */
  leaseFree: 'attribute_not_exists(#holder)',
  /** The lease row exists but lapsed before `now`. */
  leaseExpired: '#expiresAtMs < :now',
  /** The caller already holds the lease. */
  ownLease: '#holder = :holder',
} as const;

export const leaseExpressionNames = {
  '#holder': tableAttributes.holder,
  '#expiresAtMs': tableAttributes.expiresAtMs,
} as const;

const acquireCondition = `${leaseConditions.leaseFree} OR ${leaseConditions.leaseExpired} OR ${leaseConditions.ownLease}`;

/**
 * Takes the lease when it is free, lapsed, or already ours. Throws {@link LeaseHeldError} carrying the current
 * holder when someone else holds it, in the same request (ReturnValuesOnConditionCheckFailure).
 *
 * @example
 * const lease = await acquireLease(store, key, context.awsRequestId, { ttlMs: 15 * 60_000, now: Date.now() });
 */
export async function acquireLease(
  store: CheckpointStore,
  key: CheckpointKey,
  holder: string,
  timing: LeaseTiming,
): Promise<Lease> {
  checkLeaseArguments(holder, timing);
  const lease: Lease = { key, holder, acquiredAtMs: timing.now, expiresAtMs: timing.now + timing.ttlMs };
  const rerunNames = leaseAttributes.slice(3);
  // NOTE: taking a lease writes no due index attribute: a settled row stays out of the index for its whole pass, so
  // a pass that ends in a Success writes the index not at all. A pass that dies holding the lease is found by the
  // pass that finds it held (Lambda retries a failed invocation while the lease lives): asking for a rerun puts the
  // row in the index at the lease's expiry (see requestRerun). A row already in the index keeps its due time.
  const output = await writeLease(storeOperations.acquireLease, key, holder, () =>
    store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: updateExpressionOf(
          [
            '#holder = :holder',
            '#acquiredAtMs = :now',
            '#expiresAtMs = :expiresAtMs',
            // NOTE: never before the lease lapses, and never shorter than a checkpoint's retention.
            '#expiresAt = :expiresAt',
          ],
          rerunNames.map((_, i) => `#r${i}`),
        ),
        ConditionExpression: acquireCondition,
        ExpressionAttributeNames: {
          ...leaseExpressionNames,
          '#acquiredAtMs': tableAttributes.acquiredAtMs,
          '#expiresAt': tableAttributes.expiresAt,
          ...Object.fromEntries(rerunNames.map((name, i) => [`#r${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':now': timing.now,
          ':holder': holder,
          ':expiresAtMs': lease.expiresAtMs,
          ':expiresAt': Math.max(
            ttlSecondsOf(lease.expiresAtMs),
            Math.floor(timing.now / 1000) + store.checkpointRetentionSeconds,
          ),
        },
        // NOTE: the replaced row's lease, if any: a lapsed lease of another holder is a pass that died before recording.
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  const replaced = leaseOfReturnedItem(output.Attributes)?.holder;
  const atLease = atLeaseOfRow(output.Attributes);
  return {
    ...lease,
    ...(replaced === undefined || replaced === holder ? {} : { lapsedHolder: replaced }),
    ...(atLease === undefined ? {} : { atLease }),
  };
}

/** The checkpoint on a row the lease write returned; undefined when the row holds one that does not parse. */
function atLeaseOfRow(
  item: Record<string, unknown> | undefined,
): { readonly checkpoint: Checkpoint | undefined } | undefined {
  if (item === undefined || !hasCheckpoint(item)) return { checkpoint: undefined };
  const parsed = Checkpoint.safeParse(item);
  return parsed.success ? { checkpoint: parsed.data } : undefined;
}

/**
 * Extends a lease the caller holds to `now + ttlMs`. A lapsed lease that nobody took is still the caller's.
 * Throws {@link LeaseHeldError} when another holder has it or no lease exists.
 *
 * @example
 * await renewLease(store, key, holder, { ttlMs: 15 * 60_000, now: Date.now() });
 */
export async function renewLease(
  store: CheckpointStore,
  key: CheckpointKey,
  holder: string,
  timing: LeaseTiming,
): Promise<Lease> {
  checkLeaseArguments(holder, timing);
  const expiresAtMs = timing.now + timing.ttlMs;
  // NOTE: no due index write: a row in the index for a rerun request is found at the old expiry with its lease live,
  // and the pass the tick starts then asks the holder to run again, which it was asked already.
  const output = await writeLease(storeOperations.renewLease, key, holder, () =>
    store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: 'SET #expiresAtMs = :expiresAtMs, #expiresAt = :expiresAt',
        ConditionExpression: leaseConditions.ownLease,
        ExpressionAttributeNames: {
          '#holder': leaseExpressionNames['#holder'],
          '#expiresAtMs': leaseExpressionNames['#expiresAtMs'],
          '#expiresAt': tableAttributes.expiresAt,
        },
        ExpressionAttributeValues: {
          ':holder': holder,
          ':expiresAtMs': expiresAtMs,
          ':expiresAt': Math.max(
            ttlSecondsOf(expiresAtMs),
            Math.floor(timing.now / 1000) + store.checkpointRetentionSeconds,
          ),
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  const acquiredAtMs = output.Attributes?.[tableAttributes.acquiredAtMs];
  return { key, holder, acquiredAtMs: typeof acquiredAtMs === 'number' ? acquiredAtMs : timing.now, expiresAtMs };
}

/**
 * An event's word that an owned object changed: its `Kind namespace/name`, the generation it saw and, when the
 * forwarder sent it, the hash of its labels and annotations.
 */
export type OwnedChange = {
  readonly object: string;
  readonly generation: number;
  readonly metadata?: string | undefined;
};

/**
 * What a pass that found the lease held asks of the holder: one more pass once it is done, with the asking pass's
 * flags (a forced or woken pass must not become a plain one, which the checkpoint could skip).
 */
export type RerunRequest = {
  readonly force: boolean;
  readonly wake: boolean;
  /**
   * The owned-object changes the asking passes saw (see `computeEditedOwnedObject`): the rerun judges them against
   * the checkpoint the holder records, so the event of the holder's own write brings no pass. Absent when none.
   */
  readonly owned?: readonly OwnedChange[];
};

/**
 * How an owned change is kept in the lease row's string set: `Kind namespace/name@generation`, `#<metadata hash>`
 * after it when the change has one (base64url: no `@` or `#`).
 */
const encodeOwnedChange = (c: OwnedChange) =>
  `${c.object}@${c.generation}${c.metadata === undefined ? '' : `#${c.metadata}`}`;
function decodeOwnedChange(entry: string): OwnedChange | undefined {
  const at = entry.lastIndexOf('@');
  const [version = '', metadata] = entry.slice(at + 1).split('#');
  const generation = version === '' ? Number.NaN : Number(version);
  if (!(at > 0 && Number.isInteger(generation))) return undefined;
  return { object: entry.slice(0, at), generation, ...(metadata ? { metadata } : {}) };
}

/**
 * Marks a held lease "run again" (one conditional write), so that its holder runs one more pass before it lets go:
 * a change that landed after the holder read the object is then not left to the next sweep. Flags only ever turn
 * on. Returns false when no live lease exists any more (the holder released it meanwhile): take the lease instead.
 *
 * @example
 * if (!(await requestRerun(store, key, { force: false, wake: true }, Date.now()))) await acquireLease(...);
 */
export async function requestRerun(
  store: CheckpointStore,
  key: CheckpointKey,
  request: RerunRequest,
  now: number,
): Promise<boolean> {
  const due = dueAttributesOf(key, 0);
  const indexed = Object.keys(due).length > 0;
  const sets = [
    '#rerun = :true',
    ...(request.force ? ['#rerunForce = :true'] : []),
    ...(request.wake ? ['#rerunWake = :true'] : []),
    // NOTE: the row enters the due index at the lease's expiry (unless it is in it already): if the holder died
    // (this is how a retried invocation meets its own dead pass), the tick finds the lease lapsed. A holder that
    // ends records its checkpoint, which sets or removes the due attributes.
    ...(indexed
      ? ['#dueShard = if_not_exists(#dueShard, :dueShard)', '#dueAtMs = if_not_exists(#dueAtMs, #expiresAtMs)']
      : []),
  ];
  const owned = request.owned ?? [];
  // NOTE: ADD to a string set: changes asked for by several passes while the holder runs are all kept.
  const add = owned.length > 0 ? ' ADD #rerunOwned :owned' : '';
  try {
    await store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: `SET ${sets.join(', ')}${add}`,
        ConditionExpression: `attribute_exists(#holder) AND NOT (${leaseConditions.leaseExpired})`,
        ExpressionAttributeNames: {
          '#holder': leaseExpressionNames['#holder'],
          '#expiresAtMs': leaseExpressionNames['#expiresAtMs'],
          '#rerun': tableAttributes.rerun,
          ...(request.force ? { '#rerunForce': tableAttributes.rerunForce } : {}),
          ...(request.wake ? { '#rerunWake': tableAttributes.rerunWake } : {}),
          ...(owned.length > 0 ? { '#rerunOwned': tableAttributes.rerunOwned } : {}),
          ...(indexed ? { '#dueShard': tableAttributes.dueShard, '#dueAtMs': tableAttributes.dueAtMs } : {}),
        },
        ExpressionAttributeValues: {
          ':true': true,
          ':now': now,
          ...(indexed ? { ':dueShard': due[tableAttributes.dueShard] } : {}),
          ...(owned.length > 0 ? { ':owned': new Set(owned.map(encodeOwnedChange)) } : {}),
        },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw new CheckpointStoreError(storeOperations.requestRerun, key, err);
  }
}

/**
 * The "run again" request stored on a lease row (document or wire format, as returned by a Delete or a failed
 * condition), or undefined when none was made.
 */
export function rerunOfLeaseItem(item: unknown): RerunRequest | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as Record<string, unknown>;
  const flag = (name: string): boolean => {
    const value = record[name];
    return (
      value === true || (typeof value === 'object' && value !== null && (value as { BOOL?: unknown }).BOOL === true)
    );
  };
  if (!flag(tableAttributes.rerun)) return undefined;
  // NOTE: a string set is a Set in document format and { SS: [...] } in wire format.
  const set = record[tableAttributes.rerunOwned];
  const entries =
    set instanceof Set
      ? [...(set as Set<unknown>)]
      : typeof set === 'object' && set !== null && Array.isArray((set as { SS?: unknown }).SS)
        ? (set as { SS: unknown[] }).SS
        : [];
  const owned = entries.flatMap((e) => {
    const change = typeof e === 'string' ? decodeOwnedChange(e) : undefined;
    return change === undefined ? [] : [change];
  });
  return {
    force: flag(tableAttributes.rerunForce),
    wake: flag(tableAttributes.rerunWake),
    ...(owned.length > 0 ? { owned } : {}),
  };
}

/**
 * Gives up a lease the caller holds, without recording a checkpoint, and returns the "run again" request another
 * pass left on it, if any. The row goes back to the due time of the checkpoint it holds (a second write, only when
 * that differs from the lease's). Releasing a lease that no longer exists is a no-op; one held by someone else throws
 * {@link LeaseHeldError}.
 *
 * @example
 * const rerun = await releaseLease(store, key, holder);
 */
export async function releaseLease(
  store: CheckpointStore,
  key: CheckpointKey,
  holder: string,
): Promise<RerunRequest | undefined> {
  checkHolder(holder);
  let old: Record<string, unknown> | undefined;
  try {
    const output = await writeLease(storeOperations.releaseLease, key, holder, () =>
      store.documents.send(
        new UpdateCommand({
          TableName: store.tableName,
          Key: primaryKeyOf(key, recordKinds.checkpoint),
          UpdateExpression: updateExpressionOf(
            [],
            leaseAttributes.map((_, i) => `#l${i}`),
          ),
          ConditionExpression: leaseConditions.ownLease,
          ExpressionAttributeNames: {
            ...Object.fromEntries(leaseAttributes.map((name, i) => [`#l${i}`, name])),
            '#holder': leaseExpressionNames['#holder'],
          },
          ExpressionAttributeValues: { ':holder': holder },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    old = output.Attributes;
  } catch (err) {
    if (err instanceof LeaseHeldError && err.holder === undefined) return undefined;
    throw err;
  }
  await restoreCheckpointDue(store, key, old);
  return rerunOfLeaseItem(old);
}

/**
 * Puts a row whose lease was released without a checkpoint back at its checkpoint's due time (out of the index after
 * a Success), unless a new holder or recording moved it meanwhile.
 */
async function restoreCheckpointDue(
  store: CheckpointStore,
  key: CheckpointKey,
  old: Record<string, unknown> | undefined,
): Promise<void> {
  if (key.kind === undefined || old === undefined) return;
  const result = CheckpointResult.safeParse(old['result']);
  const nextAttemptAt = old['nextAttemptAt'];
  const checkpoint = result.success
    ? { result: result.data, ...(typeof nextAttemptAt === 'number' ? { nextAttemptAt } : {}) }
    : undefined;
  const wanted = dueAttributesOf(key, dueAtOfCheckpoint(checkpoint));
  const current = old[tableAttributes.dueAtMs];
  if (current === wanted[tableAttributes.dueAtMs]) return;
  const indexed = wanted[tableAttributes.dueAtMs] !== undefined;
  try {
    await store.documents.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: primaryKeyOf(key, recordKinds.checkpoint),
        UpdateExpression: indexed ? 'SET #dueShard = :dueShard, #dueAtMs = :dueAtMs' : 'REMOVE #dueShard, #dueAtMs',
        ConditionExpression: `attribute_not_exists(#holder) AND ${current === undefined ? 'attribute_not_exists(#dueAtMs)' : '#dueAtMs = :current'}`,
        ExpressionAttributeNames: {
          '#holder': tableAttributes.holder,
          '#dueShard': tableAttributes.dueShard,
          '#dueAtMs': tableAttributes.dueAtMs,
        },
        ...(indexed || current !== undefined
          ? {
              ExpressionAttributeValues: {
                ...(indexed
                  ? { ':dueShard': wanted[tableAttributes.dueShard], ':dueAtMs': wanted[tableAttributes.dueAtMs] }
                  : {}),
                ...(current === undefined ? {} : { ':current': current }),
              },
            }
          : {}),
      }),
    );
  } catch (err) {
    // NOTE: another pass took the lease or recorded meanwhile; its write set the due time.
    if (err instanceof ConditionalCheckFailedException) return;
    throw new CheckpointStoreError(storeOperations.releaseLease, key, err);
  }
}

/** Runs one conditional write, mapping a failed condition to LeaseHeldError and anything else to CheckpointStoreError. */
async function writeLease<T>(
  operation: StoreOperation,
  key: CheckpointKey,
  holder: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) {
      throw new LeaseHeldError(operation, key, holder, leaseOfReturnedItem(err.Item));
    }
    throw new CheckpointStoreError(operation, key, err);
  }
}

/**
 * The holder and expiry of the row returned with a failed condition. The SDK returns it in wire format
 * (`{ holder: { S: 'x' } }`) even through the document client; plain values are accepted too.
 */
export function leaseOfReturnedItem(item: unknown): { holder: string; expiresAtMs: number } | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as Record<string, unknown>;
  const holder = scalarOf(record[tableAttributes.holder]);
  const expiresAtMs = Number(scalarOf(record[tableAttributes.expiresAtMs]));
  if (holder === undefined || !Number.isFinite(expiresAtMs)) return undefined;
  return { holder, expiresAtMs };
}

function scalarOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const wire = value as { S?: unknown; N?: unknown };
    if (typeof wire.S === 'string') return wire.S;
    if (typeof wire.N === 'string') return wire.N;
  }
  return undefined;
}

/**
 * How long a lapsed lease row outlives its lease before DynamoDB's TTL may remove it: the row is how the next pass
 * (`lapsedHolder`) and the tick learn that a pass died before recording, so it must not vanish first.
 */
export const lapsedLeaseRetentionSeconds = 24 * 3600;

/** TTL is in whole seconds; round up, and keep the row {@link lapsedLeaseRetentionSeconds} past the lease. */
function ttlSecondsOf(epochMs: number): number {
  return Math.ceil(epochMs / 1000) + lapsedLeaseRetentionSeconds;
}

function checkHolder(holder: string): void {
  if (holder.length === 0) {
    throw new ValidationError('lease holder must not be empty', { fieldPath: 'holder', reason: 'InvalidLease' });
  }
}

function checkLeaseArguments(holder: string, timing: LeaseTiming): void {
  checkHolder(holder);
  if (!Number.isSafeInteger(timing.ttlMs) || timing.ttlMs <= 0) {
    throw new ValidationError(`lease ttlMs must be a positive integer, got ${timing.ttlMs}`, {
      fieldPath: 'ttlMs',
      reason: 'InvalidLease',
    });
  }
  if (!Number.isSafeInteger(timing.now) || timing.now < 0) {
    throw new ValidationError(`lease time must be epoch milliseconds, got ${timing.now}`, {
      fieldPath: 'now',
      reason: 'InvalidLease',
    });
  }
}
