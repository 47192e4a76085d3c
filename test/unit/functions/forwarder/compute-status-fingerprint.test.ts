import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import {
  computeClusterFingerprint,
  computeClusterFingerprints,
  computeStatusFingerprint,
} from '#functions/forwarder/compute-status-fingerprint.ts';
import { computeConcernedControllers } from '#functions/forwarder/watch-kind.ts';

const kcp = (metadata: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
  Object.freeze({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', generation: 2, resourceVersion: '10', ...metadata },
    spec: { version: 'v1.37.0', replicas: 1 },
    status: {
      observedGeneration: 2,
      version: 'v1.36.4',
      replicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      upToDateReplicas: 1,
      ...status,
    },
  });

describe('computeStatusFingerprint (a control plane upgrading)', () => {
  const base = computeStatusFingerprint(kcp({}, {}));
  const changes: [string, KubeObject][] = [
    ['changes with the generation', kcp({ generation: 3 }, {})],
    ['changes when the reported version reaches the spec (the upgrade step is done)', kcp({}, { version: 'v1.37.0' })],
    ['changes with the deletion', kcp({ deletionTimestamp: '2026-11-25T00:00:00Z' }, {})],
    [
      "changes when the core controller adopts it from the cluster shim (the Cluster's owner reference)",
      kcp(
        {
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: 's' },
            { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name: 'c', uid: 'c', controller: true },
          ],
        },
        {},
      ),
    ],
  ];
  for (const [name, obj] of changes) test(name, () => assert.notEqual(computeStatusFingerprint(obj), base));

  const same: [string, KubeObject][] = [
    ['ignores the resourceVersion', kcp({ resourceVersion: '11' }, {})],
    ['ignores conditions', kcp({}, { conditions: [{ type: 'Available', status: 'True' }] })],
    ['ignores labels and annotations', kcp({ labels: { a: 'b' }, annotations: { c: 'd' } }, {})],
    [
      'ignores an owner reference other than a Cluster (the cluster shim)',
      kcp({ ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: 's' }] }, {}),
    ],
    ['ignores the observed generation', kcp({}, { observedGeneration: 1 })],
    ['ignores the replicas while it upgrades', kcp({}, { replicas: 1 })],
    ['ignores the ready replicas while it upgrades', kcp({}, { readyReplicas: 2, availableReplicas: 2 })],
    ['ignores the up-to-date replicas while it upgrades', kcp({}, { upToDateReplicas: 0 })],
    [
      'ignores v1beta1 updated replicas while it upgrades',
      kcp({}, { deprecated: { v1beta1: { updatedReplicas: 1 } } }),
    ],
  ];
  for (const [name, obj] of same) test(name, () => assert.equal(computeStatusFingerprint(obj), base));

  test('an object without status has a fingerprint', () => {
    assert.equal(typeof computeStatusFingerprint({ apiVersion: 'v1', kind: 'X', metadata: {} }), 'string');
  });
});

const cluster = (metadata: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
  Object.freeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c1', generation: 2, resourceVersion: '10', labels: { a: '1', b: '2' }, ...metadata },
    status: {
      initialization: { infrastructureProvisioned: true, controlPlaneInitialized: false },
      conditions: [
        { type: 'ControlPlaneInitialized', status: 'False', message: 'waiting' },
        { type: 'Available', status: 'False' },
      ],
      ...status,
    },
  });

const baseConditions = [
  { type: 'ControlPlaneInitialized', status: 'False', message: 'waiting' },
  { type: 'Available', status: 'False' },
];

describe('computeClusterFingerprint', () => {
  const base = computeClusterFingerprint(cluster({}, {}));
  const changes: [string, KubeObject][] = [
    ['changes with the generation (spec)', cluster({ generation: 3 }, {})],
    ['changes with a label', cluster({ labels: { a: '1', b: '3' } }, {})],
    ['changes with an annotation', cluster({ annotations: { 'cluster.x-k8s.io/paused': '' } }, {})],
    ['changes with the deletion', cluster({ deletionTimestamp: '2026-11-25T00:00:00Z' }, {})],
    [
      'changes with the initialization',
      cluster({}, { initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true } }),
    ],
    ['changes with the phase', cluster({}, { phase: 'Provisioned' })],
    [
      'changes with the ControlPlaneInitialized status',
      cluster(
        {},
        {
          conditions: [
            { type: 'ControlPlaneInitialized', status: 'True' },
            { type: 'Available', status: 'False' },
          ],
        },
      ),
    ],
    [
      'changes with a health gate condition (RollingOut) for the rollout',
      cluster({}, { conditions: [...baseConditions, { type: 'RollingOut', status: 'True', observedGeneration: 2 }] }),
    ],
    ['changes with the observed generation', cluster({}, { observedGeneration: 2 })],
  ];
  for (const [name, obj] of changes) test(name, () => assert.notEqual(computeClusterFingerprint(obj), base));

  const same: [string, KubeObject][] = [
    ['ignores the resourceVersion', cluster({ resourceVersion: '11' }, {})],
    ['ignores the label order', cluster({ labels: { b: '2', a: '1' } }, {})],
    [
      'ignores kubectl’s last-applied copy',
      cluster({ annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } }, {}),
    ],
    [
      'ignores other conditions and condition messages',
      cluster(
        {},
        {
          conditions: [
            { type: 'ControlPlaneInitialized', status: 'False', message: 'still waiting' },
            { type: 'Available', status: 'True' },
          ],
        },
      ),
    ],
    ['ignores replica counters', cluster({}, { workers: { desiredReplicas: 3, readyReplicas: 1 } })],
  ];
  for (const [name, obj] of same) test(name, () => assert.equal(computeClusterFingerprint(obj), base));
});

