import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { getClusterHealth } from '#shared/rollout/current/get-cluster-health.ts';
import { computeFailingChecks } from '#shared/rollout/desired/compute-cluster-entries.ts';
import { healthChecks } from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import { parseObject } from '#shared/api/parse.ts';
import { RolloutCluster } from '#shared/rollout/current/list-rollout-clusters.ts';
import { rebaseSteps, type GateStep } from '#test/support/builders/rollout-upstream.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const at = '2026-11-27T13:00:00Z';
const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, observedGeneration = 2) => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: at,
  observedGeneration,
});

function clusterWith(conditions: ReturnType<typeof cond>[], observedGeneration = 2): Cluster {
  return deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'fleet', name: 'c1', generation: 2 },
    status: { observedGeneration, conditions },
  });
}

const healthy = [
  cond('TopologyReconciled', 'True', 'ReconcileSucceeded'),
  cond('ControlPlaneAvailable', 'True', 'Available'),
  cond('WorkersAvailable', 'True', 'Available'),
  cond('ControlPlaneMachinesUpToDate', 'True', 'UpToDate'),
  cond('WorkerMachinesUpToDate', 'False', 'NoReplicas'),
  cond('RollingOut', 'False', 'NotRollingOut'),
  cond('Remediating', 'False', 'NotRemediating'),
];
const replace = (c: ReturnType<typeof cond>) => healthy.map((h) => (h.type === c.type ? c : h));

const md = (generation: number, observedGeneration: number, rollingOut = false) =>
  deepFreeze({
    kind: 'MachineDeployment',
    metadata: { name: 'c1-md-0-x', generation },
    status: {
      observedGeneration,
      conditions: [cond('RollingOut', rollingOut ? 'True' : 'False', rollingOut ? 'RollingOut' : 'NotRollingOut')],
    },
  });

const cases: [string, Cluster, string[], ReturnType<typeof md>[]?][] = [
  ['passes a converged Cluster (no worker machines counts as up to date)', clusterWith(healthy), []],
  [
    'fails while the topology controller reports an upgrade',
    clusterWith(replace(cond('TopologyReconciled', 'False', 'ClusterUpgrading'))),
    ['TopologyReconciled is False (ClusterUpgrading)'],
  ],
  [
    'fails a stale TopologyReconciled True of the previous generation',
    clusterWith(replace(cond('TopologyReconciled', 'True', 'ReconcileSucceeded', 1))),
    [
      'generation 2, observed 2, topology observed 1',
      'TopologyReconciled is True (ReconcileSucceeded) for generation 1, not 2',
    ],
  ],
  [
    'fails before the Cluster controller observed the change',
    clusterWith(healthy, 1),
    ['generation 2, observed 1, topology observed 2'],
  ],
  [
    'fails while a MachineHealthCheck remediation is in progress',
    clusterWith(replace(cond('Remediating', 'True', 'Remediating'))),
    ['Remediating is True (Remediating)'],
  ],
  [
    'fails while machines roll out',
    clusterWith(replace(cond('RollingOut', 'True', 'RollingOut'))),
    ['RollingOut is True (RollingOut)'],
  ],
  [
    'fails on a control plane not available and a missing condition',
    clusterWith(
      replace(cond('ControlPlaneAvailable', 'False', 'NotAvailable')).filter((c) => c.type !== 'WorkersAvailable'),
    ),
    ['ControlPlaneAvailable is False (NotAvailable)', 'WorkersAvailable not reported'],
  ],
  ['passes with its MachineDeployment observed and not rolling out', clusterWith(healthy), [], [md(3, 3)]],
  [
    "fails while a MachineDeployment has not observed the topology's change (the Cluster's conditions are stale)",
    clusterWith(healthy),
    ['generation 2, observed 2, topology observed 2; MachineDeployment c1-md-0-x generation 4, observed 3'],
    [md(4, 3)],
  ],
  [
    'fails while a MachineDeployment rolls out before the Cluster says so',
    clusterWith(healthy),
    ['RollingOut is False (NotRollingOut); MachineDeployment c1-md-0-x RollingOut is True'],
    [md(4, 4, true)],
  ],
];
for (const [name, cluster, failing, workers] of cases) {
  test(`getClusterHealth ${name}`, () =>
    assert.deepEqual(computeFailingChecks(getClusterHealth(cluster, { workers }), healthChecks), failing));
}

