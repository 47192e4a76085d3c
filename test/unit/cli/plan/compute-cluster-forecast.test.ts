// What a Cluster's plan means for its Machines (computeClusterForecast), which Clusters a change reaches
// (computeFleetClusters) and the fleet's summary line.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFleetSummary } from '#shared/cli/format-fleet-forecast.ts';
import { parseLabelSelector } from '#shared/providers/desired/label-selector.ts';
import { computeClusterForecast } from '#shared/cli/plan/compute-cluster-forecast.ts';
import { computeFleetClusters, computeFleetSummary } from '#shared/cli/plan/compute-fleet-forecast.ts';
import type { PlannedObject } from '#shared/cli/plan/compute-plan.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { deepFreeze } from '#test/support/builders/topology.ts';

const capi = 'cluster.x-k8s.io/v1beta2';
const cluster = deepFreeze({
  apiVersion: capi,
  kind: 'Cluster',
  metadata: { namespace: 'ns', name: 'c1', labels: { env: 'prod' } },
  spec: {
    controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c1-cp' },
    topology: { classRef: { name: 'dev' }, version: 'v1.30.0' },
  },
}) as Unstructured;

const cp = (spec: Record<string, unknown>, status?: Record<string, unknown>): Unstructured => ({
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { namespace: 'ns', name: 'c1-cp' },
  spec: {
    version: 'v1.30.0',
    machineTemplate: { spec: { infrastructureRef: { name: 'c1-cp-infra-a' } } },
    ...spec,
  },
  ...(status ? { status } : {}),
});
const md = (templateSpec: Record<string, unknown>, replicas?: number, kind = 'MachineDeployment'): Unstructured => ({
  apiVersion: capi,
  kind,
  metadata: {
    namespace: 'ns',
    name: 'c1-md-a',
    labels: { 'topology.cluster.x-k8s.io/deployment-name': 'md-a', 'topology.cluster.x-k8s.io/pool-name': 'mp-a' },
  },
  spec: {
    ...(replicas === undefined ? {} : { replicas }),
    template: {
      spec: { version: 'v1.30.0', infrastructureRef: { name: 'c1-md-a-infra-a' }, ...templateSpec },
    },
  },
});
const updated = (current: Unstructured, object: Unstructured): PlannedObject => ({
  object,
  current,
  operation: 'updated',
});
const unchanged = (o: Unstructured): PlannedObject => ({ object: o, current: o, operation: 'unchanged' });
const same = { class: 'dev', version: 'v1.30.0' };

