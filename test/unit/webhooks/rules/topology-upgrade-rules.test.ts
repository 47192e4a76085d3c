import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseVersionTolerant } from '#shared/lang/semver/semver.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { isControlPlaneProvisioning, isControlPlaneUpgrading } from '#shared/topology/contract/control-plane-state.ts';
import { isMachineDeploymentUpgrading } from '#shared/topology/contract/machine-deployment-state.ts';
import {
  isMachinePoolUpgrading,
  validateTopologyUpgradeState,
  type TopologyUpgradeState,
} from '#shared/webhooks/rules/topology-upgrade-rules.ts';

const old = parseVersionTolerant('v1.30.0')!;

function controlPlane(spec: string, status: Record<string, unknown> = { version: spec }): Unstructured {
  return {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', namespace: 'ns' },
    spec: { version: spec },
    status,
  };
}

function md(name: string, version: string): Unstructured {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { name, namespace: 'ns' },
    spec: { template: { spec: { version } } },
  };
}

function mp(name: string, version: string): Unstructured {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachinePool',
    metadata: { name, namespace: 'ns' },
    spec: { template: { spec: { version } } },
  };
}

const node = (name: string, kubeletVersion: string) => ({ name, kubeletVersion });

function machine(name: string, version: string, kubelet?: string): Unstructured {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: { name, namespace: 'ns' },
    spec: { version },
    ...(kubelet ? { status: { nodeInfo: { kubeletVersion: kubelet } } } : {}),
  };
}

const settled = (extra: Partial<TopologyUpgradeState> = {}): TopologyUpgradeState => ({
  controlPlane: { object: controlPlane('v1.30.0') },
  machineDeployments: [],
  ...extra,
});

const detailOf = (state: TopologyUpgradeState) =>
  validateTopologyUpgradeState(old, 'v1.31.0', state).map((e) => e.detail);

describe('control plane predicates', () => {
  test('provisioning while no version is reported', () => {
    assert.equal(isControlPlaneProvisioning(controlPlane('v1.30.0', {})), true);
    assert.equal(isControlPlaneProvisioning(controlPlane('v1.30.0', { version: '' })), true);
    assert.equal(isControlPlaneProvisioning(controlPlane('v1.30.0')), false);
    assert.equal(isControlPlaneProvisioning(controlPlane('v1.30.0', { versions: [{ version: 'v1.30.0' }] })), false);
  });

  test('upgrading while a reported version is below spec.version', () => {
    assert.equal(isControlPlaneUpgrading(controlPlane('v1.30.0', { version: 'v1.29.0' })), true);
    assert.equal(isControlPlaneUpgrading(controlPlane('v1.30.0')), false);
    assert.equal(isControlPlaneUpgrading(controlPlane('v1.30.0', {})), false);
    const mixed = { versions: [{ version: 'v1.30.0' }, { version: 'v1.29.0' }], version: 'v1.30.0' };
    assert.equal(isControlPlaneUpgrading(controlPlane('v1.30.0', mixed)), true);
  });
});

describe('isMachineDeploymentUpgrading', () => {
  test('a Machine or its kubelet at another version means upgrading', () => {
    assert.equal(isMachineDeploymentUpgrading(md('a', 'v1.30.0'), [machine('m1', 'v1.30.0')]), false);
    assert.equal(isMachineDeploymentUpgrading(md('a', 'v1.30.0'), [machine('m1', 'v1.29.0')]), true);
    assert.equal(isMachineDeploymentUpgrading(md('a', 'v1.30.0'), [machine('m1', 'v1.30.0', 'v1.29.0')]), true);
    assert.equal(isMachineDeploymentUpgrading(md('a', 'v1.30.0'), []), false);
  });

  test('a Machine without a version is an error, as upstream', () => {
    assert.equal(
      isMachineDeploymentUpgrading(md('a', 'v1.30.0'), [machine('m1', '')]),
      'failed to check if MachineDeployment a is upgrading: Machine m1 has no version',
    );
  });
});

