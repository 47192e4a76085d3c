import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createTableInput,
  dueAttributesOf,
  dueIndex,
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
  test('puts a row with a kind and a due time in its controller and kind shard', () => {
    assert.deepEqual(dueAttributesOf(key, 42), { dueShard: 'topology#Cluster', dueAtMs: 42 });
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
