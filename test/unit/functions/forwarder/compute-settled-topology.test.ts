import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import { isOwnedChangeNeeded, isTopologySettled } from '#functions/forwarder/compute-settled-topology.ts';
import { computeTopologyOwnedFact, isStatusOnlyChange } from '#functions/forwarder/watch-kind.ts';

type Condition = { type: string; status: string; observedGeneration?: number; reason?: string };

const cluster = (conditions: Condition[], metadata: Record<string, unknown> = {}): KubeObject =>
  Object.freeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'default', name: 'c1', generation: 3, ...metadata },
    status: { conditions },
  }) as KubeObject;

const reconciled = (status: string, observedGeneration = 3, reason = 'ReconcileSucceeded'): Condition => ({
  type: 'TopologyReconciled',
  status,
  observedGeneration,
  reason,
});
const cpInitialized = (status: string): Condition => ({ type: 'ControlPlaneInitialized', status });

describe('isTopologySettled', () => {
  const cases: [string, KubeObject, boolean][] = [
    [
      'is settled when TopologyReconciled is True for its generation and the control plane is initialized',
      cluster([reconciled('True'), cpInitialized('True')]),
      true,
    ],
    [
      'is not settled while an upgrade is in progress (TopologyReconciled False, ClusterUpgrading)',
      cluster([reconciled('False', 3, 'ClusterUpgrading'), cpInitialized('True')]),
      false,
    ],
    [
      'is not settled when its spec changed after the last pass (the condition is of an older generation)',
      cluster([reconciled('True', 2), cpInitialized('True')]),
      false,
    ],
    [
      'is not settled when the condition records no generation',
      cluster([{ type: 'TopologyReconciled', status: 'True' }, cpInitialized('True')]),
      false,
    ],
    [
      "is not settled while the control plane is not initialized (a new Cluster's workers wait for it)",
      cluster([reconciled('True'), cpInitialized('False')]),
      false,
    ],
    ['is not settled before any pass wrote TopologyReconciled', cluster([cpInitialized('True')]), false],
    [
      'is not settled while it is being deleted',
      cluster([reconciled('True'), cpInitialized('True')], { deletionTimestamp: '2026-11-28T00:00:00Z' }),
      false,
    ],
  ];
  for (const [name, obj, expected] of cases) test(name, () => assert.equal(isTopologySettled(obj), expected));
});

const md = (metadata: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
  Object.freeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: {
      namespace: 'default',
      name: 'c1-md-0',
      uid: 'u1',
      generation: 2,
      labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'topology.cluster.x-k8s.io/owned': '' },
      ...metadata,
    },
    status: { observedGeneration: 2, replicas: 1, readyReplicas: 1, upToDateReplicas: 1, ...status },
  }) as KubeObject;

describe('isStatusOnlyChange', () => {
  const before = computeTopologyOwnedFact(md({}, {}));
  const cases: [string, KubeObject, boolean][] = [
    ['is status only when its rollout started (a Machine more than up to date)', md({}, { replicas: 2 }), true],
    ['is status only when the observed generation moved', md({}, { observedGeneration: 1 }), true],
    ['is not when the generation moved (a spec write)', md({ generation: 3 }, {}), false],
    [
      'is not when a label changed',
      md({ labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'topology.cluster.x-k8s.io/owned': '', x: 'y' } }, {}),
      false,
    ],
    ['is not when it is being deleted', md({ deletionTimestamp: '2026-11-28T00:00:00Z' }, {}), false],
    [
      "is not when the core controller adopted it (the Cluster's owner reference)",
      md({ ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c1', uid: 'c' }] }, {}),
      false,
    ],
    ['is not for another object of the same name (another uid)', md({ uid: 'u2' }, { replicas: 2 }), false],
  ];
  for (const [name, obj, expected] of cases)
    test(name, () => assert.equal(isStatusOnlyChange(before, computeTopologyOwnedFact(obj)), expected));
  test("is not when the topology's managed fields were dropped (a purge)", () => {
    const entries = [{ manager: 'capi-topology', operation: 'Apply', fieldsV1: { 'f:spec': {} } }];
    const applied = computeTopologyOwnedFact(md({ managedFields: entries }, {}));
    assert.equal(isStatusOnlyChange(applied, computeTopologyOwnedFact(md({}, {}))), false);
    assert.equal(
      isStatusOnlyChange(applied, computeTopologyOwnedFact(md({ managedFields: entries }, { replicas: 2 }))),
      true,
    );
  });
  test('is not for an object not seen before', () =>
    assert.equal(isStatusOnlyChange(undefined, computeTopologyOwnedFact(md({}, {}))), false));
});

describe('isOwnedChangeNeeded', () => {
  const cases: [string, { statusOnly: boolean; clusterSettled: boolean }, boolean][] = [
    ['drops a status-only change of a settled Cluster', { statusOnly: true, clusterSettled: true }, false],
    ['sends a status-only change while the Cluster waits', { statusOnly: true, clusterSettled: false }, true],
    ['sends a spec or metadata change of a settled Cluster', { statusOnly: false, clusterSettled: true }, true],
    ['sends a spec change while the Cluster waits', { statusOnly: false, clusterSettled: false }, true],
  ];
  for (const [name, input, expected] of cases) test(name, () => assert.equal(isOwnedChangeNeeded(input), expected));
});