describe('getClusterHealth through a rebase as upstream v1.14 shows it (the fleet e2e at a62f375)', () => {
  const steps = rebaseSteps('c05');
  const failingAt = (step: GateStep) =>
    computeFailingChecks(
      getClusterHealth(parseObject(RolloutCluster, 'Cluster', step.cluster), step.parts),
      healthChecks,
    );
  const cases: [keyof typeof steps, boolean][] = [
    ['before', true],
    ['written', false],
    ['topologyApplied', false],
    ['mdObservedNotYetRolling', false],
    ['rollingOut', false],
    ['finished', true],
  ];
  for (const [name, passes] of cases) {
    test(`${passes ? 'passes' : 'fails'} at step ${name}`, () =>
      assert.equal(failingAt(steps[name]).length === 0, passes, failingAt(steps[name]).join('\n')));
  }
  test('names the MachineSet of the old template while upstream still reports every Machine up to date', () =>
    assert.deepEqual(failingAt(steps.mdObservedNotYetRolling), [
      'WorkerMachinesUpToDate is True (UpToDate); MachineDeployment c05-md-0 still has 1 Machines in MachineSet c05-md-0-old of an older template',
    ]));
  test('fails a control plane whose Machines are not all on its version', () => {
    const step = steps.finished;
    const controlPlane = {
      ...step.parts.controlPlane,
      kind: 'KubeadmControlPlane',
      metadata: { name: 'c05', generation: 2 },
      spec: { replicas: 1, version: 'v1.37.0' },
      status: { observedGeneration: 2, replicas: 2, upToDateReplicas: 1, availableReplicas: 2, version: 'v1.36.0' },
    };
    assert.deepEqual(failingAt({ ...step, parts: { ...step.parts, controlPlane } }), [
      'ControlPlaneMachinesUpToDate is True (UpToDate); KubeadmControlPlane c05 has 2 replicas, 1 desired; KubeadmControlPlane c05 at version v1.36.0, v1.37.0 desired',
    ]);
  });
});

describe('getClusterHealth with a MachinePool its topology owns', () => {
  const pool = (status: object, generation = 3) =>
    deepFreeze({ kind: 'MachinePool', metadata: { name: 'c1-mp-0-x', generation }, spec: { replicas: 3 }, status });
  const converged = { observedGeneration: 3, replicas: 3, upToDateReplicas: 3, availableReplicas: 3 };
  const cases: [string, object, number | undefined, string[]][] = [
    ['passes a pool with every replica up to date and available', converged, undefined, []],
    [
      'fails a pool that has not observed its new spec',
      { ...converged, observedGeneration: 2 },
      undefined,
      ['ObservedGeneration'],
    ],
    [
      'fails a pool with a replica not available',
      { ...converged, availableReplicas: 2 },
      undefined,
      ['WorkersAvailable'],
    ],
    [
      'fails a pool whose instances are not all up to date',
      { ...converged, upToDateReplicas: 1 },
      undefined,
      ['WorkerMachinesUpToDate'],
    ],
  ];
  for (const [name, status, generation, failing] of cases) {
    test(name, () => {
      const failed = computeFailingChecks(
        getClusterHealth(clusterWith(healthy), { workers: [pool(status, generation)] }),
        healthChecks,
      );
      assert.deepEqual(
        failed.map((f) => f.slice(0, f.indexOf(' '))),
        failing.map((check) => (check === 'ObservedGeneration' ? 'generation' : check)),
        failed.join('\n'),
      );
      for (const line of failed) assert.match(line, /MachinePool c1-mp-0-x/);
    });
  }
});
