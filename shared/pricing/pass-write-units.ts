// What one pass costs in DynamoDB writes and what an object's row holds, as DynamoDB Local 2.6.1 reports it
// (ReturnConsumedCapacity INDEXES, a Query of the row) in test/integration/checkpoint/write-units.test.ts. Update
// these figures when that test's assertions change.

/** Write request units per pass, for rows up to 1 KB (a larger row costs 1 unit per started KB on the table). */
export const passWriteUnits = {
  source:
    'test/integration/checkpoint/write-units.test.ts (DynamoDB Local 2.6.1, ReturnConsumedCapacity INDEXES, 2026-11-28)',
  /** A pass that runs: one conditional UpdateItem takes the lease, one records the outcome and releases it. */
  passRunTable: 2,
  /** Per index: a settled pass (Success after Success) leaves its row out of the due index, lease included. */
  passSettledIndex: 0,
  /**
   * Per index, per pass that asks to run again (Requeue or Error): its row enters the index (1) and the pass it
   * asked for takes it out (1), or moves it when that one asks again (2 measured).
   */
  passRequeueIndex: 2,
  /** A skipped pass reads its checkpoint and writes nothing. */
  passSkipped: 0,
} as const;

/** An object's row as the same test reads it back from DynamoDB Local after a pass. */
export const objectRow = {
  /** Items per object and controller: its checkpoint and its lease share one. */
  itemsPerObject: 1,
  /**
   * Bytes DynamoDB bills for a settled Cluster's item (attribute names and values) with no owned objects recorded;
   * each owned object's generation and metadata hash add to it. Writes stay 1 unit while an item is ≤ 1 KB.
   */
  settledItemBytes: 297,
  /** Per-item overhead DynamoDB adds to the stored size (storage pricing, "Data storage"). */
  storageOverheadBytes: 100,
} as const;

/**
 * The controllers whose reconcilers reconcile Clusters (their `kinds`), so each writes one item per Cluster; the
 * others watch Clusters but keep items per object of their own kinds (ClusterResourceSets, rollouts, providers: a
 * handful). Checked against shared/controllers.ts by test/unit/pricing/compute-marginal-cost.test.ts.
 */
export const clusterControllers = ['topology'] as const;
