// The one DynamoDB table behind leases and checkpoints: keys, attribute names and its definition, in one place that
// the store, the test harness and infra/ all import. Type-only SDK imports, so importing this pulls in no SDK code.
import type { CreateTableCommandInput, UpdateTimeToLiveCommandInput } from '@aws-sdk/client-dynamodb';

/** The controllers that keep state in the table; the first segment of the partition key. */
export const controllers = ['topology', 'addons', 'providers'] as const;
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

/** What a row is; the sort key. Each object has at most one row of each kind. */
export const recordKinds = { lease: 'lease', checkpoint: 'checkpoint' } as const;
export type RecordKind = (typeof recordKinds)[keyof typeof recordKinds];

/** Attribute names. Everything that writes or reads the table spells them through this object. */
export const tableAttributes = {
  /** Partition key (S): `<controller>#<Kind>#<namespace>/<name>`, e.g. `topology#Cluster#default/my-cluster`. */
  pk: 'pk',
  /** Sort key (S): a {@link RecordKind}. */
  sk: 'sk',
  /** TTL (N, epoch seconds): DynamoDB deletes the row some time after this. Never used for correctness. */
  expiresAt: 'expiresAt',
  /** Lease (S): who holds it, e.g. a Lambda request id. */
  holder: 'holder',
  /** Lease (N, epoch milliseconds): when the lease lapses; the conditions compare against this. */
  expiresAtMs: 'expiresAtMs',
  /** Lease (N, epoch milliseconds): when the current holder acquired it. */
  acquiredAtMs: 'acquiredAtMs',
} as const;

/** The table's shape, as plain data that infra/ maps onto its CDK construct and the harness onto CreateTable. */
export const tableDesign = {
  partitionKey: { name: tableAttributes.pk, type: 'S' },
  sortKey: { name: tableAttributes.sk, type: 'S' },
  billingMode: 'PAY_PER_REQUEST',
  timeToLiveAttribute: tableAttributes.expiresAt,
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
    ],
    KeySchema: [
      { AttributeName: tableDesign.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: tableDesign.sortKey.name, KeyType: 'RANGE' },
    ],
  };
}

/** UpdateTimeToLive input that turns on TTL for {@link tableAttributes.expiresAt}. */
export function timeToLiveInput(tableName: string): UpdateTimeToLiveCommandInput {
  return {
    TableName: tableName,
    TimeToLiveSpecification: { AttributeName: tableDesign.timeToLiveAttribute, Enabled: true },
  };
}
