// The objects upstream v1.14's managers show, step by step, while a Cluster rebased to a class with a new worker
// template rolls its one MachineDeployment Machine: the state sequence the fleet e2e at a62f375 went through (the
// gate passed c05–c08 in step `mdObservedNotYetRolling`, then failed them `HealthLost` in `rollingOut`).
import type { KubeObject } from '#shared/kube/index.ts';
import type { HealthParts } from '#shared/rollout/current/get-cluster-health.ts';
import type { ReplicaSource } from '#shared/rollout/current/get-rollout-progress.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const at = '2026-11-27T13:00:00Z';
const capi = 'cluster.x-k8s.io/v1beta2';
export const ns = 'fleet';

type Status = 'True' | 'False';
const cond = (type: string, status: Status, reason: string, observedGeneration: number) => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: at,
  observedGeneration,
});

/** One step: the Cluster as read, and the objects its gate reads. */
export type GateStep = { readonly cluster: KubeObject; readonly parts: HealthParts };

type ClusterView = {
  generation: number;
  observed: number;
  className: string;
  topologyObserved: number;
  workersUpToDate: boolean;
  rollingOut: boolean;
};

function clusterOf(name: string, v: ClusterView): KubeObject {
  const g = v.observed;
  return {
    apiVersion: capi,
    kind: 'Cluster',
    metadata: { namespace: ns, name, uid: `uid-${name}`, resourceVersion: '100', generation: v.generation },
    spec: {
      topology: { classRef: { name: v.className }, version: 'v1.36.0' },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name },
    },
    status: {
      observedGeneration: v.observed,
      conditions: [
        cond('TopologyReconciled', 'True', 'ReconcileSucceeded', v.topologyObserved),
        cond('ControlPlaneAvailable', 'True', 'Available', g),
        cond('WorkersAvailable', 'True', 'Available', g),
        cond('ControlPlaneMachinesUpToDate', 'True', 'UpToDate', g),
        v.workersUpToDate
          ? cond('WorkerMachinesUpToDate', 'True', 'UpToDate', g)
          : cond('WorkerMachinesUpToDate', 'False', 'NotUpToDate', g),
        v.rollingOut ? cond('RollingOut', 'True', 'RollingOut', g) : cond('RollingOut', 'False', 'NotRollingOut', g),
        cond('Remediating', 'False', 'NotRemediating', g),
      ],
    },
  };
}

const controlPlaneOf = (name: string): ReplicaSource => ({
  kind: 'KubeadmControlPlane',
  metadata: { name, generation: 1 },
  spec: { replicas: 1, version: 'v1.36.0' },
  status: { observedGeneration: 1, replicas: 1, upToDateReplicas: 1, availableReplicas: 1, version: 'v1.36.0' },
});

const template = (name: string, suffix: string) => ({
  version: 'v1.36.0',
  bootstrap: {
    configRef: {
      apiGroup: 'bootstrap.cluster.x-k8s.io',
      kind: 'KubeadmConfigTemplate',
      name: `${name}-md-0-${suffix}`,
    },
  },
  infrastructureRef: {
    apiGroup: 'infrastructure.cluster.x-k8s.io',
    kind: 'DevMachineTemplate',
    name: `${name}-md-0-${suffix}`,
  },
});

type Counts = { replicas: number; upToDate: number; available: number };

function machineDeploymentOf(
  name: string,
  v: { generation: number; observed: number; suffix: string; counts: Counts; rollingOut: boolean },
): ReplicaSource {
  return {
    kind: 'MachineDeployment',
    metadata: { name: `${name}-md-0`, generation: v.generation, labels: { 'cluster.x-k8s.io/cluster-name': name } },
    spec: { replicas: 1, template: { spec: template(name, v.suffix) } },
    status: {
      observedGeneration: v.observed,
      replicas: v.counts.replicas,
      upToDateReplicas: v.counts.upToDate,
      availableReplicas: v.counts.available,
      conditions: [
        v.rollingOut
          ? cond('RollingOut', 'True', 'RollingOut', v.generation)
          : cond('RollingOut', 'False', 'NotRollingOut', v.generation),
      ],
    },
  };
}

