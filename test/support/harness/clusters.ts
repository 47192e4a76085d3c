// Management and workload clusters for integration tests and the local mode: real control planes with our CRDs
// installed, plus counted kube clients.
import { allKinds } from '#shared/api/kinds.ts';
import { computeCrd } from '#shared/api/gen/compute-crd.ts';
import type { ObjectKey } from '#shared/api/object-meta.ts';
import {
  applyObject,
  createKubeClient,
  installCrds,
  type KubeClient,
  type KubeObject,
  type RequestRecord,
} from '#shared/kube/index.ts';
import { startControlPlane, type ControlPlane } from '#test/support/harness/control-plane.ts';
import {
  startControllerManager,
  type ControllerManager,
  type StartControllerManagerOptions,
} from '#test/support/harness/controller-manager.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';

export const harnessFieldManager = 'capi-serverless-test-harness';

export type RequestLog = {
  readonly records: RequestRecord[];
  /** Requests that change state (dry-runs excluded). */
  mutating(): RequestRecord[];
  reset(): void;
};

export function createRequestLog(): RequestLog {
  const records: RequestRecord[] = [];
  return {
    records,
    mutating: () => records.filter((r) => r.method !== 'GET' && !r.dryRun),
    reset: () => void records.splice(0, records.length),
  };
}

export type TestCluster = {
  readonly controlPlane: ControlPlane;
  /** Admin client; its requests are recorded in `log`. */
  readonly kube: KubeClient;
  readonly log: RequestLog;
  /** A fresh client with its own request log, e.g. the one a pass under test uses. */
  newClient(): Promise<{ kube: KubeClient; log: RequestLog }>;
  /** kube-controller-manager (garbage collector, namespace controller) when started with `controllerManager`. */
  readonly controllerManager: ControllerManager | undefined;
  stop(): Promise<void>;
};

async function wrap(
  controlPlane: ControlPlane,
): Promise<TestCluster & { controllerManager: ControllerManager | undefined }> {
  const newClient = async () => {
    const log = createRequestLog();
    const kube = await createKubeClient(
      { kubeconfig: controlPlane.kubeconfig },
      { onRequest: (r) => log.records.push(r) },
    );
    return { kube, log };
  };
  const { kube, log } = await newClient();
  const cluster = {
    controlPlane,
    kube,
    log,
    newClient,
    controllerManager: undefined as ControllerManager | undefined,
    async stop() {
      kube.close();
      await cluster.controllerManager?.stop();
      await controlPlane.stop();
    },
  };
  return cluster;
}

/** The CRDs of every kind capi-serverless serves, as objects. */
export function ourCrds(): KubeObject[] {
  return allKinds.map((info) => computeCrd(info) as unknown as KubeObject);
}

/**
 * The project's CRDs with every Cluster API kind served (and stored) in v1beta1 only: a server as upstream up to
 * v1.10 serves `cluster.x-k8s.io` and `addons.cluster.x-k8s.io` (the project's add-on CRDs are v1beta1 only).
 */
export function computeV1Beta1OnlyCrds(): KubeObject[] {
  return ourCrds().map((crd) => {
    const spec = crd['spec'] as { group: string; versions: Record<string, unknown>[] };
    if (spec.group !== 'cluster.x-k8s.io' && spec.group !== 'addons.cluster.x-k8s.io') return crd;
    const v1beta1 = spec.versions.find((v) => v['name'] === 'v1beta1');
    return v1beta1 === undefined ? crd : { ...crd, spec: { ...spec, versions: [{ ...v1beta1, storage: true }] } };
  });
}

/**
 * A CRD for a provider kind we treat generically (templates, InfrastructureCluster, ControlPlane): spec and status
 * keep unknown fields, status is a subresource.
 */
