// Raw topology snapshots of one side of the differential (test/diff), as snapshot.ts reads them from an API server:
// a converged Cluster `c` with one MachineDeployment, or one whose control plane was refused at creation (the
// maxsurge0 variant). Each side gets its own random suffixes, uids and times, as two real runs do.
import type { KubeObject } from '#shared/kube/index.ts';
import type { RawSnapshot } from '#test/diff/snapshot.ts';

export type DiffSide = 'upstream' | 'capi-serverless';

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
export type MutableRawSnapshot = Mutable<{
  cluster?: KubeObject;
  objects: Record<string, KubeObject>;
  leftovers: KubeObject[];
}>;

const group = {
  core: 'cluster.x-k8s.io',
  infra: 'infrastructure.cluster.x-k8s.io',
  cp: 'controlplane.cluster.x-k8s.io',
  bootstrap: 'bootstrap.cluster.x-k8s.io',
};
const v = (g: string) => `${g}/v1beta2`;

/** Five characters of upstream's generator alphabet, different per side and per `n`. */
export function randomSuffix(side: DiffSide, n: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const seed = (side === 'upstream' ? 7 : 13) + n * 5;
  return Array.from({ length: 5 }, (_, i) => alphabet[(seed * (i + 3) + i * i) % alphabet.length]).join('');
}

function meta(
  side: DiffSide,
  namespace: string,
  name: string,
  extra: Partial<KubeObject['metadata']> & Record<string, unknown> = {},
): KubeObject['metadata'] {
  return {
    name,
    namespace,
    uid: `${side}-${name}-uid`,
    resourceVersion: side === 'upstream' ? '101' : '2001',
    generation: side === 'upstream' ? 2 : 1,
    creationTimestamp: side === 'upstream' ? '2026-11-27T10:00:00Z' : '2026-11-27T11:00:00Z',
    ...extra,
  };
}

const topologyLabels = { 'cluster.x-k8s.io/cluster-name': 'c', 'topology.cluster.x-k8s.io/owned': '' };
const ownedByCluster = (side: DiffSide) => [
  { apiVersion: v(group.core), kind: 'Cluster', name: 'c', uid: `${side}-c-uid`, controller: undefined },
];
const clean = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

/**
 * One side's raw snapshot of a converged topology (control plane, md-0, their templates and health checks), or with
 * `refusedControlPlane` the state of the maxsurge0 variant: the InfrastructureCluster owned by the cluster shim, the
 * shim Secret and, on upstream's side, the leaked control-plane MachineHealthChecks (`leakedHealthChecks` of them, one held as the role).
 *
 * @example
 * const upstream = buildRawSnapshot('upstream', { namespace: 'd01-base-variables' });
 */
