// The one DynamoDB table behind leases and checkpoints: keys, attribute names and its definition, in one place that
// the store, the test harness and infra/ all import. Type-only SDK imports, so importing this pulls in no SDK code.
import type { CreateTableCommandInput, UpdateTimeToLiveCommandInput } from '@aws-sdk/client-dynamodb';

/** The controllers that keep state in the table; the first segment of the partition key. */
export const controllers = ['topology', 'addons', 'providers', 'rollout'] as const;
export type Controller = (typeof controllers)[number];

/** Which object a lease or checkpoint belongs to. `namespace` is empty for cluster-scoped objects. */
export type CheckpointKey = {
  readonly controller: Controller;
  /**
   * Kind of the object. The runtime always sets it, so two kinds with the same namespace/name (a Cluster and a
   * ClusterClass, two provider kinds) never share a lease or a checkpoint.
   */
  readonly kind?: string;
  readonly namespace: string;
  readonly name: string;
};

/**
 * What a row is; the sort key. An object has one row, `checkpoint`, holding its checkpoint and its lease (see
 * object-row.ts); `lease` rows were written by the layout before that and are only read and deleted (see
 * `forgetLegacyLease`); `sweep` is a controller's sweep row.
 */
export const recordKinds = { lease: 'lease', checkpoint: 'checkpoint', sweep: 'sweep' } as const;
export type RecordKind = (typeof recordKinds)[keyof typeof recordKinds];

/** Attribute names. Everything that writes or reads the table spells them through this object. */
export const tableAttributes = {
  /** Partition key (S): `<controller>#<Kind>#<namespace>/<name>`, e.g. `topology#Cluster#default/my-cluster`. */
  pk: 'pk',
  /** Sort key (S): a {@link RecordKind}. */
  sk: 'sk',
  /** TTL (N, epoch seconds): DynamoDB deletes the row some time after this. Never used for correctness. */
  expiresAt: 'expiresAt',
  /** Lease (S): who holds it, e.g. a Lambda request id. Absent on an object's row while no lease is held. */
  holder: 'holder',
  /** Lease (N, epoch milliseconds): when the lease lapses; the conditions compare against this. */
  expiresAtMs: 'expiresAtMs',
  /** Lease (N, epoch milliseconds): when the current holder acquired it. */
  acquiredAtMs: 'acquiredAtMs',
  /**
   * Lease (BOOL): a pass that found the lease held asks the holder to run once more when it is done (a change may
   * have landed after the holder read the object). `rerunForce` / `rerunWake` (BOOL) carry the asking pass's flags.
   */
  rerun: 'rerun',
  rerunForce: 'rerunForce',
  rerunWake: 'rerunWake',
  /** Lease (SS): the owned-object changes (`Kind namespace/name@generation`) the asking passes saw. */
  rerunOwned: 'rerunOwned',
  /**
   * Due index partition key (S): `<controller>#<Kind>`, and for Clusters `<controller>#Cluster#<shard>`, the shard
   * (0 to {@link dueShardCount} - 1) a hash of the object's key. Only rows that will need a pass at a known time carry
   * it (a checkpoint after an Error or Requeue; a held lease another pass asked to run again, due when it lapses), so
   * the index is sparse and a pass that settles (Success after Success) writes it not at all. Cluster rows
   * written before sharding carry `<controller>#Cluster`; a tick queries that partition too.
   */
  dueShard: 'dueShard',
  /** Due index sort key (N, epoch milliseconds): when that pass is due. */
  dueAtMs: 'dueAtMs',
  /** Sweep row (N, epoch milliseconds): when the last sweep of the controller's kinds started. */
  lastSweepAtMs: 'lastSweepAtMs',
  /**
   * Sweep row (M, kind → S): per kind, the fingerprint of a LIST (every object's uid and generation) after which a
   * sweep left nothing undone: every listed object up to date, or in the due index.
   */
  sweptLists: 'sweptLists',
} as const;

