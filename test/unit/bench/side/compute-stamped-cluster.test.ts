import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeStampedCluster, computeStampedObjects } from '#test/bench/side/compute-stamped-cluster.ts';
import { computeCounterDelta, computeEstimatedSeats, computeListSeats } from '#test/bench/side/compute-seats.ts';

const deepFreeze = <T>(o: T): T => {
  if (typeof o === 'object' && o !== null) for (const v of Object.values(o)) deepFreeze(v);
  return Object.freeze(o);
};

const owner = (uid: string, kind = 'Cluster') => ({ apiVersion: 'x/v1', kind, name: 'n', uid });
const seed = deepFreeze({
  cluster: {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c-0000', namespace: 'bench', uid: 'u-cluster', resourceVersion: '9', generation: 3 },
    spec: { infrastructureRef: { name: 'c-0000-abcde' } },
    status: { phase: 'Provisioned' },
  },
  owned: [
    {
      apiVersion: 'x/v1',
      kind: 'DevMachineTemplate',
      metadata: { name: 'c-0000-tmpl', uid: 'u-tmpl', ownerReferences: [owner('u-kcp', 'KubeadmControlPlane')] },
    },
    {
      apiVersion: 'x/v1',
      kind: 'KubeadmControlPlane',
      metadata: {
        name: 'c-0000-kcp',
        uid: 'u-kcp',
        ownerReferences: [owner('u-cluster'), owner('u-shim', 'Secret')],
        managedFields: [
          { manager: 'm', fieldsV1: { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u-shim"}': {} } } } },
        ],
      },
      spec: { machineTemplate: { infrastructureRef: { name: 'c-0000-tmpl' } } },
    },
  ],
}) as { cluster: KubeObject; owned: KubeObject[] };

describe('computeStampedCluster', () => {
  test('renames the Cluster and its references, pauses it and drops what the server sets', () => {
    const c = computeStampedCluster(seed, 'c-0000', 'c-0042');
    assert.equal(c.metadata.name, 'c-0042');
    assert.deepEqual(c['spec'], { infrastructureRef: { name: 'c-0042-abcde' }, paused: true });
    assert.equal(c.metadata.uid, undefined);
    assert.equal(c.metadata.resourceVersion, undefined);
    assert.equal(c['status'], undefined);
  });

  test('refuses a name of another length than the seed', () =>
    assert.throws(() => computeStampedCluster(seed, 'c-0000', 'c-12345')));
});

describe('computeStampedObjects', () => {
  const uids = new Map([
    ['u-cluster', 'n-cluster'],
    ['u-kcp', 'n-kcp'],
  ]);
  const stamped = computeStampedObjects(seed, 'c-0000', 'c-0042');

  test('puts every owner before the objects it owns', () =>
    assert.deepEqual(
      stamped.map((s) => s.seedUid),
      ['u-kcp', 'u-tmpl'],
    ));

  test('points owner references at the new owners and leaves out the cluster shim', () => {
    const kcp = stamped[0]!.build((u) => uids.get(u) ?? '');
    assert.deepEqual(
      kcp.metadata.ownerReferences?.map((r) => r.uid),
      ['n-cluster'],
    );
    assert.equal(JSON.stringify(kcp).includes('u-shim'), false);
    assert.deepEqual(kcp['spec'], { machineTemplate: { infrastructureRef: { name: 'c-0042-tmpl' } } });
    const tmpl = stamped[1]!.build((u) => uids.get(u) ?? '');
    assert.deepEqual(
      tmpl.metadata.ownerReferences?.map((r) => r.uid),
      ['n-kcp'],
    );
  });
});

describe('flow-control seats', () => {
  for (const [objects, seats] of [
    [0, 1],
    [20, 1],
    [100, 4],
    [250, 10],
    [5_000, 10],
  ] as const)
    test(`charges a LIST over ${objects} stored objects ${seats} seats`, () =>
      assert.equal(computeListSeats(objects), seats));

  test('estimates a component’s seats from its LISTs and its other requests', () => {
    const at = '2026-01-01T00:00:01Z';
    const e = (verb: string, resource: string) => ({
      verb,
      requestURI: '/',
      user: { username: 'u' },
      objectRef: { resource, apiGroup: 'cluster.x-k8s.io' },
      requestReceivedTimestamp: at,
    });
    const seats = computeEstimatedSeats(
      [e('list', 'clusters'), e('get', 'clusters'), e('patch', 'clusters')],
      0,
      Date.parse(at) + 1,
      () => 'c',
      new Map([['clusters.cluster.x-k8s.io', 1_000]]),
    );
    assert.deepEqual(seats['c'], { requests: 3, seats: 12, listSeats: 10 });
  });

  test('takes the growth of each counter between two scrapes', () =>
    assert.deepEqual(
      computeCounterDelta('m{a="1"} 5\nm{a="2"} 7\n', 'm{a="1"} 9\nm{a="2"} 7\nm{a="3"} 1\nm_sum 4\n', 'm'),
      { '{a="1"}': 4, '{a="3"}': 1 },
    ));
});
