import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { computeBinding, computeBindingWithoutCRS, formatKubeTime } from '#shared/addons/desired/binding.ts';
import type { ResourceOutcome } from '#shared/addons/desired/resource-outcome.ts';
import { binding, crs, deepFreeze } from '#test/support/fixtures/addons.ts';

const now = new Date('2024-05-06T07:08:09.123Z');
const stamp = '2024-05-06T07:08:09Z';
const cluster = deepFreeze({ metadata: { name: 'c1', namespace: 'ns' } });
const crs1 = crs('crs1', [
  { name: 'cni', kind: 'ConfigMap' },
  { name: 'db', kind: 'Secret' },
]);
const crsOwner = (name: string) => ({
  apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
  kind: 'ClusterResourceSet',
  name,
  uid: `uid-${name}`,
});

describe('computeBinding', () => {
  test('creates a binding named after the Cluster, owned by the ClusterResourceSet, with one entry per outcome', () => {
    const outcomes: ResourceOutcome[] = deepFreeze([
      { ref: { name: 'cni', kind: 'ConfigMap' }, outcome: 'Applied', hash: 'sha256:a' },
      { ref: { name: 'db', kind: 'Secret' }, outcome: 'ApplyFailed', hash: 'sha256:b', message: 'boom' },
    ]);
    assert.deepEqual(computeBinding(undefined, cluster, crs1, outcomes, now), {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSetBinding',
      metadata: { name: 'c1', namespace: 'ns', ownerReferences: [crsOwner('crs1')] },
      spec: {
        clusterName: 'c1',
        bindings: [
          {
            clusterResourceSetName: 'crs1',
            resources: [
              { name: 'cni', kind: 'ConfigMap', hash: 'sha256:a', lastAppliedTime: stamp, applied: true },
              { name: 'db', kind: 'Secret', hash: 'sha256:b', lastAppliedTime: stamp, applied: false },
            ],
          },
        ],
      },
    });
  });

  test('records unreadable data as not applied without a hash', () => {
    const got = computeBinding(
      undefined,
      cluster,
      crs1,
      deepFreeze([{ ref: { name: 'cni', kind: 'ConfigMap' }, outcome: 'Invalid', message: 'bad' }]),
      now,
    );
    assert.deepEqual(got.spec?.bindings?.[0]?.resources, [
      { name: 'cni', kind: 'ConfigMap', lastAppliedTime: stamp, applied: false },
    ]);
  });

  const untouched: ResourceOutcome['outcome'][] = [
    'Skipped',
    'NotFound',
    'WrongSecretType',
    'RetrievingResourceFailed',
  ];
  for (const outcome of untouched) {
    test(`leaves the entry of a ${outcome} resource as it was`, () => {
      const entry = {
        name: 'cni',
        kind: 'ConfigMap' as const,
        hash: 'sha256:old',
        lastAppliedTime: '2020-01-01T00:00:00Z',
        applied: true,
      };
      const current = binding(
        { clusterName: 'c1', bindings: [{ clusterResourceSetName: 'crs1', resources: [entry] }] },
        [crsOwner('crs1')],
      );
      const result = { ref: { name: 'cni', kind: 'ConfigMap' as const }, outcome, message: 'm' } as ResourceOutcome;
      assert.deepEqual(
        computeBinding(current, cluster, crs1, deepFreeze([result]), now).spec?.bindings?.[0]?.resources,
        [entry],
      );
    });
  }

  test('keeps existing order: replaces entries in place and appends new resources and ClusterResourceSets at the end', () => {
    const current = binding(
      {
        clusterName: 'c1',
        bindings: [
          { clusterResourceSetName: 'zeta', resources: [{ name: 'x', kind: 'ConfigMap', applied: true }] },
          {
            clusterResourceSetName: 'crs1',
            resources: [
              { name: 'db', kind: 'Secret', applied: false, hash: 'sha256:b0' },
              { name: 'old', kind: 'ConfigMap', applied: true },
            ],
          },
        ],
      },
      [crsOwner('zeta'), crsOwner('crs1')],
    );
    const outcomes: ResourceOutcome[] = deepFreeze([
      { ref: { name: 'cni', kind: 'ConfigMap' }, outcome: 'Applied', hash: 'sha256:a' },
      { ref: { name: 'db', kind: 'Secret' }, outcome: 'Applied', hash: 'sha256:b1' },
    ]);
    const got = computeBinding(current, cluster, crs1, outcomes, now);
    assert.deepEqual(got.metadata.ownerReferences, [crsOwner('zeta'), crsOwner('crs1')]);
    assert.deepEqual(
      got.spec?.bindings?.map((b) => [
        b.clusterResourceSetName,
        b.resources?.map((r) => `${r.kind}/${r.name}:${r.hash ?? ''}`),
      ]),
      [
        ['zeta', ['ConfigMap/x:']],
        ['crs1', ['Secret/db:sha256:b1', 'ConfigMap/old:', 'ConfigMap/cni:sha256:a']],
      ],
    );
    const third = computeBinding(got, cluster, crs('crs3', []), [], now);
    assert.deepEqual(
      third.spec?.bindings?.map((b) => b.clusterResourceSetName),
      ['zeta', 'crs1', 'crs3'],
    );
    assert.deepEqual(
      third.metadata.ownerReferences?.map((r) => r.name),
      ['zeta', 'crs1', 'crs3'],
    );
  });

  test('replaces an owner reference to the same ClusterResourceSet of another version and drops the legacy Cluster owner', () => {
    const current = binding({ bindings: [] }, [
      { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'c1', uid: 'cluster-uid' },
      {
        apiVersion: 'addons.cluster.x-k8s.io/v1alpha3',
        kind: 'ClusterResourceSet',
        name: 'crs1',
        uid: 'stale',
        controller: true,
      },
    ]);
    const got = computeBinding(current, cluster, crs1, [], now);
    assert.deepEqual(got.metadata.ownerReferences, [crsOwner('crs1')]);
    assert.equal(got.spec?.clusterName, 'c1');
    assert.deepEqual(got.spec?.bindings, [{ clusterResourceSetName: 'crs1' }]);
  });

  test('names the ClusterResourceSet owner in the version the server serves (v1beta1 up to upstream v1.10)', () => {
    const got = computeBinding(undefined, cluster, crs1, [], now, 'addons.cluster.x-k8s.io/v1beta1');
    assert.deepEqual(got.metadata.ownerReferences, [
      { ...crsOwner('crs1'), apiVersion: 'addons.cluster.x-k8s.io/v1beta1' },
    ]);
    assert.equal(got.apiVersion, 'addons.cluster.x-k8s.io/v1beta2');
  });

  test('gives the same binding when computed twice', () => {
    const outcomes: ResourceOutcome[] = deepFreeze([
      { ref: { name: 'cni', kind: 'ConfigMap' }, outcome: 'Applied', hash: 'sha256:a' },
    ]);
    assert.deepEqual(
      computeBinding(undefined, cluster, crs1, outcomes, now),
      computeBinding(undefined, cluster, crs1, outcomes, now),
    );
  });
});

