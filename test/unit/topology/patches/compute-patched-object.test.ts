import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computePatchedDesiredState,
  computePatchedObject,
  computePatchedTargets,
  computePatchedTemplate,
  controlPlanePreserveFields,
  MissingPatchTargetError,
  PatchedObjectError,
} from '#shared/topology/patches/index.ts';
import type { FieldPath } from '#shared/topology/patches/index.ts';
import type {
  DesiredMachineDeployment,
  DesiredMachinePool,
  DesiredState,
  Unstructured,
} from '#shared/topology/types.ts';
import { api, byId, deepFreeze, patch, selector, targets, variables } from '#test/support/fixtures/topology/patches.ts';

function kcpTemplate(spec: Record<string, unknown>): Unstructured {
  return deepFreeze({
    apiVersion: api.kcp.apiVersion,
    kind: api.kcp.kind,
    metadata: { name: 'cp-template', namespace: 'default' },
    spec: { template: { spec } },
  });
}

const desiredControlPlane: Unstructured = deepFreeze({
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
  kind: 'KubeadmControlPlane',
  metadata: { name: 'c1-cp', namespace: 'default', labels: { a: 'b' } },
  spec: {
    version: 'v1.30.1',
    replicas: 3,
    machineTemplate: {
      metadata: { labels: { x: 'y' } },
      infrastructureRef: { kind: 'AWSMachineTemplate', name: 'c1-cp-abcde' },
      nodeDrainTimeout: '10s',
    },
    kubeadmConfigSpec: { files: [] },
    rolloutStrategy: { type: 'RollingUpdate' },
  },
});

const desiredMachineTemplate = (desiredControlPlane['spec'] as { machineTemplate: Record<string, unknown> })
  .machineTemplate;

const objectCases: {
  name: string;
  patched: Record<string, unknown>;
  preserve: readonly FieldPath[];
  expectedSpec: Record<string, unknown>;
}[] = [
  {
    name: 'replaces the spec with the patched template spec while keeping the preserved control plane fields',
    patched: { kubeadmConfigSpec: { files: [{ path: '/etc/x' }] }, version: 'v9.9.9', replicas: 1 },
    preserve: controlPlanePreserveFields,
    expectedSpec: {
      kubeadmConfigSpec: { files: [{ path: '/etc/x' }] },
      version: 'v1.30.1',
      replicas: 3,
      machineTemplate: desiredMachineTemplate,
    },
  },
  {
    name: 'drops a field the patches removed (and fields only the desired object had)',
    patched: {},
    preserve: controlPlanePreserveFields,
    expectedSpec: {
      version: 'v1.30.1',
      replicas: 3,
      machineTemplate: desiredMachineTemplate,
    },
  },
  {
    name: 'keeps a patched value for a preserved field the desired object did not have',
    patched: { machineTemplate: { nodeDeletionTimeout: '1m' } },
    preserve: controlPlanePreserveFields,
    expectedSpec: {
      version: 'v1.30.1',
      replicas: 3,
      machineTemplate: { ...desiredMachineTemplate, nodeDeletionTimeout: '1m' },
    },
  },
  {
    name: 'preserves nothing without preserve fields',
    patched: { kubeadmConfigSpec: {} },
    preserve: [],
    expectedSpec: { kubeadmConfigSpec: {} },
  },
];

describe('computePatchedObject', () => {
  for (const c of objectCases) {
    test(c.name, () => {
      const result = computePatchedObject(desiredControlPlane, kcpTemplate(c.patched), c.preserve);
      assert.deepEqual(result['spec'], c.expectedSpec);
      assert.deepEqual(result.metadata, desiredControlPlane.metadata);
      assert.equal(result.kind, 'KubeadmControlPlane');
    });
  }

  test('fails when the patched template has no spec.template.spec', () => {
    const broken = deepFreeze({ ...kcpTemplate({}), spec: { template: {} } });
    assert.throws(
      () => computePatchedObject(desiredControlPlane, broken),
      (err: unknown) => err instanceof PatchedObjectError && /missing field "spec.template.spec"/.test(err.message),
    );
  });

  test('fails when a preserved field cannot be put back below a non-object', () => {
    assert.throws(
      () =>
        computePatchedObject(desiredControlPlane, kcpTemplate({ machineTemplate: 'oops' }), controlPlanePreserveFields),
      PatchedObjectError,
    );
  });
});

