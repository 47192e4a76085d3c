import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeOwnedGates, computeOwnedRole } from '#functions/forwarder/compute-owned-gates.ts';

type Fields = Record<string, unknown>;

const object = (apiVersion: string, kind: string, generation: number, spec: Fields, status?: Fields): KubeObject =>
  Object.freeze({
    apiVersion,
    kind,
    metadata: { namespace: 'ns', name: 'x', generation },
    spec,
    ...(status === undefined ? {} : { status }),
  }) as KubeObject;

/** A KubeadmControlPlane of one replica at `specVersion` reporting `status` (v1beta2 contract fields). */
const kcp = (specVersion: string, status?: Fields, replicas = 1) =>
  object('controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane', 2, { version: specVersion, replicas }, status);
const stable = { version: 'v1.36.4', replicas: 1, upToDateReplicas: 1, readyReplicas: 1, availableReplicas: 1 };

const md = (generation: number, status?: Fields, replicas = 1) =>
  object('cluster.x-k8s.io/v1beta2', 'MachineDeployment', generation, { replicas }, status);
const mp = (generation: number, status?: Fields) =>
  object('cluster.x-k8s.io/v1beta2', 'MachinePool', generation, { replicas: 2 }, status);

describe('computeOwnedRole', () => {
  const cases: [string, KubeObject, string][] = [
    ['a MachineDeployment of the core group', md(1), 'machineDeployment'],
    ['a MachinePool of the core group', mp(1), 'machinePool'],
    ['a control plane by its controlplane.* group', kcp('v1.36.4'), 'controlPlane'],
    [
      'an InfrastructureCluster as other',
      object('infrastructure.cluster.x-k8s.io/v1beta2', 'DevCluster', 1, {}),
      'other',
    ],
    ['a MachineDeployment of another group as other', object('example.com/v1', 'MachineDeployment', 1, {}), 'other'],
  ];
  for (const [name, obj, role] of cases) test(`names ${name}`, () => assert.equal(computeOwnedRole(obj), role));
});

describe('computeOwnedGates: a control plane', () => {
  const cases: [string, KubeObject, readonly string[]][] = [
    ['provisioning while no version is reported', kcp('v1.36.4'), ['provisioning=1', 'upgrading=0', 'scaling=-']],
    [
      'upgrading while the spec version is above the reported one (scaling is not read then)',
      kcp('v1.37.0', stable),
      ['provisioning=0', 'upgrading=1', 'scaling=-'],
    ],
    [
      'upgrading while one of status.versions is below the spec version',
      kcp('v1.37.0', { ...stable, versions: [{ version: 'v1.37.0' }, { version: 'v1.36.4' }] }),
      ['provisioning=0', 'upgrading=1', 'scaling=-'],
    ],
    [
      'stable under v1beta2, scaling under v1beta1 (whose updatedReplicas it does not report)',
      kcp('v1.36.4', stable),
      ['provisioning=0', 'upgrading=0', 'scaling=01'],
    ],
    [
      'scaling while a surge Machine is still there',
      kcp('v1.36.4', { ...stable, replicas: 2, readyReplicas: 2, availableReplicas: 2 }),
      ['provisioning=0', 'upgrading=0', 'scaling=11'],
    ],
    [
      'stable under both contracts when both report',
      kcp('v1.36.4', { ...stable, updatedReplicas: 1, unavailableReplicas: 0 }),
      ['provisioning=0', 'upgrading=0', 'scaling=00'],
    ],
  ];
  for (const [name, obj, gates] of cases) test(name, () => assert.deepEqual(computeOwnedGates(obj), gates));

  test('the replica counters of an upgrading control plane change nothing', () => {
    const rolling = [
      { ...stable, replicas: 2, upToDateReplicas: 0 },
      { ...stable, replicas: 2, upToDateReplicas: 1, readyReplicas: 2, availableReplicas: 2 },
      { ...stable, replicas: 2, upToDateReplicas: 1, readyReplicas: 0, availableReplicas: 0 },
      { ...stable, replicas: 2, upToDateReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
    ].map((status) => computeOwnedGates(kcp('v1.37.0', status)));
    for (const gates of rolling) assert.deepEqual(gates, rolling[0]);
  });

  test('the upgrade finishing changes them', () => {
    assert.notDeepEqual(
      computeOwnedGates(kcp('v1.37.0', { ...stable, replicas: 2 })),
      computeOwnedGates(kcp('v1.37.0', { ...stable, version: 'v1.37.0' })),
    );
  });
});

describe('computeOwnedGates: a MachineDeployment', () => {
  const rolledOut = (obj: KubeObject) => computeOwnedGates(obj)[0];
  const cases: [string, KubeObject, string][] = [
    [
      'rolled out when every reported replica is up to date',
      md(2, { observedGeneration: 2, replicas: 1, upToDateReplicas: 1 }),
      'rolledOut=1',
    ],
    [
      'not while its controller has not observed the generation',
      md(2, { observedGeneration: 1, replicas: 1, upToDateReplicas: 1 }),
      'rolledOut=0',
    ],
    [
      'not while an old Machine is still there',
      md(2, { observedGeneration: 2, replicas: 2, upToDateReplicas: 1 }),
      'rolledOut=0',
    ],
    [
      'not while the v1beta1 updatedReplicas says the new template is not everywhere',
      md(2, {
        observedGeneration: 2,
        replicas: 1,
        upToDateReplicas: 1,
        deprecated: { v1beta1: { updatedReplicas: 0 } },
      }),
      'rolledOut=0',
    ],
    ['not without a status', md(1), 'rolledOut=0'],
  ];
  for (const [name, obj, gate] of cases) test(name, () => assert.equal(rolledOut(obj), gate));

  test('ready and available counters change nothing', () => {
    const base = { observedGeneration: 2, replicas: 2, upToDateReplicas: 1 };
    assert.deepEqual(
      computeOwnedGates(md(2, { ...base, readyReplicas: 1, availableReplicas: 1 })),
      computeOwnedGates(md(2, { ...base, readyReplicas: 2, availableReplicas: 2 })),
    );
  });
});

describe('computeOwnedGates: a MachinePool and an InfrastructureCluster', () => {
  test('a MachinePool is rolled out when its ready replicas are all its replicas, at its generation', () => {
    assert.deepEqual(computeOwnedGates(mp(3, { observedGeneration: 3, replicas: 2, readyReplicas: 2 })), [
      'rolledOut=1',
    ]);
    assert.deepEqual(computeOwnedGates(mp(3, { observedGeneration: 3, replicas: 2, readyReplicas: 1 })), [
      'rolledOut=0',
    ]);
    assert.deepEqual(computeOwnedGates(mp(3, { observedGeneration: 2, replicas: 2, readyReplicas: 2 })), [
      'rolledOut=0',
    ]);
  });

  test('an InfrastructureCluster keeps its status fields as they are', () => {
    const dc = (status: Fields) => object('infrastructure.cluster.x-k8s.io/v1beta2', 'DevCluster', 1, {}, status);
    assert.notDeepEqual(
      computeOwnedGates(dc({ initialization: { provisioned: false } })),
      computeOwnedGates(dc({ initialization: { provisioned: true } })),
    );
    assert.deepEqual(
      computeOwnedGates(dc({ conditions: [{ type: 'Ready', status: 'True' }] })),
      computeOwnedGates(dc({ conditions: [{ type: 'Ready', status: 'False' }] })),
    );
  });
});