/**
 * The sparse global secondary index a tick queries for what is due, so a tick over an idle fleet reads no
 * checkpoint one by one and sends nothing to the API server. Keys only: the object is named by the table key.
 */
export const dueIndex = {
  name: 'due',
  partitionKey: { name: tableAttributes.dueShard, type: 'S' },
  sortKey: { name: tableAttributes.dueAtMs, type: 'N' },
  projection: 'KEYS_ONLY',
} as const;

/** The table's shape, as plain data that infra/ maps onto its CDK construct and the harness onto CreateTable. */
export const tableDesign = {
  partitionKey: { name: tableAttributes.pk, type: 'S' },
  sortKey: { name: tableAttributes.sk, type: 'S' },
  billingMode: 'PAY_PER_REQUEST',
  timeToLiveAttribute: tableAttributes.expiresAt,
  globalSecondaryIndexes: [dueIndex],
} as const;

/** Default table name for local mode and tests; deployed stacks pass their own. */
export const defaultTableName = 'capi-serverless-state';

/**
 * The partition key of an object's rows.
 *
 * @example
 * partitionKeyOf({ controller: 'topology', namespace: 'default', name: 'my-cluster' }); // 'topology#default/my-cluster'
 * partitionKeyOf({ controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' }); // 'topology#Cluster#default/c1'
 */
export function partitionKeyOf(key: CheckpointKey): string {
  const object = key.namespace ? `${key.namespace}/${key.name}` : key.name;
  return key.kind ? `${key.controller}#${key.kind}#${object}` : `${key.controller}#${object}`;
}

/**
 * Partitions of the due index for the kinds whose objects grow with the fleet (Clusters). A pass that requeues or
 * fails writes the index (its row enters or moves, and leaves with the pass it asked for) and one partition takes
 * about 1,000 writes a second: one partition would cap a fleet-wide change that requeues every Cluster at 500 passes
 * a second (docs/benchmarks.md, "Scale past one machine"); 8 lift that cap above what a new on-demand table takes
 * (4,000 writes a second). A tick pays 9 Queries for Clusters instead of 1.
 */
export const dueShardCount = 8;

/** The kinds sharded over {@link dueShardCount} partitions; every other kind (a handful of objects) keeps one. */
const shardedKinds: ReadonlySet<string> = new Set(['Cluster']);

/** How many due index partitions a kind's rows spread over. */
export function dueShardCountOf(kind: string): number {
  return shardedKinds.has(kind) ? dueShardCount : 1;
}

/**
 * A due index partition of a controller's kind: shard `shard` of a sharded kind, or without one the kind's single
 * partition (every kind's before sharding, so rows written then are found).
 *
 * @example
 * dueShardOf('topology', 'Cluster', 3); // 'topology#Cluster#3'
 * dueShardOf('addons', 'ClusterResourceSet'); // 'addons#ClusterResourceSet'
 */
export function dueShardOf(controller: Controller, kind: string, shard?: number): string {
  return shard === undefined ? `${controller}#${kind}` : `${controller}#${kind}#${shard}`;
}

/**
 * Every due index partition of a controller's kind a tick queries: a sharded kind's shards, then the unsharded
 * partition (rows written before the kind was sharded); an unsharded kind's one partition.
 *
 * @example
 * dueShardsOf('topology', 'Cluster'); // ['topology#Cluster#0', …, 'topology#Cluster#7', 'topology#Cluster']
 * dueShardsOf('addons', 'ClusterResourceSet'); // ['addons#ClusterResourceSet']
 */
export function dueShardsOf(controller: Controller, kind: string): string[] {
  const count = dueShardCountOf(kind);
  if (count === 1) return [dueShardOf(controller, kind)];
  return [...Array.from({ length: count }, (_, i) => dueShardOf(controller, kind, i)), dueShardOf(controller, kind)];
}