describe('computePatchedTemplate', () => {
  test("takes spec.template and labels/annotations from the patched template, keeps name and the topology's own labels", () => {
    const desired: Unstructured = deepFreeze({
      apiVersion: api.awsMachine.apiVersion,
      kind: api.awsMachine.kind,
      metadata: {
        name: 'c1-md-a-xyz',
        namespace: 'default',
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'topology.cluster.x-k8s.io/deployment-name': 'md-a' },
        annotations: { from: 'desired', 'cluster.x-k8s.io/cloned-from-name': 'quick-start-worker-machine' },
      },
      spec: { template: { metadata: { labels: { keep: 'me' } }, spec: { instanceType: 't3.medium', old: true } } },
    });
    const patched: Unstructured = deepFreeze({
      apiVersion: api.awsMachine.apiVersion,
      kind: api.awsMachine.kind,
      metadata: {
        name: 'quick-start-worker-machine',
        labels: { 'cluster.x-k8s.io/cluster-name': 'patched', added: 'by-patch' },
        annotations: { from: 'patch' },
      },
      spec: { template: { metadata: { labels: { set: 'by-patch' } }, spec: { instanceType: 'm5.large' } } },
    });
    assert.deepEqual(computePatchedTemplate(desired, patched), {
      ...desired,
      metadata: {
        name: 'c1-md-a-xyz',
        namespace: 'default',
        labels: {
          'cluster.x-k8s.io/cluster-name': 'c1',
          'topology.cluster.x-k8s.io/deployment-name': 'md-a',
          added: 'by-patch',
        },
        annotations: { from: 'patch', 'cluster.x-k8s.io/cloned-from-name': 'quick-start-worker-machine' },
      },
      spec: { template: { metadata: { labels: { set: 'by-patch' } }, spec: { instanceType: 'm5.large' } } },
    });
  });

  test('keeps what the patched template does not have (no labels, no spec.template.metadata)', () => {
    const desired: Unstructured = deepFreeze({
      apiVersion: api.awsMachine.apiVersion,
      kind: api.awsMachine.kind,
      metadata: { name: 'c1-md-a-xyz', namespace: 'default', annotations: { from: 'desired' } },
      spec: { template: { metadata: { labels: { keep: 'me' } }, spec: { instanceType: 't3.medium' } } },
    });
    const patched: Unstructured = deepFreeze({
      apiVersion: api.awsMachine.apiVersion,
      kind: api.awsMachine.kind,
      metadata: { name: 'quick-start-worker-machine' },
      spec: { template: { spec: { instanceType: 'm5.large' } } },
    });
    assert.deepEqual(computePatchedTemplate(desired, patched), {
      ...desired,
      spec: { template: { metadata: { labels: { keep: 'me' } }, spec: { instanceType: 'm5.large' } } },
    });
  });
});

describe('computePatchedObject: metadata from spec.template.metadata (upstream v1.14 patchObject)', () => {
  test("a patch's spec.template.metadata replaces the object's labels and annotations, the topology's own kept", () => {
    const desired: Unstructured = deepFreeze({
      apiVersion: api.kcp.apiVersion,
      kind: api.kcp.kind,
      metadata: {
        name: 'c1-abcde',
        namespace: 'default',
        labels: {
          'cluster.x-k8s.io/cluster-name': 'c1',
          'topology.cluster.x-k8s.io/owned': '',
          'from-topology': 'x',
        },
        annotations: { 'cluster.x-k8s.io/cloned-from-name': 'cp-template', 'from-topology': 'x' },
      },
      spec: { version: 'v1.36.4' },
    });
    // NOTE: upstream's in-memory e2e extension adds /spec/template/metadata with its own labels, replacing the ones
    // synced from the desired object: the object ends up with those and the topology's own labels only.
    const patched = deepFreeze({
      ...kcpTemplate({ kubeadmConfigSpec: {} }),
      spec: {
        template: {
          metadata: { labels: { 'top-level-label-1': 'v' }, annotations: { 'top-level-annotation-1': 'v' } },
          spec: { kubeadmConfigSpec: {} },
        },
      },
    });
    const result = computePatchedObject(desired, patched, controlPlanePreserveFields);
    assert.deepEqual(result.metadata, {
      name: 'c1-abcde',
      namespace: 'default',
      labels: {
        'cluster.x-k8s.io/cluster-name': 'c1',
        'topology.cluster.x-k8s.io/owned': '',
        'top-level-label-1': 'v',
      },
      annotations: { 'cluster.x-k8s.io/cloned-from-name': 'cp-template', 'top-level-annotation-1': 'v' },
    });
    assert.deepEqual(result['spec'], { kubeadmConfigSpec: {}, version: 'v1.36.4' });
  });
});

function named(template: Unstructured, name: string): Unstructured {
  return deepFreeze({ ...template, metadata: { ...template.metadata, name } });
}

