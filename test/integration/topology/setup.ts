// Shared setup of the topology integration tests: one management cluster per file with generic provider CRDs (the
// worker DockerMachineTemplate with a real schema, so the API server can reject a bad patch result), a ClusterClass
// with two MachineDeployment classes, variables and patches, and helpers to run passes and read objects.
import { after, before } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import type { ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import {
  applyObject,
  applyStatus,
  findObject,
  getObject,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import {
  reconcileClusterClass,
  reconcileTopology,
  type TopologyDeps,
  type TopologyOutcome,
} from '#shared/topology/index.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { ClusterBuilder, ClusterClassBuilder, sequentialSuffix, templates } from '#test/support/builders/topology.ts';
import {
  genericCrd,
  startManagementCluster,
  type RequestLog,
  type TestCluster,
} from '#test/support/harness/clusters.ts';

export const user = 'test-user';

/** The value of a Cluster variable (any JSON value). */
export type VariableValue = ClusterVariable['value'];
export const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
export const capi = 'cluster.x-k8s.io/v1beta2';

/** DockerMachineTemplate with a real schema for `spec.template.spec.customImage` (a string), everything else kept. */
function dockerMachineTemplateCrd(): KubeObject {
  const crd = genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate');
  const keep = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const versions = (crd['spec'] as { versions: { schema: { openAPIV3Schema: { properties: object } } }[] }).versions;
  const schema = versions[0]!.schema.openAPIV3Schema;
  schema.properties = {
    ...schema.properties,
    spec: {
      ...keep,
      properties: {
        template: { ...keep, properties: { spec: { ...keep, properties: { customImage: { type: 'string' } } } } },
      },
    },
  };
  return crd;
}

export type TopologyTestContext = {
  mgmt: TestCluster;
  /** The client the passes use; its log holds only the passes' requests. */
  pass: { kube: KubeClient; log: RequestLog };
  clock: { now: Date };
  deps: TopologyDeps;
};

/** Registers before/after hooks starting the management cluster; fields are filled in when the tests run. */
export function useTopologyCluster(): TopologyTestContext {
  const context = { clock: { now: new Date('2024-05-01T10:00:00Z') } } as TopologyTestContext;
  before(async () => {
    context.mgmt = await startManagementCluster({
      crds: 'upstream-core',
      extraCrds: [
        genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
        genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
        genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
        genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
        genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
        dockerMachineTemplateCrd(),
      ],
    });
    context.pass = await context.mgmt.newClient();
    context.deps = { kube: context.pass.kube, randomSuffix: sequentialSuffix(), now: () => context.clock.now };
  });
  after(async () => {
    context.pass?.kube.close();
    await context.mgmt?.stop();
  });
  return context;
}

/**
 * The test ClusterClass: two MachineDeployment classes (`default-worker` with a health check and a label,
 * `big-worker`), variables `workerImage` (string, defaulted), `lbImageTag` (string, defaulted) and `brokenImage` (boolean,
 * default false) and patches writing them into the worker DockerMachineTemplates and the DockerClusterTemplate;
 * `brokenImage` writes an integer into `customImage`, which the API server rejects.
 */
export function testClusterClass(namespace: string): ClusterClass {
  const ref = (t: Unstructured) => ({ apiVersion: t.apiVersion, kind: t.kind, name: t.metadata.name ?? '' });
  return new ClusterClassBuilder('quick-start')
    .with((cc) => {
      cc.metadata.namespace = namespace;
      const workers = cc.spec.workers!.machineDeployments!;
      workers[0] = {
        ...workers[0]!,
        metadata: { labels: { 'class-label': 'one', 'role.example.com/worker': '' } },
        healthCheck: {
          checks: { unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }] },
        },
        deletion: { nodeDrainTimeoutSeconds: 300 },
      };
      workers.push({
        class: 'big-worker',
        bootstrap: { templateRef: ref(templates.workerBootstrap()) },
        infrastructure: { templateRef: ref(templates.workerMachine()) },
      });
    })
    .variables([
      {
        name: 'workerImage',
        required: true,
        schema: { openAPIV3Schema: { type: 'string', default: 'kindest/node:v1.30.0' } },
      },
      { name: 'lbImageTag', required: true, schema: { openAPIV3Schema: { type: 'string', default: 'v1' } } },
      { name: 'brokenImage', required: false, schema: { openAPIV3Schema: { type: 'boolean', default: false } } },
    ])
    .patches([
      {
        name: 'worker-image',
        definitions: [
          {
            selector: {
              apiVersion: infra,
              kind: 'DockerMachineTemplate',
              matchResources: { machineDeploymentClass: { names: ['default-worker', 'big-worker'] } },
            },
            jsonPatches: [
              { op: 'add', path: '/spec/template/spec/customImage', valueFrom: { variable: 'workerImage' } },
            ],
          },
        ],
      },
      {
        name: 'lb-image-tag',
        definitions: [
          {
            selector: {
              apiVersion: infra,
              kind: 'DockerClusterTemplate',
              matchResources: { infrastructureCluster: true },
            },
            jsonPatches: [
              { op: 'add', path: '/spec/template/spec/loadBalancer/imageTag', valueFrom: { variable: 'lbImageTag' } },
            ],
          },
        ],
      },
      {
        name: 'broken-image',
        enabledIf: '{{ .brokenImage }}',
        definitions: [
          {
            selector: {
              apiVersion: infra,
              kind: 'DockerMachineTemplate',
              matchResources: { machineDeploymentClass: { names: ['default-worker'] } },
            },
            jsonPatches: [{ op: 'replace', path: '/spec/template/spec/customImage', value: 42 }],
          },
        ],
      },
    ])
    .build();
}

