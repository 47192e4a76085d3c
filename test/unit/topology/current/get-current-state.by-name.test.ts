// getCurrentState with the names the last pass that succeeded recorded: the Cluster's MachineDeployments are read by
// name instead of a label-selected LIST, and listed when there is no record or a recorded one is gone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { computeRecordedNamesOf, getCurrentState } from '#shared/topology/current/get-current-state.ts';
import type { ContractResolver } from '#shared/topology/current/get-contracts.ts';
import { createMemoryReader, type TopologyReader } from '#shared/topology/current/reader.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const owned = { 'cluster.x-k8s.io/cluster-name': 'c1', 'topology.cluster.x-k8s.io/owned': '' };

const cluster = Object.freeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { namespace: 'ns', name: 'c1', uid: 'uid-c1' },
  spec: { topology: { classRef: { name: 'quick-start' }, version: 'v1.30.0' } },
}) as unknown as Cluster;

function machineDeployment(name: string, topologyName: string, labels: Record<string, string> = owned): Unstructured {
  return Object.freeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: {
      namespace: 'ns',
      name,
      labels: { ...labels, 'topology.cluster.x-k8s.io/deployment-name': topologyName },
    },
    spec: {
      clusterName: 'c1',
      selector: { matchLabels: {} },
      template: {
        spec: {
          clusterName: 'c1',
          bootstrap: {},
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerMachineTemplate', name: 'x' },
        },
      },
    },
  }) as unknown as Unstructured;
}

const contracts: ContractResolver = {
  apiVersionOf: async (group) => `${group}/v1beta2`,
  contractOf: async () => 'v1beta2',
};

/** A memory reader that logs `get Kind/name` and `list Kind`. */
function countingReader(objects: readonly Unstructured[]): { reader: TopologyReader; calls: string[] } {
  const inner = createMemoryReader(objects);
  const calls: string[] = [];
  return {
    calls,
    reader: {
      get: (ref) => {
        calls.push(`get ${ref.kind}/${ref.name}`);
        return inner.get(ref);
      },
      list: (q) => {
        calls.push(`list ${q.kind}`);
        return inner.list(q);
      },
    },
  };
}

const reads = (recordedNames?: ReadonlySet<string>) => ({
  machineHealthChecks: false,
  machinePools: false,
  ...(recordedNames ? { recordedNames } : {}),
});
const mdCalls = (calls: readonly string[]) => calls.filter((c) => c.includes('MachineDeployment'));

describe('getCurrentState with recorded names', () => {
  const objects = [machineDeployment('c1-md-a-bbbbb', 'md-a'), machineDeployment('c1-md-b-ccccc', 'md-b')];

  const cases = [
    {
      name: 'reads the recorded MachineDeployments by name, no LIST',
      recorded: new Set(['MachineDeployment ns/c1-md-b-ccccc', 'MachineDeployment ns/c1-md-a-bbbbb', 'Cluster ns/c1']),
      calls: ['get MachineDeployment/c1-md-a-bbbbb', 'get MachineDeployment/c1-md-b-ccccc'],
      found: ['md-a', 'md-b'],
    },
    {
      name: 'lists them when there is no record',
      recorded: undefined,
      calls: ['list MachineDeployment'],
      found: ['md-a', 'md-b'],
    },
    {
      name: 'lists them when a recorded one is gone',
      recorded: new Set(['MachineDeployment ns/c1-md-a-bbbbb', 'MachineDeployment ns/c1-md-gone-ddddd']),
      calls: [
        'get MachineDeployment/c1-md-a-bbbbb',
        'get MachineDeployment/c1-md-gone-ddddd',
        'list MachineDeployment',
      ],
      found: ['md-a', 'md-b'],
    },
    {
      name: 'ignores records of another namespace',
      recorded: new Set(['MachineDeployment other/c1-md-a-bbbbb']),
      calls: [],
      found: [],
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const { reader, calls } = countingReader(objects);
      const current = await getCurrentState(reader, contracts, cluster, reads(c.recorded));
      assert.deepEqual(mdCalls(calls), c.calls);
      assert.deepEqual(Object.keys(current.machineDeployments).sort(), c.found);
    });

  test('leaves out a recorded MachineDeployment without the topology labels, as the LIST would', async () => {
    const { reader } = countingReader([
      machineDeployment('c1-md-a-bbbbb', 'md-a', { 'cluster.x-k8s.io/cluster-name': 'c1' }),
    ]);
    const byName = await getCurrentState(
      reader,
      contracts,
      cluster,
      reads(new Set(['MachineDeployment ns/c1-md-a-bbbbb'])),
    );
    const listed = await getCurrentState(reader, contracts, cluster, reads());
    assert.deepEqual(byName.machineDeployments, {});
    assert.deepEqual(listed.machineDeployments, {});
  });
});

describe('computeRecordedNamesOf', () => {
  test('picks the names of one kind in one namespace, sorted', () => {
    const recorded = new Set([
      'MachineDeployment ns/b',
      'MachineDeployment ns/a',
      'MachineDeployment other/c',
      'MachinePool ns/d',
      'DockerMachineTemplate ns/e',
    ]);
    assert.deepEqual(computeRecordedNamesOf(recorded, 'MachineDeployment', 'ns'), ['a', 'b']);
  });
});