/**
 * The due index partition of an object's rows: for a sharded kind FNV-1a (32 bit) of its partition key modulo the
 * shard count, so an object's checkpoint and lease rows share it and a fleet spreads evenly.
 *
 * @example
 * dueShardOfKey({ controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' }); // 'topology#Cluster#<0..7>'
 */
export function dueShardOfKey(key: CheckpointKey & { readonly kind: string }): string {
  const count = dueShardCountOf(key.kind);
  if (count === 1) return dueShardOf(key.controller, key.kind);
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(partitionKeyOf(key), 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return dueShardOf(key.controller, key.kind, hash % count);
}

/**
 * The key of the row a partition key names, or undefined when it is not an object's (the sweep row).
 *
 * @example
 * parsePartitionKey('topology#Cluster#default/c1'); // { controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' }
 */
export function parsePartitionKey(pk: string): Required<CheckpointKey> | undefined {
  const match = /^([^#]+)#([^#]+)#(?:([^/]*)\/)?(.+)$/.exec(pk);
  if (!match) return undefined;
  const controller = controllers.find((c) => c === match[1]);
  if (controller === undefined) return undefined;
  return { controller, kind: match[2] ?? '', namespace: match[3] ?? '', name: match[4] ?? '' };
}

/** The key of a controller's sweep row (one per controller: when its kinds were last listed). */
export function sweepKeyOf(controller: Controller): CheckpointKey {
  return { controller, kind: 'Sweep', namespace: '', name: 'kinds' };
}

/**
 * The due index attributes of a row due at `dueAtMs`, or none for a key without a kind (never indexed).
 *
 * @example
 * dueAttributesOf({ controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' }, 1700000000000);
 * // { dueShard: 'topology#Cluster#<0..7>', dueAtMs: 1700000000000 }
 */
export function dueAttributesOf(key: CheckpointKey, dueAtMs: number | undefined): Record<string, string | number> {
  if (key.kind === undefined || dueAtMs === undefined) return {};
  return {
    [tableAttributes.dueShard]: dueShardOfKey({ ...key, kind: key.kind }),
    [tableAttributes.dueAtMs]: dueAtMs,
  };
}

/** The primary key of one row. */
export function primaryKeyOf(key: CheckpointKey, kind: RecordKind): Record<string, string> {
  return { [tableAttributes.pk]: partitionKeyOf(key), [tableAttributes.sk]: kind };
}

/**
 * CreateTable input for the table: on-demand billing, string partition and sort keys.
 * TTL cannot be set by CreateTable; see {@link timeToLiveInput}.
 *
 * @example
 * await client.send(new CreateTableCommand(createTableInput('capi-serverless-state')));
 */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: tableDesign.billingMode,
    AttributeDefinitions: [
      { AttributeName: tableDesign.partitionKey.name, AttributeType: tableDesign.partitionKey.type },
      { AttributeName: tableDesign.sortKey.name, AttributeType: tableDesign.sortKey.type },
      { AttributeName: dueIndex.partitionKey.name, AttributeType: dueIndex.partitionKey.type },
      { AttributeName: dueIndex.sortKey.name, AttributeType: dueIndex.sortKey.type },
    ],
    KeySchema: [
      { AttributeName: tableDesign.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: tableDesign.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [dueIndexInput()],
  };
}

/** The due index as CreateTable / UpdateTable take it. */
export function dueIndexInput(): NonNullable<CreateTableCommandInput['GlobalSecondaryIndexes']>[number] {
  return {
    IndexName: dueIndex.name,
    KeySchema: [
      { AttributeName: dueIndex.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: dueIndex.sortKey.name, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: dueIndex.projection },
  };
}

/** UpdateTimeToLive input that turns on TTL for {@link tableAttributes.expiresAt}. */
export function timeToLiveInput(tableName: string): UpdateTimeToLiveCommandInput {
  return {
    TableName: tableName,
    TimeToLiveSpecification: { AttributeName: tableDesign.timeToLiveAttribute, Enabled: true },
  };
}
