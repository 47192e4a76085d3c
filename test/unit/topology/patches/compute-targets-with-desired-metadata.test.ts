import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computePatchTargets, computeTargetsWithDesiredMetadata } from '#shared/topology/patches/index.ts';
import type { DesiredState, Unstructured } from '#shared/topology/types.ts';
import { deepFreeze } from '#test/support/fixtures/topology/patches.ts';

const template = (kind: string, extra: Record<string, unknown> = {}): Unstructured =>
  deepFreeze({ apiVersion: 'x.cluster.x-k8s.io/v1beta2', kind, metadata: { name: kind.toLowerCase() }, ...extra });

const object = (kind: string, labels: Record<string, string>): Unstructured =>
  deepFreeze({
    apiVersion: 'x.cluster.x-k8s.io/v1beta2',
    kind,
    metadata: { name: 'c1-abcde', labels, annotations: { a: kind } },
  });

const targets = computePatchTargets({
  infrastructureClusterTemplate: template('DevClusterTemplate', {
    spec: { template: { metadata: { labels: { template: 'label' } }, spec: { backend: {} } } },
  }),
  controlPlaneTemplate: template('KubeadmControlPlaneTemplate'),
  machineDeployments: [
    {
      topologyName: 'md-0',
      className: 'default-worker',
      bootstrapTemplate: template('KubeadmConfigTemplate'),
      infrastructureMachineTemplate: template('DevMachineTemplate', { spec: { template: { spec: {} } } }),
    },
  ],
});

// NOTE: only the parts of the desired state this function reads.
const desired = deepFreeze({
  infrastructureCluster: object('DevCluster', { template: 'label', 'cluster.x-k8s.io/cluster-name': 'c1' }),
  controlPlane: { object: object('KubeadmControlPlane', { 'cluster.x-k8s.io/cluster-name': 'c1' }) },
  machineDeployments: {
    'md-0': {
      bootstrapTemplate: object('KubeadmConfigTemplate', { 'topology.cluster.x-k8s.io/deployment-name': 'md-0' }),
      infrastructureMachineTemplate: object('DevMachineTemplate', {
        'topology.cluster.x-k8s.io/deployment-name': 'md-0',
      }),
    },
  },
  machinePools: {},
}) as unknown as DesiredState;

test("syncs each desired object's labels and annotations into its template's spec.template.metadata", () => {
  const synced = computeTargetsWithDesiredMetadata(targets, desired);
  assert.deepEqual(synced[0]?.template['spec'], {
    template: {
      metadata: {
        labels: { template: 'label', 'cluster.x-k8s.io/cluster-name': 'c1' },
        annotations: { a: 'DevCluster' },
      },
      spec: { backend: {} },
    },
  });
  assert.deepEqual(synced[1]?.template['spec'], {
    template: {
      metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' }, annotations: { a: 'KubeadmControlPlane' } },
    },
  });
});

test("syncs a template clone's labels and annotations into the class template's own metadata", () => {
  const synced = computeTargetsWithDesiredMetadata(targets, desired);
  const infra = synced.find((t) => t.id === 'MachineDeploymentInfrastructure/md-0');
  assert.deepEqual(infra?.template.metadata, {
    name: 'devmachinetemplate',
    labels: { 'topology.cluster.x-k8s.io/deployment-name': 'md-0' },
    annotations: { a: 'DevMachineTemplate' },
  });
  assert.deepEqual(infra?.template['spec'], { template: { spec: {} } }, 'spec untouched');
});
