import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createTableInput,
  dueAttributesOf,
  dueIndex,
  dueShardCount,
  dueShardCountOf,
  dueShardOf,
  dueShardOfKey,
  dueShardsOf,
  parsePartitionKey,
  partitionKeyOf,
  primaryKeyOf,
  tableAttributes,
  tableDesign,
  timeToLiveInput,
} from '#shared/checkpoint/table.ts';
import type { CheckpointKey } from '#shared/checkpoint/table.ts';

describe('partitionKeyOf', () => {
  const cases: { name: string; key: CheckpointKey; want: string }[] = [
    {
      name: 'joins controller, namespace and name',
      key: { controller: 'topology', namespace: 'default', name: 'my-cluster' },
      want: 'topology#default/my-cluster',
    },
    {
      name: 'leaves the namespace out for a cluster-scoped object',
      key: { controller: 'providers', namespace: '', name: 'cluster-api' },
      want: 'providers#cluster-api',
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(partitionKeyOf(Object.freeze(c.key)), c.want));
  }

  test('puts the record kind in the sort key', () => {
    assert.deepEqual(primaryKeyOf({ controller: 'addons', namespace: 'ns', name: 'crs' }, 'checkpoint'), {
      pk: 'addons#ns/crs',
      sk: 'checkpoint',
    });
  });
});

describe('table definition', () => {
  test('creates an on-demand table keyed by the key attributes', () => {
    const input = createTableInput('t');
    assert.equal(input.BillingMode, 'PAY_PER_REQUEST');
    assert.deepEqual(input.KeySchema, [
      { AttributeName: tableAttributes.pk, KeyType: 'HASH' },
      { AttributeName: tableAttributes.sk, KeyType: 'RANGE' },
    ]);
    assert.deepEqual(input.AttributeDefinitions, [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'dueShard', AttributeType: 'S' },
      { AttributeName: 'dueAtMs', AttributeType: 'N' },
    ]);
  });

  test('has a keys-only due index by controller and kind, sorted by due time', () => {
    assert.deepEqual(createTableInput('t').GlobalSecondaryIndexes, [
      {
        IndexName: 'due',
        KeySchema: [
          { AttributeName: 'dueShard', KeyType: 'HASH' },
          { AttributeName: 'dueAtMs', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    assert.equal(dueIndex.name, 'due');
  });
});

describe('due index attributes', () => {
  const key = Object.freeze({ controller: 'topology', kind: 'Cluster', namespace: 'default', name: 'c1' } as const);
  const shardOf = (name: string) => Number(/#(\d)$/.exec(dueShardOfKey({ ...key, name }))?.[1]);
  test('puts a Cluster row with a due time in its controller and kind, in the shard its key hashes to', () => {
    const shard = dueShardOfKey(key);
    assert.match(shard, new RegExp(`^topology#Cluster#[0-${dueShardCount - 1}]$`));
    assert.deepEqual(dueAttributesOf(key, 42), { dueShard: shard, dueAtMs: 42 });
  });
  test('the shard depends only on the object: its checkpoint and lease rows share it, whatever the due time', () => {
    assert.equal(dueAttributesOf(key, 1)['dueShard'], dueAttributesOf({ ...key }, 2)['dueShard']);
  });
  test('spreads a fleet over every shard (1,000 Clusters: each shard within 40 % of an even share)', () => {
    const counts = new Array<number>(dueShardCount).fill(0);
    for (let i = 0; i < 1_000; i++) counts[shardOf(`c-${String(i).padStart(4, '0')}`)]! += 1;
    const even = 1_000 / dueShardCount;
    for (const [shard, count] of counts.entries())
      assert.ok(count > even * 0.6 && count < even * 1.4, `shard ${shard} holds ${count} of 1,000`);
  });
  test('a tick queries every Cluster shard, then the partition of rows written before sharding', () => {
    const shards = dueShardsOf('topology', 'Cluster');
    assert.equal(shards.length, dueShardCount + 1);
    assert.equal(shards[0], 'topology#Cluster#0');
    assert.equal(shards[dueShardCount - 1], `topology#Cluster#${dueShardCount - 1}`);
    assert.equal(shards[dueShardCount], 'topology#Cluster');
  });
  test('a kind of a handful of objects keeps one partition, as before sharding', () => {
    const crs = { controller: 'addons', kind: 'ClusterResourceSet', namespace: 'default', name: 'crs' } as const;
    assert.equal(dueShardCountOf('ClusterResourceSet'), 1);
    assert.deepEqual(dueShardsOf('addons', 'ClusterResourceSet'), ['addons#ClusterResourceSet']);
    assert.deepEqual(dueAttributesOf(crs, 42), { dueShard: 'addons#ClusterResourceSet', dueAtMs: 42 });
    assert.equal(dueShardOf('addons', 'ClusterResourceSet'), 'addons#ClusterResourceSet');
  });
  test('leaves a row without a due time out of the index', () => {
    assert.deepEqual(dueAttributesOf(key, undefined), {});
  });
  test('leaves a row without a kind out of the index', () => {
    assert.deepEqual(dueAttributesOf({ controller: 'addons', namespace: 'n', name: 'x' }, 42), {});
  });
  const parses: { pk: string; want: Required<CheckpointKey> | undefined }[] = [
    { pk: 'topology#Cluster#default/c1', want: key },
    {
      pk: 'providers#CoreProvider#capi-system/cluster-api',
      want: { controller: 'providers', kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' },
    },
    {
      pk: 'addons#ClusterRole#admin',
      want: { controller: 'addons', kind: 'ClusterRole', namespace: '', name: 'admin' },
    },
    { pk: 'nobody#Cluster#default/c1', want: undefined },
    { pk: 'topology#default/c1', want: undefined },
  ];
  for (const c of parses) {
    test(`reads the object back from partition key ${c.pk}`, () => {
      assert.deepEqual(parsePartitionKey(c.pk), c.want);
      if (c.want) assert.equal(partitionKeyOf(c.want), c.pk);
    });
  }

  test('turns TTL on for the expiresAt attribute', () => {
    assert.deepEqual(timeToLiveInput('t'), {
      TableName: 't',
      TimeToLiveSpecification: { AttributeName: tableDesign.timeToLiveAttribute, Enabled: true },
    });
    assert.equal(tableDesign.timeToLiveAttribute, 'expiresAt');
  });
});

describe('partitionKeyOf with a kind', () => {
  test('keeps two kinds with the same namespace/name apart', () => {
    const cluster = partitionKeyOf({
      controller: 'topology',
      kind: 'Cluster',
      namespace: 'default',
      name: 'quick-start',
    });
    const clusterClass = partitionKeyOf({
      controller: 'topology',
      kind: 'ClusterClass',
      namespace: 'default',
      name: 'quick-start',
    });
    assert.equal(cluster, 'topology#Cluster#default/quick-start');
    assert.notEqual(cluster, clusterClass);
  });
});
