// Shared setup of the add-ons integration tests: one management and two workload control planes per file, Clusters
// registered in per-test namespaces (their kubeconfig Secrets written the way Cluster API writes them), and
// per-cluster request logs for the workload clients a pass uses.
import { after, before } from 'node:test';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import type { AddonsDeps } from '#shared/addons/index.ts';
import {
  applyObject,
  applyStatus,
  findObject,
  getWorkloadClusterClient,
  type KubeClient,
  type KubeObject,
  type RequestRecord,
} from '#shared/kube/index.ts';
import {
  createRequestLog,
  startManagementCluster,
  startWorkloadCluster,
  type RequestLog,
  type TestCluster,
} from '#test/support/harness/clusters.ts';

export const user = 'test-user';
export const addonsFieldManager = 'capi-serverless-addons';

export type AddonsTestContext = {
  mgmt: TestCluster;
  w1: TestCluster;
  w2: TestCluster;
  /** The management client the passes use; its log holds only the passes' requests. */
  pass: { kube: KubeClient; log: RequestLog };
  /** Requests the passes sent to each workload cluster, by `namespace/name` of its Cluster. */
  workloadLogs: Map<string, RequestLog>;
  /** The clock the passes read. */
  clock: { now: Date };
  deps: AddonsDeps;
  /** Every request log a pass writes to (management and all workload clusters). */
  mutating(): RequestRecord[];
  resetLogs(): void;
};

/**
 * Registers before/after hooks starting the three control planes; fields are filled in when the tests run. `mgmt`
 * chooses the management cluster's CRDs (default: upstream's own, see startManagementCluster).
 */
export function useAddonsClusters(mgmt: Parameters<typeof startManagementCluster>[0] = {}): AddonsTestContext {
  const context = {
    workloadLogs: new Map<string, RequestLog>(),
    clock: { now: new Date('2024-05-01T10:00:00Z') },
  } as AddonsTestContext;
  before(async () => {
    context.mgmt = await startManagementCluster(mgmt);
    context.w1 = await startWorkloadCluster(context.mgmt, { namespace: 'default', name: 'w1' });
    context.w2 = await startWorkloadCluster(context.mgmt, { namespace: 'default', name: 'w2' });
    context.pass = await context.mgmt.newClient();
    const logOf = (key: ObjectKey) => {
      const id = `${key.namespace}/${key.name}`;
      let log = context.workloadLogs.get(id);
      if (!log) context.workloadLogs.set(id, (log = createRequestLog()));
      return log;
    };
    context.deps = {
      kube: context.pass.kube,
      workloadClient: (key) =>
        getWorkloadClusterClient(context.pass.kube, key, { onRequest: (r) => logOf(key).records.push(r) }),
      now: () => context.clock.now,
      fieldManager: addonsFieldManager,
    };
    context.mutating = () => [
      ...context.pass.log.mutating(),
      ...[...context.workloadLogs.values()].flatMap((log) => log.mutating()),
    ];
    context.resetLogs = () => {
      context.pass.log.reset();
      for (const log of context.workloadLogs.values()) log.reset();
    };
  });
  after(async () => {
    context.pass?.kube.close();
    await context.w2?.stop();
    await context.w1?.stop();
    await context.mgmt?.stop();
  });
  return context;
}

export async function ensureNamespace(kube: KubeClient, name: string): Promise<void> {
  await applyObject(kube, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager: user });
}

/**
 * A Cluster in the management cluster whose workload control plane is `target`, with its `<name>-kubeconfig` Secret
 * (unless `kubeconfig: false`) and `status.initialization.infrastructureProvisioned` (unless `infrastructureReady: false`).
 */
export async function registerCluster(
  mgmt: TestCluster,
  key: ObjectKey,
  target: TestCluster,
  opts: { labels?: Record<string, string>; infrastructureReady?: boolean; kubeconfig?: boolean } = {},
): Promise<void> {
  const cluster: KubeObject = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { ...key, labels: opts.labels ?? {} },
    // NOTE: upstream's CRD wants a non-empty spec (minProperties 1).
    spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
  };
  await applyObject(mgmt.kube, cluster, { fieldManager: user });
  await applyStatus(
    mgmt.kube,
    { ...cluster, status: { initialization: { infrastructureProvisioned: opts.infrastructureReady ?? true } } },
    { fieldManager: user },
  );
  if (opts.kubeconfig === false) return;
  await applyObject(
    mgmt.kube,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...key, name: `${key.name}-kubeconfig`, labels: { 'cluster.x-k8s.io/cluster-name': key.name } },
      type: 'cluster.x-k8s.io/secret',
      data: { value: Buffer.from(target.controlPlane.kubeconfig).toString('base64') },
    },
    { fieldManager: user },
  );
}

/** A ConfigMap manifest for a workload cluster. */
export function configMap(namespace: string | undefined, name: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    data,
  };
}

/** Several manifests as one multi-document YAML value (JSON is valid YAML). */
export function yamlDocs(...objects: readonly object[]): string {
  return objects.map((o) => JSON.stringify(o, null, 2)).join('\n---\n');
}

/** Creates or replaces (by server-side apply) a resource ConfigMap in the management cluster. */
export async function putResourceConfigMap(
  mgmt: TestCluster,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<void> {
  await applyObject(mgmt.kube, configMap(namespace, name, data), { fieldManager: user, force: true });
}

/** Creates or replaces a ClusterResourceSet. */
export async function putClusterResourceSet(
  mgmt: TestCluster,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await applyObject(
    mgmt.kube,
    { apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet', metadata: { namespace, name }, spec },
    { fieldManager: user, force: true },
  );
}

/** The `data` of a ConfigMap in a cluster, or undefined when it does not exist. */
export async function configMapData(
  kube: KubeClient,
  namespace: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  const obj = await findObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
  return obj === undefined ? undefined : ((obj['data'] ?? {}) as Record<string, string>);
}
