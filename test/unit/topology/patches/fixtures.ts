// Fixtures for the patch engine tests: frozen templates from test/fixtures/topology/patches, targets, variables, builtins.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Topology } from '#shared/api/v1beta2/cluster.ts';
import type { ClusterClassPatch, JSONPatch, PatchSelector } from '#shared/api/v1beta2/cluster-class.ts';
import type { ClusterClassStatusVariable } from '#shared/api/v1beta2/variables.ts';
import { computePatchTargets } from '#shared/topology/patches/index.ts';
import type { PatchBuiltins, PatchTarget, PatchVariablesInput } from '#shared/topology/patches/index.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** Freezes a value and everything in it, so a function that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function readFixture(name: string): string {
  return readFileSync(new URL(`../../../fixtures/topology/patches/${name}`, import.meta.url), 'utf8');
}

const templateList = parseAllDocuments(readFixture('templates.yaml')).map((doc) => doc.toJS() as Unstructured);

function templateNamed(name: string): Unstructured {
  const found = templateList.find((t) => t.metadata.name === name);
  if (!found) throw new Error(`no template ${name} in templates.yaml`);
  return deepFreeze(found);
}

export const templates = {
  infrastructureCluster: templateNamed('quick-start-cluster'),
  controlPlane: templateNamed('quick-start-control-plane'),
  controlPlaneMachine: templateNamed('quick-start-control-plane-machine'),
  workerBootstrap: templateNamed('quick-start-worker-bootstrap'),
  workerMachine: templateNamed('quick-start-worker-machine'),
  poolBootstrap: templateNamed('quick-start-pool-bootstrap'),
  poolMachine: templateNamed('quick-start-pool-machine'),
} as const;

export const api = {
  awsCluster: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'AWSClusterTemplate' },
  kcp: { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlaneTemplate' },
  awsMachine: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'AWSMachineTemplate' },
  kubeadmConfig: { apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1', kind: 'KubeadmConfigTemplate' },
  awsPool: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'AWSMachinePoolTemplate' },
} as const;

/** Targets: InfrastructureCluster, ControlPlane, its machine, md-a/md-b (classes default-worker, gpu-worker), mp-a. */
export const targets: readonly PatchTarget[] = deepFreeze(
  computePatchTargets({
    infrastructureClusterTemplate: templates.infrastructureCluster,
    controlPlaneTemplate: templates.controlPlane,
    controlPlaneInfrastructureMachineTemplate: templates.controlPlaneMachine,
    machineDeployments: [
      {
        topologyName: 'md-b',
        className: 'gpu-worker',
        bootstrapTemplate: templates.workerBootstrap,
        infrastructureMachineTemplate: templates.workerMachine,
      },
      {
        topologyName: 'md-a',
        className: 'default-worker',
        bootstrapTemplate: templates.workerBootstrap,
        infrastructureMachineTemplate: templates.workerMachine,
      },
    ],
    machinePools: [
      {
        topologyName: 'mp-a',
        className: 'default-pool',
        bootstrapTemplate: templates.poolBootstrap,
        infrastructureMachinePoolTemplate: templates.poolMachine,
      },
    ],
  }),
);

export const builtins: PatchBuiltins = deepFreeze({
  global: {
    cluster: { name: 'c1', namespace: 'default', uid: 'uid-1', topology: { version: 'v1.30.1', class: 'quick-start' } },
  },
  controlPlane: { controlPlane: { name: 'c1-cp', version: 'v1.30.1', replicas: 3 } },
  machineDeployments: {
    'md-a': {
      machineDeployment: {
        name: 'c1-md-a-x1',
        topologyName: 'md-a',
        class: 'default-worker',
        version: 'v1.30.0',
        replicas: 2,
      },
    },
    'md-b': {
      machineDeployment: {
        name: 'c1-md-b-x2',
        topologyName: 'md-b',
        class: 'gpu-worker',
        version: 'v1.30.0',
        replicas: 1,
      },
    },
  },
  machinePools: {
    'mp-a': {
      machinePool: { name: 'c1-mp-a-x3', topologyName: 'mp-a', class: 'default-pool', version: 'v1.30.0', replicas: 4 },
    },
  },
});

/** Status variables defined inline, one per name. */
export function definitions(...names: string[]): ClusterClassStatusVariable[] {
  return names.map((name) => ({
    name,
    definitions: [{ from: 'inline', required: false, schema: { openAPIV3Schema: { type: 'object' } } }],
  }));
}

export const topology: Topology = deepFreeze({
  classRef: { name: 'quick-start' },
  version: 'v1.30.1',
  variables: [
    { name: 'region', value: 'us-east-1' },
    { name: 'instanceType', value: 'm5.large' },
    { name: 'cfg', value: { list: [{ name: 'first', size: 10 }, { name: 'second' }], flag: true, count: 3 } },
    { name: 'undefinedInClass', value: 'ignored' },
    { name: 'builtin', value: { cluster: { name: 'spoofed' } } },
  ],
  controlPlane: { replicas: 3, variables: { overrides: [{ name: 'instanceType', value: 'c5.xlarge' }] } },
  workers: {
    machineDeployments: [
      {
        class: 'default-worker',
        name: 'md-a',
        variables: { overrides: [{ name: 'instanceType', value: 'm5.2xlarge' }] },
      },
      { class: 'gpu-worker', name: 'md-b' },
    ],
    machinePools: [{ class: 'default-pool', name: 'mp-a' }],
  },
});

export const variables: PatchVariablesInput = deepFreeze({
  topology,
  definitions: definitions('region', 'instanceType', 'cfg', 'enabled'),
  builtins,
});

/** A selector for a template kind with the given matchResources. */
export function selector(
  template: { readonly apiVersion: string; readonly kind: string },
  matchResources: PatchSelector['matchResources'],
): PatchSelector {
  return { apiVersion: template.apiVersion, kind: template.kind, matchResources };
}

/** A patch with one definition. */
export function patch(
  name: string,
  sel: PatchSelector,
  jsonPatches: JSONPatch[],
  enabledIf?: string,
): ClusterClassPatch {
  return deepFreeze({
    name,
    ...(enabledIf === undefined ? {} : { enabledIf }),
    definitions: [{ selector: sel, jsonPatches }],
  });
}

export function byId(list: readonly PatchTarget[], id: string): PatchTarget {
  const found = list.find((t) => t.id === id);
  if (!found) throw new Error(`no target ${id}`);
  return found;
}

/** `spec.template.spec` of a target's template. */
export function templateSpec(list: readonly PatchTarget[], id: string): Record<string, unknown> {
  const spec = byId(list, id).template['spec'] as { template: { spec: Record<string, unknown> } };
  return spec.template.spec;
}
