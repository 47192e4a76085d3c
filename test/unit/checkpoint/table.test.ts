import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createTableInput,
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
    ]);
  });

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
