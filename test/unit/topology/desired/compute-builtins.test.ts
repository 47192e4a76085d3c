import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeClusterBuiltins,
  computeControlPlaneBuiltins,
  computeIPFamily,
  computeMachineDeploymentBuiltins,
  computeMachinePoolBuiltins,
} from '#shared/topology/desired/compute-builtins.ts';
import { computeDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import {
  blueprintFor,
  ClusterBuilder,
  ClusterClassBuilder,
  deepFreeze,
  emptyCurrent,
  sequentialSuffix,
} from '#test/support/builders/topology.ts';

describe('builtin variables', () => {
  const cluster = deepFreeze(new ClusterBuilder().build());
  const cc = new ClusterClassBuilder().build();
  const desired = computeDesiredState(
    { cluster, blueprint: blueprintFor(cc), current: emptyCurrent(cluster) },
    { randomSuffix: sequentialSuffix() },
  );

  test('builtin.cluster has name, namespace, uid, topology and network', () => {
    assert.deepEqual(computeClusterBuiltins(cluster), {
      cluster: {
        name: 'c1',
        namespace: 'default',
        uid: 'uid-c1',
        topology: {
          version: 'v1.30.0',
          class: 'quick-start',
          classNamespace: 'default',
          classRef: { name: 'quick-start', namespace: 'default' },
        },
        network: {
          ipFamily: 'IPv4',
          serviceDomain: 'cluster.local',
          services: ['10.128.0.0/12'],
          pods: ['192.168.0.0/16'],
        },
      },
    });
  });

  test('builtin.cluster has no network when the Cluster has no clusterNetwork', () => {
    const c = new ClusterBuilder().with((x) => delete x.spec!.clusterNetwork).build();
    assert.equal((computeClusterBuiltins(c)['cluster'] as Record<string, unknown>)['network'], undefined);
  });

  test('builtin.controlPlane has the desired name, version, replicas, metadata and machine template name', () => {
    const b = computeControlPlaneBuiltins(
      cluster,
      desired.controlPlane.object,
      desired.controlPlane.infrastructureMachineTemplate,
    );
    const cp = b['controlPlane'] as Record<string, unknown>;
    assert.equal(cp['name'], desired.controlPlane.object.metadata.name);
    assert.equal(cp['version'], 'v1.30.0');
    assert.equal(cp['replicas'], 3);
    assert.deepEqual(cp['machineTemplate'], {
      infrastructureRef: { name: desired.controlPlane.infrastructureMachineTemplate!.metadata.name },
    });
    assert.equal((cp['metadata'] as { labels: Record<string, string> }).labels['cluster.x-k8s.io/cluster-name'], 'c1');
  });

  test('builtin.controlPlane.replicas is absent when the topology does not set replicas', () => {
    const c: Cluster = new ClusterBuilder().with((x) => (x.spec!.topology!.controlPlane = {})).build();
    const d = computeDesiredState(
      { cluster: c, blueprint: blueprintFor(cc), current: emptyCurrent(c) },
      { randomSuffix: sequentialSuffix() },
    );
    assert.equal(
      (computeControlPlaneBuiltins(c, d.controlPlane.object, undefined)['controlPlane'] as Record<string, unknown>)[
        'replicas'
      ],
      undefined,
    );
    assert.equal(
      (computeControlPlaneBuiltins(c, d.controlPlane.object, undefined)['controlPlane'] as Record<string, unknown>)[
        'machineTemplate'
      ],
      undefined,
    );
  });

  test('builtin.machineDeployment has version, class, name, topologyName, replicas and template names', () => {
    const md = desired.machineDeployments['md-0']!;
    const b = computeMachineDeploymentBuiltins('md-0', 'default-worker', md)['machineDeployment'] as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      { ...b, metadata: undefined },
      {
        version: 'v1.30.0',
        class: 'default-worker',
        name: md.object.metadata.name,
        topologyName: 'md-0',
        replicas: 2,
        metadata: undefined,
        bootstrap: { configRef: { name: md.bootstrapTemplate.metadata.name } },
        infrastructureRef: { name: md.infrastructureMachineTemplate.metadata.name },
      },
    );
  });

  test('builtin.machinePool mirrors the MachinePool', () => {
    const mp = {
      object: {
        apiVersion: 'cluster.x-k8s.io/v1beta2' as const,
        kind: 'MachinePool' as const,
        metadata: { name: 'c1-mp-0-x', namespace: 'default' },
        spec: {
          clusterName: 'c1',
          replicas: 4,
          template: {
            spec: {
              clusterName: 'c1',
              version: 'v1.30.0',
              bootstrap: {},
              infrastructureRef: { apiGroup: 'i', kind: 'DockerMachinePool', name: 'infra' },
            },
          },
        },
      },
      bootstrapObject: { apiVersion: 'b/v1', kind: 'KubeadmConfig', metadata: { name: 'boot' } },
      infrastructureMachinePoolObject: { apiVersion: 'i/v1', kind: 'DockerMachinePool', metadata: { name: 'infra' } },
    };
    assert.deepEqual(computeMachinePoolBuiltins('mp-0', 'pool', mp)['machinePool'], {
      version: 'v1.30.0',
      class: 'pool',
      name: 'c1-mp-0-x',
      topologyName: 'mp-0',
      replicas: 4,
      bootstrap: { configRef: { name: 'boot' } },
      infrastructureRef: { name: 'infra' },
    });
  });

  const families: [string, string[], string[], string][] = [
    ['no CIDRs means IPv4', [], [], 'IPv4'],
    ['IPv6 pods', ['fd00::/48'], [], 'IPv6'],
    ['dual-stack pods and services', ['10.0.0.0/16', 'fd00::/48'], ['10.1.0.0/16', 'fd01::/108'], 'DualStack'],
    ['pods and services of different families are invalid', ['10.0.0.0/16'], ['fd01::/108'], 'Invalid'],
  ];
  for (const [name, pods, services, want] of families) {
    test(`ipFamily: ${name}`, () => {
      const c = new ClusterBuilder()
        .with((x) => (x.spec!.clusterNetwork = { pods: { cidrBlocks: pods }, services: { cidrBlocks: services } }))
        .build();
      assert.equal(computeIPFamily(c), want);
    });
  }
});