describe('computeClusterForecast', () => {
  const cases: {
    name: string;
    target?: { class: string; version: string };
    planned: PlannedObject[];
    result: string;
    rollouts: [string, number | undefined, string[]][];
    inPlace?: string[];
    machines: { controlPlane: number; workers: number };
  }[] = [
    {
      name: 'a MachineDeployment whose infrastructure template rotates rolls its replicas',
      planned: [
        updated(md({}, 3), md({ infrastructureRef: { name: 'c1-md-a-infra-b' } }, 3)),
        {
          object: {
            apiVersion: 'x/v1',
            kind: 'DockerMachineTemplate',
            metadata: { namespace: 'ns', name: 'c1-md-a-infra-a' },
          },
          operation: 'replaced',
          replacedBy: 'c1-md-a-infra-b',
        },
      ],
      result: 'Changes',
      rollouts: [['MachineDeployment', 3, ['infrastructure template rotates']]],
      machines: { controlPlane: 0, workers: 3 },
    },
    {
      name: 'a MachineDeployment held back at the old version still rolls for the target version',
      target: { class: 'dev', version: 'v1.31.0' },
      planned: [unchanged(md({}, 2))],
      result: 'Changes',
      rollouts: [['MachineDeployment', 2, ['version v1.30.0 → v1.31.0']]],
      machines: { controlPlane: 0, workers: 2 },
    },
    {
      name: 'a drain timeout change on a MachineDeployment is in place',
      planned: [updated(md({}, 2), md({ deletion: { nodeDrainTimeoutSeconds: 60 } }, 2))],
      result: 'Changes',
      rollouts: [],
      inPlace: ['MachineDeployment ns/c1-md-a'],
      machines: { controlPlane: 0, workers: 0 },
    },
    {
      name: 'a control plane version change rolls spec.replicas Machines',
      target: { class: 'dev', version: 'v1.31.0' },
      planned: [updated(cp({ replicas: 3 }), cp({ replicas: 3, version: 'v1.31.0' }))],
      result: 'Changes',
      rollouts: [['ControlPlane', 3, ['version v1.30.0 → v1.31.0']]],
      machines: { controlPlane: 3, workers: 0 },
    },
    {
      name: 'a control plane without spec.replicas counts status.replicas',
      planned: [
        updated(cp({}, { replicas: 5 }), cp({ kubeadmConfigSpec: { clusterConfiguration: { apiServer: {} } } })),
      ],
      result: 'Changes',
      rollouts: [['ControlPlane', 5, ['spec.kubeadmConfigSpec changes']]],
      machines: { controlPlane: 5, workers: 0 },
    },
    {
      name: 'a managed control plane with no replicas rolls uncounted',
      target: { class: 'dev', version: 'v1.31.0' },
      planned: [unchanged(cp({}))],
      result: 'Changes',
      rollouts: [['ControlPlane', undefined, ['version v1.30.0 → v1.31.0']]],
      machines: { controlPlane: 0, workers: 0 },
    },
    {
      name: 'a label on control plane machines is in place',
      planned: [
        updated(
          cp({ replicas: 3 }),
          cp({
            replicas: 3,
            machineTemplate: {
              metadata: { labels: { a: 'b' } },
              spec: { infrastructureRef: { name: 'c1-cp-infra-a' } },
            },
          }),
        ),
      ],
      result: 'Changes',
      rollouts: [],
      inPlace: ['KubeadmControlPlane ns/c1-cp'],
      machines: { controlPlane: 0, workers: 0 },
    },
    {
      name: 'a MachinePool whose bootstrap config changes rolls its replicas',
      planned: [
        updated(
          md({}, 4, 'MachinePool'),
          md({ bootstrap: { configRef: { name: 'c1-mp-a-bootstrap-b' } } }, 4, 'MachinePool'),
        ),
      ],
      result: 'Changes',
      rollouts: [['MachinePool', 4, ['bootstrap template rotates']]],
      machines: { controlPlane: 0, workers: 4 },
    },
    {
      name: 'nothing changes: unchanged',
      planned: [unchanged(cp({ replicas: 3 })), unchanged(md({}, 2))],
      result: 'Unchanged',
      rollouts: [],
      machines: { controlPlane: 0, workers: 0 },
    },
    {
      name: 'a rebase that changes no object is still a change',
      target: { class: 'dev-v2', version: 'v1.30.0' },
      planned: [unchanged(cp({ replicas: 3 }))],
      result: 'Changes',
      rollouts: [],
      machines: { controlPlane: 0, workers: 0 },
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      const forecast = computeClusterForecast(cluster, c.target ?? same, deepFreeze(c.planned));
      assert.equal(forecast.result, c.result);
      assert.deepEqual(
        forecast.rollouts.map((r) => [r.owner, r.replicas, r.reasons]),
        c.rollouts,
      );
      if (c.inPlace)
        assert.deepEqual(
          forecast.inPlace.map((o) => `${o.kind} ${o.namespace}/${o.name}`),
          c.inPlace,
        );
      assert.deepEqual(forecast.machines, c.machines);
    });

  test('a rotated template names what uses it; its clone is not listed again as created', () => {
    const forecast = computeClusterForecast(cluster, same, [
      updated(md({}, 3), md({ infrastructureRef: { name: 'c1-md-a-infra-b' } }, 3)),
      {
        object: {
          apiVersion: 'x/v1',
          kind: 'DockerMachineTemplate',
          metadata: { namespace: 'ns', name: 'c1-md-a-infra-a' },
        },
        operation: 'replaced',
        replacedBy: 'c1-md-a-infra-b',
      },
      {
        object: {
          apiVersion: 'x/v1',
          kind: 'DockerMachineTemplate',
          metadata: { namespace: 'ns', name: 'c1-md-a-infra-b' },
        },
        operation: 'created',
      },
    ]);
    assert.deepEqual(forecast.created, []);
    assert.deepEqual(forecast.rotations, [
      {
        kind: 'DockerMachineTemplate',
        namespace: 'ns',
        name: 'c1-md-a-infra-a',
        replacedBy: 'c1-md-a-infra-b',
        usedBy: 'MachineDeployment md-a',
      },
    ]);
  });
});