describe('computeClusterFingerprints', () => {
  const base = computeClusterFingerprints(cluster({}, {}));
  const concerned = (obj: KubeObject) => {
    const next = computeClusterFingerprints(obj);
    return (['topology', 'addons', 'rollout'] as const).filter((c) => next[c] !== base[c]);
  };
  const cases: [string, KubeObject, string[]][] = [
    [
      'a spec change (generation) concerns the topology and the rollout',
      cluster({ generation: 3 }, {}),
      ['topology', 'rollout'],
    ],
    [
      'a label concerns every controller',
      cluster({ labels: { a: '1', b: '3' } }, {}),
      ['topology', 'addons', 'rollout'],
    ],
    [
      'the deletion concerns every controller',
      cluster({ deletionTimestamp: '2026-11-25T00:00:00Z' }, {}),
      ['topology', 'addons', 'rollout'],
    ],
    [
      'the infrastructure provisioned concerns the add-ons and the rollout',
      cluster({}, { initialization: { infrastructureProvisioned: false, controlPlaneInitialized: false } }),
      ['addons', 'rollout'],
    ],
    [
      'ControlPlaneInitialized turning True concerns the topology and the rollout',
      cluster({}, { conditions: [{ type: 'ControlPlaneInitialized', status: 'True' }, baseConditions[1]] }),
      ['topology', 'rollout'],
    ],
    [
      'a health gate condition concerns only the rollout',
      cluster({}, { conditions: [...baseConditions, { type: 'RollingOut', status: 'True', observedGeneration: 2 }] }),
      ['rollout'],
    ],
    ['the observed generation concerns only the rollout', cluster({}, { observedGeneration: 2 }), ['rollout']],
    ['the phase concerns only the rollout', cluster({}, { phase: 'Provisioned' }), ['rollout']],
    [
      "the topology's upgrade-step mark concerns only the rollout",
      cluster({ annotations: { 'topology.internal.cluster.x-k8s.io/upgrade-step': '1' } }, {}),
      ['rollout'],
    ],
    [
      'a user annotation concerns every controller',
      cluster({ annotations: { 'cluster.x-k8s.io/paused': '' } }, {}),
      ['topology', 'addons', 'rollout'],
    ],
    [
      'a condition message concerns none',
      cluster({}, { conditions: [{ ...baseConditions[0], message: 'x' }, baseConditions[1]] }),
      [],
    ],
  ];
  for (const [name, obj, expected] of cases) test(name, () => assert.deepEqual(concerned(obj), expected));
});

describe('computeClusterFingerprints (the topology’s managed fields)', () => {
  const topologyEntry = { manager: 'capi-topology', operation: 'Apply', fieldsV1: { 'f:spec': {} } };
  const statusEntry = { manager: 'manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': {} } };
  const applied = computeClusterFingerprints(cluster({ managedFields: [topologyEntry] }, {}));
  test('a purge of the managed fields concerns the topology only', () => {
    const purged = computeClusterFingerprints(cluster({}, {}));
    assert.notEqual(purged.topology, applied.topology);
    assert.equal(purged.addons, applied.addons);
    assert.equal(purged.rollout, applied.rollout);
  });
  test('another manager’s entry concerns none', () =>
    assert.deepEqual(
      computeClusterFingerprints(cluster({ managedFields: [topologyEntry, statusEntry] }, {})),
      applied,
    ));
});

describe('computeConcernedControllers', () => {
  const cases: [string, string | undefined, string, string[] | undefined][] = [
    ['names the controllers whose hash changed', 'u1 a b c', 'u1 a x y', ['addons', 'rollout']],
    ['names none when nothing a controller reads changed', 'u1 a b c', 'u1 a b c', []],
    ['names every controller (undefined) for an object seen for the first time', undefined, 'u1 a b c', undefined],
    ['names every controller (undefined) for a new object of the same name', 'u0 a b c', 'u1 a b c', undefined],
  ];
  for (const [name, before, after, expected] of cases)
    test(name, () => assert.deepEqual(computeConcernedControllers(before, after), expected));
});