function machineSetOf(name: string, suffix: string, specReplicas: number, counts: Counts): ReplicaSource {
  return {
    kind: 'MachineSet',
    metadata: {
      name: `${name}-md-0-${suffix}`,
      generation: 1,
      labels: { 'cluster.x-k8s.io/cluster-name': name, 'cluster.x-k8s.io/deployment-name': `${name}-md-0` },
    },
    spec: { replicas: specReplicas, template: { spec: template(name, suffix) } },
    status: {
      observedGeneration: 1,
      replicas: counts.replicas,
      upToDateReplicas: counts.upToDate,
      availableReplicas: counts.available,
    },
  };
}

const one: Counts = { replicas: 1, upToDate: 1, available: 1 };
const none: Counts = { replicas: 0, upToDate: 0, available: 0 };

/**
 * The steps of a rebase from class `in-memory` to `in-memory-v2` as upstream's managers show them, in order. Generation 2
 * is the Cluster before the change, 3 after; the MachineDeployment goes from generation 1 to 2.
 */
export function rebaseSteps(name: string) {
  const cp = controlPlaneOf(name);
  const step = (cluster: ClusterView, md: ReplicaSource, machineSets: ReplicaSource[]): GateStep =>
    deepFreeze({ cluster: clusterOf(name, cluster), parts: { controlPlane: cp, workers: [md], machineSets } });
  const settled = { workersUpToDate: true, rollingOut: false };
  const oldMd = machineDeploymentOf(name, {
    generation: 1,
    observed: 1,
    suffix: 'old',
    counts: one,
    rollingOut: false,
  });
  const oldMs = machineSetOf(name, 'old', 1, one);
  return {
    /** Before the rollout writes: on the old class, settled. */
    before: step({ generation: 2, observed: 2, className: 'in-memory', topologyObserved: 2, ...settled }, oldMd, [
      oldMs,
    ]),
    /** The rollout wrote `spec.topology.classRef`; no controller has run yet. */
    written: step({ generation: 3, observed: 2, className: 'in-memory-v2', topologyObserved: 2, ...settled }, oldMd, [
      oldMs,
    ]),
    /** The topology controller wrote the new template into the MachineDeployment; its controller has not run. */
    topologyApplied: step(
      { generation: 3, observed: 3, className: 'in-memory-v2', topologyObserved: 3, ...settled },
      machineDeploymentOf(name, { generation: 2, observed: 1, suffix: 'new', counts: one, rollingOut: false }),
      [oldMs],
    ),
    /**
     * The MachineDeployment controller observed generation 2 and created the new MachineSet; upstream's Machine
     * controller has not yet marked the old Machine not up to date, so every counter and condition still says
     * "up to date, not rolling out". The old gate passed here.
     */
    mdObservedNotYetRolling: step(
      { generation: 3, observed: 3, className: 'in-memory-v2', topologyObserved: 3, ...settled },
      machineDeploymentOf(name, { generation: 2, observed: 2, suffix: 'new', counts: one, rollingOut: false }),
      [oldMs, machineSetOf(name, 'new', 1, none)],
    ),
    /** The old Machine is marked not up to date: the rollout shows (the old gate failed it `HealthLost` here). */
    rollingOut: step(
      {
        generation: 3,
        observed: 3,
        className: 'in-memory-v2',
        topologyObserved: 3,
        workersUpToDate: false,
        rollingOut: true,
      },
      machineDeploymentOf(name, {
        generation: 2,
        observed: 2,
        suffix: 'new',
        counts: { replicas: 2, upToDate: 1, available: 1 },
        rollingOut: true,
      }),
      [
        machineSetOf(name, 'old', 1, { replicas: 1, upToDate: 0, available: 1 }),
        machineSetOf(name, 'new', 1, { replicas: 1, upToDate: 1, available: 0 }),
      ],
    ),
    /** The new Machine is available and the old one deleted: finished. */
    finished: step(
      { generation: 3, observed: 3, className: 'in-memory-v2', topologyObserved: 3, ...settled },
      machineDeploymentOf(name, { generation: 2, observed: 2, suffix: 'new', counts: one, rollingOut: false }),
      [machineSetOf(name, 'old', 0, none), machineSetOf(name, 'new', 1, one)],
    ),
  };
}