export function buildRawSnapshot(
  side: DiffSide,
  opts: {
    namespace: string;
    version?: string;
    /** The MachineDeployments' version, when it is not `version` (mid-upgrade). */
    workerVersion?: string;
    refusedControlPlane?: boolean;
    leakedHealthChecks?: number;
    /** Rotations of md-0's infrastructure template so far (a new generated name each). */
    mdInfraRotation?: number;
    /** Rotations of md-0's bootstrap template so far (a new generated name each). */
    mdBootstrapRotation?: number;
  },
): MutableRawSnapshot {
  const ns = opts.namespace;
  const version = opts.version ?? 'v1.36.0';
  const s = (n: number) => randomSuffix(side, n);
  const infraName = `c-${s(1)}`;
  const cpName = `c-${s(2)}`;
  const cpTemplate = `c-${s(3)}`;
  const mdName = `c-md-0-${s(4)}`;
  const mdInfra = `c-md-0-${s(10 + (opts.mdInfraRotation ?? 0))}`;
  const mdBootstrap = `c-md-0-${s(opts.mdBootstrapRotation ? 20 + opts.mdBootstrapRotation : 6)}`;
  const mdHealthCheck = `c-md-0-${s(7)}`;
  const refused = opts.refusedControlPlane ?? false;
  const infraCluster: KubeObject = {
    apiVersion: v(group.infra),
    kind: 'DevCluster',
    metadata: meta(side, ns, infraName, {
      labels: { ...topologyLabels },
      annotations: {},
      ...(refused
        ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'c-shim', uid: `${side}-shim-uid` }] }
        : { ownerReferences: ownedByCluster(side), finalizers: ['dockercluster.infrastructure.cluster.x-k8s.io'] }),
      ...(refused ? {} : { annotations: { 'inmemorycluster.infrastructure.cluster.x-k8s.io/listener': `${ns}/c` } }),
    }),
    spec: {
      backend: { inMemory: {} },
      ...(refused ? {} : { controlPlaneEndpoint: { host: '127.0.0.1', port: side === 'upstream' ? 20001 : 20007 } }),
    },
  };
  const cluster: KubeObject = {
    apiVersion: v(group.core),
    kind: 'Cluster',
    metadata: meta(side, ns, 'c', { labels: { team: 'a' }, annotations: {} }),
    spec: {
      infrastructureRef: { apiGroup: group.infra, kind: 'DevCluster', name: infraName },
      ...(refused ? {} : { controlPlaneRef: { apiGroup: group.cp, kind: 'KubeadmControlPlane', name: cpName } }),
      topology: {
        classRef: { name: 'in-memory' },
        version,
        workers: { machineDeployments: [{ class: 'default-worker', name: 'md-0', replicas: 1 }] },
      },
    },
    status: {
      conditions: [
        refused
          ? {
              type: 'TopologyReconciled',
              status: 'False',
              reason: 'ReconcileFailed',
              message: `failed to create KubeadmControlPlane.controlplane.cluster.x-k8s.io: admission webhook denied the request`,
              lastTransitionTime: '2026-11-27T10:00:05Z',
            }
          : {
              type: 'TopologyReconciled',
              status: 'True',
              reason: 'ReconcileSucceeded',
              lastTransitionTime: '2026-11-27T10:00:05Z',
              observedGeneration: side === 'upstream' ? 2 : 1,
            },
      ],
    },
  };
  const objects: Record<string, KubeObject> = { InfrastructureCluster: infraCluster };
  // NOTE: the cluster shim Secret lives while the control plane is not created (both sides, as upstream).
  if (refused)
    objects['ClusterShim'] = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(side, ns, 'c-shim', {
        ownerReferences: [{ apiVersion: v(group.core), kind: 'Cluster', name: 'c', uid: `${side}-c-uid` }],
      }),
      type: 'cluster.x-k8s.io/secret',
    };
  const leftovers: KubeObject[] = [];
  const controlPlaneHealthCheck = (name: string): KubeObject => ({
    apiVersion: v(group.core),
    kind: 'MachineHealthCheck',
    metadata: meta(side, ns, name, {
      labels: { ...topologyLabels },
      annotations: {},
      ownerReferences: ownedByCluster(side),
      // NOTE: the field set both sides' topology applies to a control-plane MachineHealthCheck (upstream's leaked
      // copies carry it too, as the run of 2026-11-28 recorded).
      managedFields: [
        {
          manager: 'capi-topology',
          operation: 'Apply',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
              'f:ownerReferences': { [`k:{"uid":"${side}-c-uid"}`]: {} },
            },
            'f:spec': {
              'f:checks': { 'f:nodeStartupTimeoutSeconds': {}, 'f:unhealthyNodeConditions': {} },
              'f:clusterName': {},
              'f:selector': {},
            },
          },
        },
      ],
    }),
    spec: {
      clusterName: 'c',
      selector: { matchLabels: { 'cluster.x-k8s.io/control-plane': '', 'topology.cluster.x-k8s.io/owned': '' } },
      checks: {
        nodeStartupTimeoutSeconds: 600,
        unhealthyNodeConditions: [
          { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
          { type: 'Ready', status: 'False', timeoutSeconds: 300 },
        ],
      },
    },
  });
  if (refused) {
    const leaked = side === 'upstream' ? (opts.leakedHealthChecks ?? 3) : 0;
    for (let i = 0; i < leaked; i++) {
      const mhc = controlPlaneHealthCheck(`c-${s(20 + i)}`);
      if (i === 0) objects['MachineHealthCheck/ControlPlane'] = mhc;
      else leftovers.push(mhc);
    }
    return clean({ cluster, objects, leftovers });
  }
  objects['ControlPlane'] = {
    apiVersion: v(group.cp),
    kind: 'KubeadmControlPlane',
    metadata: meta(side, ns, cpName, {
      labels: { ...topologyLabels },
      annotations: { 'cluster.x-k8s.io/cloned-from-name': 'in-memory-control-plane' },
      ownerReferences: ownedByCluster(side),
      finalizers: ['kubeadm.controlplane.cluster.x-k8s.io'],
      managedFields: [
        {
          manager: 'capi-topology',
          operation: 'Apply',
          fieldsType: 'FieldsV1',
          time: side === 'upstream' ? '2026-11-27T10:00:01Z' : '2026-11-27T11:00:01Z',
          fieldsV1: {
            'f:metadata': {
              'f:labels': { 'f:cluster.x-k8s.io/cluster-name': {}, 'f:topology.cluster.x-k8s.io/owned': {} },
              'f:ownerReferences': { [`k:{"uid":"${side}-c-uid"}`]: {} },
            },
            'f:spec': {
              'f:replicas': {},
              'f:version': {},
              'f:machineTemplate': { 'f:spec': { 'f:infrastructureRef': {} } },
            },
          },
        },
        {
          manager: 'manager',
          operation: 'Update',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:finalizers': {} } },
        },
      ],
    }),
    spec: {
      replicas: 1,
      version,
      machineTemplate: {
        spec: { infrastructureRef: { apiGroup: group.infra, kind: 'DevMachineTemplate', name: cpTemplate } },
      },
    },
  };
  objects['ControlPlane/InfrastructureTemplate'] = {
    apiVersion: v(group.infra),
    kind: 'DevMachineTemplate',
    metadata: meta(side, ns, cpTemplate, {
      labels: { ...topologyLabels },
      annotations: {},
      ownerReferences: [{ apiVersion: v(group.core), kind: 'Cluster', name: 'c', uid: `${side}-c-uid` }],
    }),
    spec: { template: { spec: { backend: { inMemory: { vm: { provisioning: { startupDuration: '1s' } } } } } } },
  };
  const mdLabels = { ...topologyLabels, 'topology.cluster.x-k8s.io/deployment-name': 'md-0' };
  objects['MachineDeployment/md-0'] = {
    apiVersion: v(group.core),
    kind: 'MachineDeployment',
    metadata: meta(side, ns, mdName, {
      labels: { ...mdLabels },
      annotations: {},
      ownerReferences: ownedByCluster(side),
      finalizers: [
        'cluster.x-k8s.io/machinedeployment',
        ...(side === 'upstream' ? ['machinedeployment.topology.cluster.x-k8s.io'] : []),
      ],
    }),
    spec: {
      clusterName: 'c',
      replicas: 1,
      template: {
        metadata: { labels: { ...mdLabels } },
        spec: {
          clusterName: 'c',
          version: opts.workerVersion ?? version,
          infrastructureRef: { apiGroup: group.infra, kind: 'DevMachineTemplate', name: mdInfra },
          bootstrap: { configRef: { apiGroup: group.bootstrap, kind: 'KubeadmConfigTemplate', name: mdBootstrap } },
        },
      },
    },
  };
  objects['MachineDeployment/md-0/InfrastructureTemplate'] = {
    apiVersion: v(group.infra),
    kind: 'DevMachineTemplate',
    metadata: meta(side, ns, mdInfra, {
      labels: { ...mdLabels },
      annotations: {},
      ownerReferences: ownedByCluster(side),
    }),
    spec: { template: { spec: { backend: { inMemory: {} } } } },
  };
  objects['MachineDeployment/md-0/BootstrapTemplate'] = {
    apiVersion: v(group.bootstrap),
    kind: 'KubeadmConfigTemplate',
    metadata: meta(side, ns, mdBootstrap, {
      labels: { ...mdLabels },
      annotations: {},
      ownerReferences: ownedByCluster(side),
    }),
    spec: { template: { spec: {} } },
  };
  objects['MachineHealthCheck/ControlPlane'] = controlPlaneHealthCheck(cpName);
  objects['MachineHealthCheck/MachineDeployment/md-0'] = {
    apiVersion: v(group.core),
    kind: 'MachineHealthCheck',
    metadata: meta(side, ns, mdHealthCheck, {
      labels: { ...topologyLabels },
      annotations: {},
      ownerReferences: ownedByCluster(side),
    }),
    spec: {
      clusterName: 'c',
      selector: {
        matchLabels: { 'topology.cluster.x-k8s.io/deployment-name': 'md-0', 'topology.cluster.x-k8s.io/owned': '' },
      },
      checks: { nodeStartupTimeoutSeconds: 600 },
    },
  };
  return clean({ cluster, objects, leftovers });
}

/** Freezes a raw snapshot deeply, so a normalisation that mutates its input fails loudly. */
export function freezeRaw(raw: MutableRawSnapshot): RawSnapshot {
  const freeze = (o: unknown): unknown => {
    if (o && typeof o === 'object') {
      for (const value of Object.values(o)) freeze(value);
      Object.freeze(o);
    }
    return o;
  };
  return freeze(raw) as RawSnapshot;
}