describe('computeBindingWithoutCRS', () => {
  const two: ClusterResourceSetBinding = binding(
    {
      clusterName: 'c1',
      bindings: [
        { clusterResourceSetName: 'crs1', resources: [] },
        { clusterResourceSetName: 'crs2', resources: [] },
      ],
    },
    [crsOwner('crs1'), crsOwner('crs2')],
  );

  test('removes the entry and the owner reference of the deleted ClusterResourceSet', () => {
    const got = computeBindingWithoutCRS(two, 'crs1');
    assert.ok(got.action === 'update');
    assert.deepEqual(got.binding.spec?.bindings, [{ clusterResourceSetName: 'crs2', resources: [] }]);
    assert.deepEqual(got.binding.metadata.ownerReferences, [crsOwner('crs2')]);
    assert.equal(got.binding.spec?.clusterName, 'c1');
  });

  test('deletes the binding when the last ClusterResourceSet goes', () => {
    const one = binding({ clusterName: 'c1', bindings: [{ clusterResourceSetName: 'crs1' }] }, [crsOwner('crs1')]);
    assert.deepEqual(computeBindingWithoutCRS(one, 'crs1'), { action: 'delete' });
  });

  test('deletes an already empty binding, as upstream does', () => {
    assert.deepEqual(computeBindingWithoutCRS(binding({ clusterName: 'c1' }), 'crs1'), { action: 'delete' });
  });

  test('changes nothing when the ClusterResourceSet is not in the binding', () => {
    assert.deepEqual(computeBindingWithoutCRS(two, 'crs9'), { action: 'none' });
  });
});

describe('formatKubeTime', () => {
  test('writes RFC 3339 UTC with whole seconds, like metav1.Time', () => {
    assert.equal(formatKubeTime(now), stamp);
  });
});