export function genericCrd(
  group: string,
  version: string,
  kind: string,
  opts: { plural?: string; namespaced?: boolean; contract?: 'v1beta1' | 'v1beta2' | 'none' } = {},
): KubeObject {
  const plural = opts.plural ?? `${kind.toLowerCase()}s`;
  // NOTE: provider CRDs carry the contract label `cluster.x-k8s.io/<contract>: <versions>`; by default the version
  // names its own contract (v1beta1 or v1beta2), as upstream's providers do.
  const contract = opts.contract ?? (version === 'v1beta1' || version === 'v1beta2' ? version : 'none');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${group}`,
      ...(contract === 'none' ? {} : { labels: { [`cluster.x-k8s.io/${contract}`]: version } }),
    },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: opts.namespaced === false ? 'Cluster' : 'Namespaced',
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * Upstream's own CRDs for the kinds upstream's core module publishes (`cluster.x-k8s.io`, `addons`, `runtime`,
 * `ipam`) and for the Cluster API Operator's kinds (`operator.cluster.x-k8s.io`; they have no `spec.paused`, so
 * providers pause with the `cluster.x-k8s.io/paused` annotation there), ours for anything else. Provider kinds are
 * left to the caller (generic CRDs with contract labels).
 */
export function computeUpstreamCoreCrds(): KubeObject[] {
  const upstream = computeUpstreamCrds({ components: ['core', 'operator'] });
  const names = new Set(upstream.map((crd) => crd.metadata.name));
  return [...upstream, ...ourCrds().filter((crd) => !names.has(crd.metadata.name))];
}

/**
 * A management cluster: control plane + upstream's own CRDs for Cluster API's core kinds (default `crds:
 * 'upstream-core'`, {@link computeUpstreamCoreCrds}) (+ extra CRDs, e.g. generic provider kinds). `extraApiServerArgs`
 * are appended to kube-apiserver's flags. `crds: 'upstream'` installs every upstream component's CRDs (providers too;
 * test/support/harness/upstream-crds.ts, without conversion webhooks: `startUpstreamCapi` adds them), `'ours'` the CRDs
 * generated from our schemas, `'none'` only the extra CRDs. `controllerManager` also runs kube-controller-manager (garbage collector and namespace controllers by
 * default), started after the CRDs are installed so the garbage collector sees their kinds at once.
 */
export async function startManagementCluster(
  opts: {
    name?: string;
    crds?: 'ours' | 'upstream' | 'upstream-core' | 'none';
    extraCrds?: readonly KubeObject[];
    extraApiServerArgs?: readonly string[];
    controllerManager?: boolean | StartControllerManagerOptions;
  } = {},
): Promise<TestCluster> {
  const cluster = await wrap(
    await startControlPlane({
      name: opts.name ?? 'mgmt',
      ...(opts.extraApiServerArgs === undefined ? {} : { extraApiServerArgs: opts.extraApiServerArgs }),
    }),
  );
  try {
    const base = {
      ours: ourCrds,
      upstream: () => computeUpstreamCrds(),
      'upstream-core': computeUpstreamCoreCrds,
      none: () => [],
    }[opts.crds ?? 'upstream-core']();
    await installCrds(cluster.kube, [...base, ...(opts.extraCrds ?? [])], { fieldManager: harnessFieldManager });
    if (opts.controllerManager) {
      cluster.controllerManager = await startControllerManager(
        cluster.controlPlane,
        opts.controllerManager === true ? {} : opts.controllerManager,
      );
    }
    cluster.log.reset();
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/**
 * A workload cluster whose kubeconfig is stored in the management cluster as `<name>-kubeconfig`, as Cluster API does.
 * `extraApiServerArgs` are appended to its kube-apiserver's flags (e.g. an audit log).
 */
export async function startWorkloadCluster(
  mgmt: TestCluster,
  key: ObjectKey,
  opts: { extraApiServerArgs?: readonly string[] } = {},
): Promise<TestCluster> {
  const cluster = await wrap(
    await startControlPlane({
      name: key.name,
      ...(opts.extraApiServerArgs === undefined ? {} : { extraApiServerArgs: opts.extraApiServerArgs }),
    }),
  );
  try {
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          namespace: key.namespace,
          name: `${key.name}-kubeconfig`,
          labels: { 'cluster.x-k8s.io/cluster-name': key.name },
        },
        type: 'cluster.x-k8s.io/secret',
        data: { value: Buffer.from(cluster.controlPlane.kubeconfig).toString('base64') },
      },
      { fieldManager: harnessFieldManager },
    );
    return cluster;
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
