import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isClusterSpecChangedMeanwhile } from '#shared/topology/compute-spec-changed-meanwhile.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { deepFreeze } from '#test/support/builders/topology.ts';

const cluster = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): Unstructured =>
  deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'default', name: 'c1', annotations },
    spec,
  });

const topology = {
  classRef: { name: 'quick-start' },
  version: 'v1.30.0',
  workers: { machineDeployments: [{ class: 'w', name: 'md-0' }] },
};
const refs = {
  infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerCluster', name: 'c1-x' },
  controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c1-y' },
};
const withMd1 = {
  ...topology,
  workers: { machineDeployments: [...topology.workers.machineDeployments, { class: 'w', name: 'md-1' }] },
};

describe('isClusterSpecChangedMeanwhile', () => {
  const cases: { name: string; read: Unstructured; latest: Unstructured; want: boolean }[] = [
    { name: 'the same object is unchanged', read: cluster({ topology }), latest: cluster({ topology }), want: false },
    {
      name: "the pass's own writes (references, annotations) are not a change",
      read: cluster({ topology }),
      latest: cluster({ ...refs, topology }, { 'runtime.cluster.x-k8s.io/pending-hooks': '' }),
      want: false,
    },
    {
      name: 'a MachineDeployment added by someone else while the pass ran is a change',
      read: cluster({ topology }),
      latest: cluster({ ...refs, topology: withMd1 }),
      want: true,
    },
    {
      name: 'key order does not count',
      read: cluster({ topology: { version: 'v1.30.0', classRef: { name: 'quick-start' }, workers: topology.workers } }),
      latest: cluster({ topology }),
      want: false,
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(isClusterSpecChangedMeanwhile(c.read, c.latest), c.want));
});
