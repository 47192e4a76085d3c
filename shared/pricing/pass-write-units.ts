// What one pass costs in DynamoDB writes, as DynamoDB Local 2.6.1 reports it (ReturnConsumedCapacity INDEXES) in
// test/integration/checkpoint/write-units.test.ts. Update these figures when that test's assertions change.

/** Write request units per pass, for rows up to 1 KB (a larger row costs 1 unit per started KB on the table). */
export const passWriteUnits = {
  source:
    'test/integration/checkpoint/write-units.test.ts (DynamoDB Local 2.6.1, ReturnConsumedCapacity INDEXES, 2026-11-28)',
  /** A pass that runs: one conditional UpdateItem takes the lease, one records the outcome and releases it. */
  passRunTable: 2,
  /** Per index: the row enters the due index with its lease and leaves it with a Success. */
  passRunIndex: 2,
  /** Per index, on top of a pass that runs: a failed pass's row moves to its retry time (3 against 2 measured). */
  passErrorIndex: 1,
  /** A skipped pass reads its checkpoint and writes nothing. */
  passSkipped: 0,
} as const;
