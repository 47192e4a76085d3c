// The cluster shim's pure half (upstream clustershim.New and reconcileClusterShim's decisions): the Secret, when a pass
// keeps or deletes it, and which owner references the InfrastructureCluster and ControlPlane carry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import {
  computeCarriedOwnerRefs,
  computeClusterShim,
  computeClusterShimAction,
  computeShimOwnedObject,
  computeShimOwnerRef,
  isClusterShimPending,
} from '#shared/topology/desired/compute-cluster-shim.ts';
import type { CurrentState, Unstructured } from '#shared/topology/types.ts';

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

const cluster = deepFreeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c', namespace: 'ns', uid: 'uid-c' },
  spec: {},
} as unknown as Cluster);

const clusterRef = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c', uid: 'uid-c' };
const adoptedRef = { ...clusterRef, controller: true, blockOwnerDeletion: true };
const shimRef = { apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: 'uid-shim' };

const object = (kind: string, ownerReferences?: object[]): Unstructured =>
  deepFreeze({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind,
    metadata: { name: `${kind.toLowerCase()}-x`, namespace: 'ns', ...(ownerReferences ? { ownerReferences } : {}) },
  } as Unstructured);

const state = (infrastructureCluster?: Unstructured, controlPlane?: Unstructured): CurrentState =>
  ({
    cluster,
    infrastructureCluster,
    controlPlane: { object: controlPlane },
    machineDeployments: {},
    machinePools: {},
  }) as CurrentState;

describe('computeClusterShim', () => {
  test("is upstream's Secret: <cluster>-shim in the Cluster's namespace, its type, owned by the Cluster, nothing else", () => {
    assert.deepEqual(computeClusterShim(cluster), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'c-shim', namespace: 'ns', ownerReferences: [clusterRef] },
      type: 'cluster.x-k8s.io/secret',
    });
  });
});

describe('computeClusterShimAction', () => {
  const cases: { name: string; current: CurrentState; action: string }[] = [
    { name: 'a new Cluster (nothing exists) ensures the shim', current: state(), action: 'ensure' },
    {
      name: 'a control plane refused at creation (only the InfrastructureCluster exists) ensures it',
      current: state(object('DevCluster', [shimRef])),
      action: 'ensure',
    },
    {
      name: 'an InfrastructureCluster deleted by hand ensures it again',
      current: state(undefined, object('KubeadmControlPlane', [adoptedRef])),
      action: 'ensure',
    },
    {
      name: 'both created, not adopted yet by the core controller: the shim stays',
      current: state(object('DevCluster', [shimRef]), object('KubeadmControlPlane', [shimRef])),
      action: 'none',
    },
    {
      name: 'only one adopted: the shim stays',
      current: state(object('DevCluster', [shimRef, adoptedRef]), object('KubeadmControlPlane', [shimRef])),
      action: 'none',
    },
    {
      name: 'both adopted while the shim still owns one: the shim is deleted',
      current: state(object('DevCluster', [shimRef, adoptedRef]), object('KubeadmControlPlane', [adoptedRef])),
      action: 'delete',
    },
    {
      name: 'both adopted and no shim reference left: nothing to do (no DELETE on every pass)',
      current: state(object('DevCluster', [adoptedRef]), object('KubeadmControlPlane', [adoptedRef])),
      action: 'none',
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      assert.equal(computeClusterShimAction(c.current), c.action);
    });
});

describe('computeCarriedOwnerRefs', () => {
  test('a new object carries none (the pass adds the shim, the core controller the Cluster)', () => {
    assert.equal(computeCarriedOwnerRefs(cluster, undefined, 'ensure'), undefined);
  });
  test("carries the shim's reference so server-side apply keeps it", () => {
    assert.deepEqual(computeCarriedOwnerRefs(cluster, object('DevCluster', [shimRef]), 'ensure'), [shimRef]);
  });
  test("drops the shim's reference in the pass that deletes the shim", () => {
    assert.equal(computeCarriedOwnerRefs(cluster, object('DevCluster', [shimRef, adoptedRef]), 'delete'), undefined);
  });
  test("never carries the core controller's adoption (it owns that reference)", () => {
    assert.equal(computeCarriedOwnerRefs(cluster, object('DevCluster', [adoptedRef]), 'none'), undefined);
  });
  test('carries a Cluster reference without the controller flag an earlier version applied', () => {
    assert.deepEqual(computeCarriedOwnerRefs(cluster, object('DevCluster', [clusterRef]), 'none'), [clusterRef]);
  });
  test("ignores another Cluster's reference and another Secret", () => {
    const other = [
      { ...clusterRef, uid: 'uid-other' },
      { ...shimRef, name: 'other-shim' },
    ];
    assert.equal(computeCarriedOwnerRefs(cluster, object('DevCluster', other), 'ensure'), undefined);
  });
});

describe('computeShimOwnedObject', () => {
  const shim = deepFreeze({ ...computeClusterShim(cluster), metadata: { name: 'c-shim', uid: 'uid-shim' } });
  test('adds the shim beside the owners the object has', () => {
    const owned = computeShimOwnedObject(object('DevCluster', [clusterRef]), computeShimOwnerRef(shim));
    assert.deepEqual(owned.metadata.ownerReferences, [clusterRef, shimRef]);
  });
  test('replaces a reference to the same shim (a new uid after it was created again)', () => {
    const owned = computeShimOwnedObject(object('DevCluster', [{ ...shimRef, uid: 'old' }]), computeShimOwnerRef(shim));
    assert.deepEqual(owned.metadata.ownerReferences, [shimRef]);
  });
});

describe('isClusterShimPending', () => {
  test('after the pass that created both objects (the shim owns them, not adopted yet)', () => {
    assert.equal(
      isClusterShimPending(state(object('DevCluster', [shimRef]), object('KubeadmControlPlane', [shimRef]))),
      true,
    );
  });
  test('while the control plane is refused', () => {
    assert.equal(isClusterShimPending(state(object('DevCluster', [shimRef]))), true);
  });
  test('not in the pass that deletes the shim, nor once its references are gone', () => {
    const adopted = [shimRef, adoptedRef];
    assert.equal(
      isClusterShimPending(state(object('DevCluster', adopted), object('KubeadmControlPlane', adopted))),
      false,
    );
    assert.equal(
      isClusterShimPending(state(object('DevCluster', [adoptedRef]), object('KubeadmControlPlane', [adoptedRef]))),
      false,
    );
  });
});