function specOf(template: Unstructured): Record<string, unknown> {
  return (template['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
}

describe('computePatchedDesiredState', () => {
  const infraTemplate = byId(targets, 'InfrastructureCluster').template;
  const desired: DesiredState = deepFreeze({
    cluster: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'c1', namespace: 'default' },
    },
    infrastructureCluster: {
      apiVersion: infraTemplate.apiVersion,
      kind: 'AWSCluster',
      metadata: { name: 'c1-abcde', namespace: 'default' },
      spec: specOf(infraTemplate),
    },
    controlPlane: {
      object: desiredControlPlane,
      contract: 'v1beta2',
      infrastructureMachineTemplate: named(byId(targets, 'ControlPlaneMachineInfrastructure').template, 'c1-cp-abcde'),
    },
    machineDeployments: {
      'md-a': {
        object: { metadata: { name: 'c1-md-a-x1' } } as unknown as DesiredMachineDeployment['object'],
        bootstrapTemplate: named(byId(targets, 'MachineDeploymentBootstrap/md-a').template, 'c1-md-a-b'),
        infrastructureMachineTemplate: named(
          byId(targets, 'MachineDeploymentInfrastructure/md-a').template,
          'c1-md-a-i',
        ),
      },
    },
    machinePools: {
      'mp-a': {
        object: { metadata: { name: 'c1-mp-a-x3' } } as unknown as DesiredMachinePool['object'],
        bootstrapObject: {
          apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1',
          kind: 'KubeadmConfig',
          metadata: { name: 'c1-mp-a-b' },
          spec: {},
        },
        infrastructureMachinePoolObject: {
          apiVersion: api.awsPool.apiVersion,
          kind: 'AWSMachinePool',
          metadata: { name: 'c1-mp-a-i' },
          spec: { instanceType: 't3.small' },
        },
      },
    },
    upgrade: {
      controlPlane: {
        isPendingUpgrade: false,
        isProvisioning: false,
        isUpgrading: false,
        isScaling: false,
        isStartingUpgrade: false,
      },
      machineDeployments: { upgrading: [], pendingUpgrade: [], deferredUpgrade: [], pendingCreate: [] },
      machinePools: { upgrading: [], pendingUpgrade: [], deferredUpgrade: [], pendingCreate: [] },
    },
  });

  const patched = computePatchedTargets({
    patches: [
      patch('infra', selector(api.awsCluster, { infrastructureCluster: true }), [
        { op: 'replace', path: '/spec/template/spec/region', valueFrom: { variable: 'region' } },
      ]),
      patch('machines', selector(api.awsMachine, { controlPlane: true, machineDeploymentClass: { names: ['*'] } }), [
        { op: 'replace', path: '/spec/template/spec/instanceType', valueFrom: { variable: 'instanceType' } },
      ]),
      patch('pool', selector(api.awsPool, { machinePoolClass: { names: ['*'] } }), [
        { op: 'replace', path: '/spec/template/spec/instanceType', value: 'huge' },
      ]),
      patch('cp', selector(api.kcp, { controlPlane: true }), [
        { op: 'add', path: '/spec/template/spec/version', value: 'v0' },
      ]),
    ],
    targets,
    variables,
  });

  test('copies every patched template onto its desired object', () => {
    const result = computePatchedDesiredState(desired, patched);
    assert.equal((result.infrastructureCluster['spec'] as Record<string, unknown>)['region'], 'us-east-1');
    assert.equal(result.infrastructureCluster.metadata.name, 'c1-abcde');
    assert.equal(
      specOf(result.controlPlane.infrastructureMachineTemplate as Unstructured)['instanceType'],
      'c5.xlarge',
    );
    assert.equal(
      specOf(result.machineDeployments['md-a']?.infrastructureMachineTemplate as Unstructured)['instanceType'],
      'm5.2xlarge',
    );
    assert.equal(result.machineDeployments['md-a']?.infrastructureMachineTemplate.metadata.name, 'c1-md-a-i');
    assert.equal(
      (result.machinePools['mp-a']?.infrastructureMachinePoolObject['spec'] as Record<string, unknown>)['instanceType'],
      'huge',
    );
    assert.equal((result.controlPlane.object['spec'] as Record<string, unknown>)['version'], 'v1.30.1');
    assert.equal(result.upgrade, desired.upgrade);
  });

  test('fails when a desired MachineDeployment has no patched target', () => {
    const withoutMd = patched.filter((t) => !t.id.startsWith('MachineDeployment'));
    assert.throws(() => computePatchedDesiredState(desired, withoutMd), MissingPatchTargetError);
  });
});