/** A Cluster of the test class with MachineDeployments `md-a` (default-worker) and `md-b` (big-worker). */
export function testCluster(namespace: string, name: string, variables: Record<string, VariableValue> = {}): Cluster {
  return new ClusterBuilder(name)
    .with((c) => {
      c.metadata = { namespace, name };
      // NOTE: v1beta2 lists have at least one item: no variables means no field.
      const values = Object.entries(variables).map(([n, value]) => ({ name: n, value }));
      if (values.length > 0) c.spec!.topology!.variables = values;
    })
    .machineDeployments([
      { class: 'default-worker', name: 'md-a', replicas: 2 },
      { class: 'big-worker', name: 'md-b', replicas: 1 },
    ])
    .build();
}

/** Applies `obj` as the test user (server-side apply, forced). */
export async function put(ctx: TopologyTestContext, obj: object): Promise<KubeObject> {
  return applyObject(ctx.mgmt.kube, obj as KubeObject, { fieldManager: user, force: true });
}

/** Creates a namespace with the class's templates and the ClusterClass, and runs a ClusterClass pass. */
export async function setUpClass(ctx: TopologyTestContext, namespace: string, cc = testClusterClass(namespace)) {
  await put(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const t of Object.values(templates)) {
    const template = t();
    await put(ctx, { ...template, metadata: { ...template.metadata, namespace } });
  }
  await put(ctx, cc);
  const outcome = await reconcileClusterClass(ctx.deps, { namespace, name: cc.metadata.name ?? '' });
  if (outcome.result !== 'Success') throw new Error(`ClusterClass pass failed: ${outcome.error ?? outcome.result}`);
}

export function pass(ctx: TopologyTestContext, key: ObjectKey): Promise<TopologyOutcome> {
  return reconcileTopology(ctx.deps, key);
}

export async function get(ctx: TopologyTestContext, apiVersion: string, kind: string, key: ObjectKey) {
  return (await findObject(ctx.mgmt.kube, { apiVersion, kind, ...key })) as Unstructured | undefined;
}

export async function mustGet(ctx: TopologyTestContext, apiVersion: string, kind: string, key: ObjectKey) {
  return (await getObject(ctx.mgmt.kube, { apiVersion, kind, ...key })) as Unstructured;
}

export async function list(ctx: TopologyTestContext, apiVersion: string, kind: string, namespace: string) {
  return (await listObjects(ctx.mgmt.kube, { apiVersion, kind, namespace })).items as Unstructured[];
}

/** The MachineDeployment of topology `name`, found by its label. */
export async function machineDeployment(ctx: TopologyTestContext, namespace: string, topologyName: string) {
  const mds = await list(ctx, capi, 'MachineDeployment', namespace);
  return mds.find((md) => md.metadata.labels?.['topology.cluster.x-k8s.io/deployment-name'] === topologyName);
}

/** Sets the ControlPlane's status through the status subresource, as its provider would. */
export async function setControlPlaneStatus(ctx: TopologyTestContext, cp: Unstructured, status: object) {
  await applyStatus(
    ctx.mgmt.kube,
    {
      apiVersion: cp.apiVersion,
      kind: cp.kind,
      metadata: { namespace: cp.metadata.namespace, name: cp.metadata.name },
      status,
    } as KubeObject,
    { fieldManager: 'kubeadm-control-plane', force: true },
  );
}

/** The TopologyReconciled condition of a Cluster. */
export async function topologyCondition(ctx: TopologyTestContext, key: ObjectKey) {
  const cluster = await mustGet(ctx, capi, 'Cluster', key);
  const conditions = (cluster['status'] as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c['type'] === 'TopologyReconciled');
}

/** `dig(obj, 'spec', 'template', …)` — a nested field of an unstructured object. */
export function dig(obj: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], obj);
}