describe('validateTopologyUpgradeState', () => {
  test('allows a settled control plane and MachineDeployments at the old version', () => {
    const mds = [{ object: md('a', 'v1.30.0'), machines: [machine('m1', 'v1.30.0')] }];
    assert.deepEqual(validateTopologyUpgradeState(old, 'v1.31.0', settled({ machineDeployments: mds })), []);
  });

  test('refuses a control plane the old version has not reached', () => {
    const errors = validateTopologyUpgradeState(
      old,
      'v1.31.0',
      settled({ controlPlane: { object: controlPlane('v1.29.0') } }),
    );
    assert.deepEqual(errors, [
      {
        type: 'Invalid',
        field: 'spec.topology.version',
        badValue: 'v1.31.0',
        detail:
          'version cannot be changed: Cluster.spec.topology.version 1.30.0 was not propagated to control plane yet (control plane version 1.29.0)',
      },
    ]);
  });

  test('refuses a provisioning or upgrading control plane', () => {
    assert.deepEqual(detailOf(settled({ controlPlane: { object: controlPlane('v1.30.0', {}) } })), [
      'version cannot be changed: control plane is currently provisioning',
    ]);
    assert.deepEqual(detailOf(settled({ controlPlane: { object: controlPlane('v1.30.0', { version: 'v1.29.0' }) } })), [
      'version cannot be changed: control plane is still completing a previous upgrade',
    ]);
  });

  test('passes on the reader error of a missing control plane', () => {
    assert.deepEqual(detailOf(settled({ controlPlane: { error: 'failed to get control plane object' } })), [
      'version cannot be changed: failed to get control plane object',
    ]);
  });

  test('lists MachineDeployments behind or upgrading, and aggregates several errors as kerrors does', () => {
    const mds = [
      { object: md('a', 'v1.29.0'), machines: [] },
      { object: md('b', 'v1.30.0'), machines: [machine('m1', 'v1.29.0')] },
      { object: md('c', 'v1.30.0'), machines: [machine('m2', 'v1.30.0')] },
    ];
    assert.deepEqual(detailOf(settled({ machineDeployments: mds })), [
      'version cannot be changed: there are still MachineDeployments completing a previous upgrade: [a, b]',
    ]);
    assert.deepEqual(detailOf({ controlPlane: { object: controlPlane('v1.30.0', {}) }, machineDeployments: mds }), [
      'version cannot be changed: [control plane is currently provisioning, there are still MachineDeployments completing a previous upgrade: [a, b]]',
    ]);
  });

  test("lists MachinePools behind or whose Nodes run another kubelet, in upstream's words", () => {
    const mps = [
      { object: mp('p1', 'v1.29.0'), nodes: [] },
      { object: mp('p2', 'v1.30.0'), nodes: [node('n1', 'v1.30.0'), node('n2', 'v1.29.0')] },
      { object: mp('p3', 'v1.30.0'), nodes: [node('n3', 'v1.30.0')] },
    ];
    assert.deepEqual(detailOf(settled({ machinePools: mps })), [
      'version cannot be changed: there are still MachinePools completing a previous upgrade: [p1, p2]',
    ]);
    const mds = [{ object: md('a', 'v1.29.0'), machines: [] }];
    assert.deepEqual(detailOf(settled({ machineDeployments: mds, machinePools: mps })), [
      'version cannot be changed: [there are still MachineDeployments completing a previous upgrade: [a], there are still MachinePools completing a previous upgrade: [p1, p2]]',
    ]);
  });

  test('allows MachinePools whose Nodes all run the old version', () => {
    const mps = [{ object: mp('p1', 'v1.30.0'), nodes: [node('n1', 'v1.30.0')] }];
    assert.deepEqual(detailOf(settled({ machinePools: mps })), []);
  });

  test('refuses when the workload cluster or a Node cannot be read, as upstream', () => {
    const unreachable = 'failed to check if MachinePools are upgrading: unable to get client for workload cluster: x';
    assert.deepEqual(detailOf(settled({ machinePools: { error: unreachable } })), [
      `version cannot be changed: ${unreachable}`,
    ]);
    const missing = 'failed to check if MachinePool p1 is upgrading: failed to get Node n1';
    assert.deepEqual(
      detailOf(settled({ machinePools: [{ object: mp('p1', 'v1.30.0'), nodes: { error: missing } }] })),
      [`version cannot be changed: ${missing}`],
    );
  });
});

describe('isMachinePoolUpgrading', () => {
  test('a Node at another kubelet version means upgrading; a pool without a version is not', () => {
    assert.equal(isMachinePoolUpgrading(mp('p', 'v1.30.0'), [node('n', 'v1.29.0')]), true);
    assert.equal(isMachinePoolUpgrading(mp('p', 'v1.30.0'), [node('n', 'v1.30.0')]), false);
    assert.equal(isMachinePoolUpgrading(mp('p', ''), [node('n', 'v1.29.0')]), false);
  });
});
