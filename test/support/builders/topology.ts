// Fluent builders for topology inputs: a Docker-style ClusterClass with its templates and a Cluster using it.
import type { Cluster, MachineDeploymentTopology } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass, ClusterClassPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import { computeAssumedContract } from '#shared/topology/contract/contract-version.ts';
import type { Blueprint, CurrentState, Unstructured } from '#shared/topology/types.ts';

export const ns = 'default';

/** The API version of the provider templates the builders use (upstream v1.14's providers serve v1beta2). */
export const providerVersion = 'v1beta2';

export function template(apiVersion: string, kind: string, name: string, spec: Record<string, unknown>): Unstructured {
  return { apiVersion, kind, metadata: { namespace: ns, name }, spec };
}

export const templates = {
  infraCluster: () =>
    template(`infrastructure.cluster.x-k8s.io/${providerVersion}`, 'DockerClusterTemplate', 'quick-start-cluster', {
      template: { spec: { loadBalancer: { imageTag: 'v1' } } },
    }),
  controlPlane: () =>
    template(
      `controlplane.cluster.x-k8s.io/${providerVersion}`,
      'KubeadmControlPlaneTemplate',
      'quick-start-control-plane',
      {
        template: {
          metadata: { labels: { 'from-template': 'cp' } },
          spec: { kubeadmConfigSpec: { clusterConfiguration: { apiServer: { certSANs: ['localhost'] } } } },
        },
      },
    ),
  cpMachine: () =>
    template(
      `infrastructure.cluster.x-k8s.io/${providerVersion}`,
      'DockerMachineTemplate',
      'quick-start-control-plane',
      {
        template: { spec: { extraMounts: [] } },
      },
    ),
  workerMachine: () =>
    template(
      `infrastructure.cluster.x-k8s.io/${providerVersion}`,
      'DockerMachineTemplate',
      'quick-start-default-worker-machinetemplate',
      { template: { spec: { customImage: 'kindest/node:v1' } } },
    ),
  workerBootstrap: () =>
    template(
      `bootstrap.cluster.x-k8s.io/${providerVersion}`,
      'KubeadmConfigTemplate',
      'quick-start-default-worker-bootstraptemplate',
      { template: { spec: { joinConfiguration: { nodeRegistration: {} } } } },
    ),
};

const ref = (t: Unstructured) => ({ apiVersion: t.apiVersion, kind: t.kind, name: t.metadata.name ?? '' });

export class ClusterClassBuilder {
  private cc: ClusterClass;
  constructor(name = 'quick-start') {
    this.cc = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      metadata: { namespace: ns, name },
      spec: {
        infrastructure: { templateRef: ref(templates.infraCluster()) },
        controlPlane: {
          templateRef: ref(templates.controlPlane()),
          machineInfrastructure: { templateRef: ref(templates.cpMachine()) },
        },
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              bootstrap: { templateRef: ref(templates.workerBootstrap()) },
              infrastructure: { templateRef: ref(templates.workerMachine()) },
            },
          ],
        },
      },
    };
  }
  with(fn: (cc: ClusterClass) => void): this {
    fn(this.cc);
    return this;
  }
  variables(vars: ClusterClassVariable[]): this {
    this.cc.spec = { ...this.cc.spec, variables: vars };
    return this;
  }
  patches(patches: ClusterClassPatch[]): this {
    this.cc.spec = { ...this.cc.spec, patches };
    return this;
  }
  build(): ClusterClass {
    return structuredClone(this.cc);
  }
}

/** The blueprint of a ClusterClass built by ClusterClassBuilder (templates from `templates`). */
export function blueprintFor(cc: ClusterClass): Blueprint {
  const mdClasses = cc.spec.workers?.machineDeployments ?? [];
  const controlPlaneTemplate = templates.controlPlane();
  return {
    clusterClass: cc,
    infrastructureClusterTemplate: templates.infraCluster(),
    controlPlaneTemplate,
    controlPlaneInfrastructureMachineTemplate: cc.spec.controlPlane.machineInfrastructure
      ? templates.cpMachine()
      : undefined,
    controlPlaneContract: computeAssumedContract(controlPlaneTemplate.apiVersion.split('/')[1] ?? ''),
    machineDeployments: Object.fromEntries(
      mdClasses.map((c) => [
        c.class,
        {
          className: c.class,
          bootstrapTemplate: templates.workerBootstrap(),
          infrastructureMachineTemplate: templates.workerMachine(),
        },
      ]),
    ),
    machinePools: {},
  };
}

export class ClusterBuilder {
  private c: Cluster;
  constructor(name = 'c1') {
    this.c = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { namespace: ns, name, uid: 'uid-c1' },
      spec: {
        clusterNetwork: {
          pods: { cidrBlocks: ['192.168.0.0/16'] },
          services: { cidrBlocks: ['10.128.0.0/12'] },
          serviceDomain: 'cluster.local',
        },
        topology: {
          classRef: { name: 'quick-start' },
          version: 'v1.30.0',
          controlPlane: { replicas: 3 },
          workers: { machineDeployments: [{ class: 'default-worker', name: 'md-0', replicas: 2 }] },
        },
      },
    };
  }
  with(fn: (c: Cluster) => void): this {
    fn(this.c);
    return this;
  }
  machineDeployments(mds: MachineDeploymentTopology[]): this {
    const t = this.c.spec!.topology!;
    t.workers = { ...t.workers, machineDeployments: mds };
    return this;
  }
  build(): Cluster {
    return structuredClone(this.c);
  }
}

/** A current state with nothing created yet. */
export function emptyCurrent(cluster: Cluster): CurrentState {
  return { cluster, machineDeployments: {}, machinePools: {} };
}

/** A deterministic suffix generator: aaaaa, aaaab, … */
export function sequentialSuffix(): () => string {
  let n = 0;
  return () =>
    (n++)
      .toString(27)
      .padStart(5, '0')
      .replace(/[0-9a-q]/g, (d) => 'bcdfghjklmnpqrstvwxz2456789'[parseInt(d, 27)]!);
}

/** Freezes a value deeply so a mutation in code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