describe('computeFleetClusters', () => {
  const c = (
    namespace: string,
    name: string,
    className: string,
    labels: Record<string, string> = {},
  ): Unstructured => ({
    apiVersion: capi,
    kind: 'Cluster',
    metadata: { namespace, name, labels },
    spec: { topology: { classRef: { name: className }, version: 'v1.30.0' } },
  });
  const cc = (name: string, worker: string): Unstructured => ({
    apiVersion: capi,
    kind: 'ClusterClass',
    metadata: { namespace: 'a', name },
    spec: {
      workers: {
        machineDeployments: [
          { class: 'w', infrastructure: { templateRef: { apiVersion: 'infra/v1', kind: 'T', name: worker } } },
        ],
      },
    },
  });
  const template = (name: string): Unstructured => ({
    apiVersion: 'infra/v1',
    kind: 'T',
    metadata: { namespace: 'a', name },
  });
  const fleet = deepFreeze([
    cc('dev', 't1'),
    cc('prod', 't2'),
    c('b', 'z', 'dev'),
    c('a', 'y', 'prod', { env: 'prod' }),
    c('a', 'x', 'dev', { env: 'dev' }),
    { apiVersion: capi, kind: 'Cluster', metadata: { namespace: 'a', name: 'no-topology' }, spec: {} },
  ]);
  const cases: { name: string; change: Parameters<typeof computeFleetClusters>[1]; want: string[] }[] = [
    {
      name: 'a changed class reaches its Clusters in its namespace, sorted',
      change: { objects: [{ object: cc('dev', 't1'), source: 'f' }] },
      want: ['a/x'],
    },
    {
      name: 'a changed template reaches the Clusters of the classes using it',
      change: { objects: [{ object: template('t2'), source: 'f' }] },
      want: ['a/y'],
    },
    {
      name: 'a version reaches every selected Cluster with a topology',
      change: { objects: [], version: 'v1.31.0' },
      want: ['a/x', 'a/y', 'b/z'],
    },
    {
      name: 'a selector and a namespace narrow it',
      change: { objects: [], version: 'v1.31.0', namespace: 'a', selector: parseLabelSelector('env!=dev') },
      want: ['a/y'],
    },
  ];
  for (const k of cases)
    test(k.name, () => {
      assert.deepEqual(
        computeFleetClusters(fleet, k.change).map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
        k.want,
      );
    });
});

describe('formatFleetSummary', () => {
  test("prints the issue's one line from the Clusters' forecasts", () => {
    const forecast = (name: string, result: 'Changes' | 'Invalid' | 'Unchanged', cp: number, workers: number) => ({
      ...computeClusterForecast(cluster, same, []),
      name,
      result,
      machines: { controlPlane: cp, workers },
      rollouts: [
        ...(cp > 0
          ? [{ kind: 'K', namespace: 'ns', name, owner: 'ControlPlane' as const, replicas: cp, reasons: [] }]
          : []),
        ...(workers > 0
          ? [
              {
                kind: 'M',
                namespace: 'ns',
                name,
                owner: 'MachineDeployment' as const,
                replicas: workers,
                reasons: [],
              },
            ]
          : []),
      ],
    });
    const summary = computeFleetSummary([
      forecast('a', 'Changes', 0, 3),
      forecast('b', 'Changes', 3, 6),
      forecast('c', 'Invalid', 0, 0),
      forecast('d', 'Unchanged', 0, 0),
    ]);
    assert.equal(
      formatFleetSummary(summary, ['ns/c']),
      '2 Clusters change; 2 roll 9 worker Machines, 1 roll their control planes (3 Machines); 1 fails validation: ns/c; 1 unchanged',
    );
  });
});
