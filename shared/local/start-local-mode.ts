// The whole product on one machine: a management cluster (the harness's kube-apiserver + etcd, or KUBECONFIG),
// DynamoDB Local, the forwarder watching the cluster, an in-process bus invoking the functions' own handlers, and
// ticks on a timer. Returns a handle that reports readiness and stops everything.
import { randomBytes } from 'node:crypto';
import {
  createCheckpointStore,
  createDynamoDBClient,
  defaultTableName,
  ensureTable,
} from '#shared/checkpoint/index.ts';
import type { Controller } from '#shared/checkpoint/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import {
  applyObject,
  applyStatus,
  createKubeClient,
  createObject,
  findObject,
  getWorkloadClusterClient,
  installCrds,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import type { ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import type { FanOutSink } from '#shared/runtime/fan-out.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { createLocalBus, defaultLocalConcurrency, type LocalBus } from '#shared/runtime/local-bus.ts';
import { reconcilers } from '#shared/controllers.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder, type Forwarder } from '#functions/forwarder/start-forwarder.ts';
import {
  computeUpstreamCoreCrds,
  harnessFieldManager,
  startManagementCluster,
  startWorkloadCluster,
} from '#test/support/harness/clusters.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { computeUpstreamCrds } from '#test/support/harness/upstream-crds.ts';
import {
  computeGatesForAllManagers,
  getInMemoryApiRequests,
  isWriteRequest,
  startUpstreamManagementCluster,
  upstreamCoreWorkloadUserAgent,
  type UpstreamCapi,
} from '#test/support/harness/upstream-capi.ts';
import { startWebhookServer } from '#test/support/harness/webhook-server.ts';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';
import { createWebhooksHandler } from '#shared/webhooks/create-webhooks-handler.ts';
import { loadWebhookConfigurations } from '../../infra/webhooks/webhook-manifests.ts';
import type { LocalConfig } from '#shared/local/local-config.ts';
import {
  addonsExample,
  exampleAddonMode,
  exampleAddonObject,
  exampleCluster,
  exampleCrds,
  providersExample,
  topologyExample,
  upstreamAddonsExample,
  upstreamExampleCluster,
  upstreamTopologyExample,
} from '#shared/local/example-objects.ts';
import { computeProgressLines } from '#shared/local/print-progress.ts';

const localManager = 'capi-serverless-local';

/** The Node major version of the functions' Lambda runtime (infra/: `Runtime.NODEJS_22_X`). */
const lambdaNodeMajor = 22;

export type LocalMode = {
  readonly kubeconfigPath: string;
  /** Resolves with a description once the examples are reconciled (never, with the examples off). */
  readonly ready: Promise<string>;
  /** Stops the ticks, the forwarder and the passes, then every server this process started. */
  stop(): Promise<void>;
};

type Print = (line: string) => void;

/** Creates only the CRDs the cluster lacks: an existing cluster's own (e.g. real Cluster API) CRDs are left alone. */
async function installMissingCrds(kube: KubeClient, crds: readonly KubeObject[]): Promise<number> {
  const missing: KubeObject[] = [];
  for (const crd of crds) {
    const found = await findObject(kube, { apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name ?? '' });
    if (!found) missing.push(crd);
  }
  if (missing.length > 0) await installCrds(kube, missing, { fieldManager: harnessFieldManager });
  return missing.length;
}

async function applyAll(kube: KubeClient, objects: readonly KubeObject[], print: Print): Promise<void> {
  for (const obj of objects) {
    await applyObject(kube, obj, { fieldManager: localManager, force: true });
    const where = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
    print(`  applied ${obj.kind} ${where}${obj.metadata.name ?? ''}`);
  }
}

/** Polls until the example Cluster has its MachineDeployment and (with a workload cluster) the add-on arrived. */
async function waitUntilReconciled(kube: KubeClient, workload: TestCluster | undefined, signal: AbortSignal) {
  for (;;) {
    signal.throwIfAborted();
    try {
      const mds = await listObjects(kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachineDeployment',
        namespace: exampleCluster.namespace,
        labelSelector: `cluster.x-k8s.io/cluster-name=${exampleCluster.name}`,
      });
      const addon = workload ? await findObject(workload.kube, exampleAddonObject) : undefined;
      if (mds.items.length > 0 && (workload === undefined || addon !== undefined)) {
        const names = mds.items.map((md) => md.metadata.name).join(', ');
        return workload
          ? `Cluster ${exampleCluster.namespace}/${exampleCluster.name} has MachineDeployment ${names}; ` +
              `the workload cluster has ConfigMap ${exampleAddonObject.namespace}/${exampleAddonObject.name}`
          : `Cluster ${exampleCluster.namespace}/${exampleCluster.name} has MachineDeployment ${names}`;
      }
    } catch {
      // NOTE: a read during start-up may fail (kinds not served yet); look again.
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

type MachineStatus = { phase?: string };

/**
 * Who wrote ConfigMaps into the in-memory workload cluster, from its request counts by user agent: the add-on must be
 * capi-serverless's, never upstream's core manager's (its ClusterResourceSet controller runs too;
 * docs/beside-upstream.md).
 */
async function describeAddonWriters(upstream: UpstreamCapi): Promise<string> {
  const writes = (await getInMemoryApiRequests(upstream)).filter(
    (r) => r.resource === 'configmaps' && isWriteRequest(r) && r.code.startsWith('2'),
  );
  const byUpstream = writes.filter((r) => r.userAgent.includes(upstreamCoreWorkloadUserAgent));
  if (byUpstream.length > 0)
    return `WRITTEN BY UPSTREAM's core manager too (${byUpstream.map((r) => `${r.verb} ×${r.count}`).join(', ')})`;
  return writes.some((r) => r.userAgent.startsWith('capi-serverless') && r.verb === 'POST')
    ? "created by capi-serverless (upstream's core manager wrote no ConfigMap there)"
    : 'its writer not counted';
}

/**
 * With upstream's managers: polls until the example Cluster runs a control-plane and a worker Machine (upstream's
 * Docker provider, in-memory backend) and the add-on arrived in its workload cluster.
 */
async function waitUntilMachinesRun(
  kube: KubeClient,
  upstream: UpstreamCapi | undefined,
  signal: AbortSignal,
  print: Print,
): Promise<string> {
  const { namespace, name } = upstreamExampleCluster;
  let serviceCreated = false;
  for (;;) {
    signal.throwIfAborted();
    try {
      const machines = await listObjects(kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Machine',
        namespace,
        labelSelector: `cluster.x-k8s.io/cluster-name=${name}`,
      });
      const isControlPlane = (m: KubeObject) => 'cluster.x-k8s.io/control-plane' in (m.metadata.labels ?? {});
      const running = machines.items.filter((m) => (m['status'] as MachineStatus | undefined)?.phase === 'Running');
      if (running.some(isControlPlane) && running.some((m) => !isControlPlane(m))) {
        const workload = await getWorkloadClusterClient(kube, { namespace, name });
        try {
          if (!serviceCreated) {
            // NOTE: the in-memory workload API server serves only what the backend creates: it lacks the Service
            // default/kubernetes a real kube-apiserver creates itself, which the add-on pass reads first to know the
            // cluster answers (as upstream's ensureKubernetesServiceCreated does). Create it as the API server would.
            const service = { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'kubernetes' } as const;
            if (!(await findObject(workload, service))) {
              await createObject(
                workload,
                {
                  apiVersion: 'v1',
                  kind: 'Service',
                  metadata: { namespace: 'default', name: 'kubernetes' },
                  spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
                },
                { fieldManager: 'kube-apiserver' },
              );
              print(`  created Service default/kubernetes in the in-memory workload cluster (its API server lacks it)`);
            }
            serviceCreated = true;
          }
          // NOTE: by content: the in-memory workload API server may answer a read of an object it does not hold.
          const addon = await findObject(workload, exampleAddonObject);
          if ((addon?.['data'] as Record<string, string> | undefined)?.['mode'] === exampleAddonMode) {
            const names = running.map((m) => `${m.metadata.name} (${isControlPlane(m) ? 'control plane' : 'worker'})`);
            const writers = upstream ? `, ${await describeAddonWriters(upstream)}` : '';
            return (
              `Cluster ${namespace}/${name} runs Machines ${names.join(', ')} on upstream's managers; ` +
              `the workload cluster has ConfigMap ${exampleAddonObject.namespace}/${exampleAddonObject.name}${writers}`
            );
          }
        } finally {
          workload.close();
        }
      }
    } catch {
      // NOTE: a read during start-up may fail (kinds not served yet, the workload cluster not up); look again.
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** Waits for the passes in flight, but not forever: a pass stuck on a dead server must not block Ctrl-C. */
async function drainWithin(bus: LocalBus, ms: number, print: Print): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const outcome = await Promise.race([bus.stop().then(() => 'drained' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') print(`  passes still running after ${ms / 1000} s; leaving them`);
}

/**
 * Starts the local mode; `print` receives every progress line.
 *
 * @example
 * const local = await startLocalMode(computeLocalConfig(process.env), console.log);
 * console.log(await local.ready);
 * await local.stop();
 */
export async function startLocalMode(config: LocalConfig, print: Print): Promise<LocalMode> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      await stop().catch((err: unknown) => print(`  (while stopping: ${errorMessage(err)})`));
    }
  };
  try {
    return await start(config, print, stops, stopAll);
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function start(
  config: LocalConfig,
  print: Print,
  stops: (() => Promise<void>)[],
  stopAll: () => Promise<void>,
): Promise<LocalMode> {
  const started = Date.now();
  const extraCrds = config.examples && !config.upstream ? exampleCrds() : [];
  print(
    config.kubeconfigPath
      ? `management cluster:  KUBECONFIG=${config.kubeconfigPath} (existing cluster)`
      : config.upstream
        ? "starting a management cluster (kube-apiserver, etcd, kube-controller-manager on loopback) with upstream Cluster API's managers, and DynamoDB Local…"
        : 'starting a management cluster (kube-apiserver, etcd, kube-controller-manager on loopback) and DynamoDB Local…',
  );
  const startManagement = (): Promise<TestCluster | undefined> => {
    if (config.kubeconfigPath) return Promise.resolve(undefined);
    // NOTE: upstream's managers install upstream's CRDs (core, add-ons, providers; conversion webhooks at the core
    // manager) and run in the handoff configuration (docs/beside-upstream.md); the provider kinds
    // get the Cluster API Operator's own CRDs. The first run builds the managers from the Go modules (progress on
    // stderr).
    if (config.upstream)
      return startUpstreamManagementCluster({
        name: 'mgmt',
        extraCrds: computeUpstreamCrds({ components: ['operator'] }),
        // NOTE: upstream's in-memory ClusterClass sets Machine taints, which upstream's webhooks refuse unless the
        // MachineTaintPropagation gate is on (as upstream's own e2e runs it).
        upstream: { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) },
      });
    // NOTE: upstream's own CRDs for upstream's kinds (core, add-ons) and the Cluster API Operator's own for the
    // provider kinds (computeUpstreamCoreCrds; they have no spec.paused: pause with cluster.x-k8s.io/paused).
    return startManagementCluster({ name: 'mgmt', crds: 'upstream-core', extraCrds, controllerManager: true });
  };
  const [mgmt, ddb] = await Promise.all([startManagement(), startDynamoDB()]);
  if (mgmt) stops.push(() => mgmt.stop());
  stops.push(() => ddb.stop());
  const kubeconfigPath = mgmt?.controlPlane.kubeconfigPath ?? config.kubeconfigPath ?? '';
  const kube = mgmt?.kube ?? (await createKubeClient({ kubeconfigPath }, { userAgent: 'capi-serverless/local' }));
  if (!mgmt) {
    stops.push(() => Promise.resolve(kube.close()));
    const added = await installMissingCrds(kube, [...computeUpstreamCoreCrds(), ...extraCrds]);
    print(`  installed ${added} missing CRDs`);
  }
  print(`management cluster:  ${mgmt ? mgmt.controlPlane.server : 'from KUBECONFIG'} (${Date.now() - started} ms)`);
  if (mgmt && 'upstream' in mgmt) {
    const { managers } = (mgmt as TestCluster & { upstream: UpstreamCapi }).upstream;
    print(`upstream managers:   ${Object.keys(managers).join(', ')} (Cluster API v1.14.2, handoff configuration)`);
  }
  print(`DynamoDB Local:      ${ddb.endpoint}`);

  // NOTE: the functions read these like a deployed function reads its environment; the credentials are DynamoDB
  // Local's (the SDK's default chain reads them from the environment).
  process.env['AWS_ACCESS_KEY_ID'] = ddb.credentials.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = ddb.credentials.secretAccessKey;
  // NOTE: the console shows the product's own lines: Powertools' EMF metric documents (CloudWatch's input, printed
  // raw to stdout) stay off locally, and the SDK's multi-line Node version notice becomes the one line below.
  process.env['POWERTOOLS_METRICS_DISABLED'] = 'true';
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < lambdaNodeMajor) {
    print(
      `node:                ${process.version} (the functions run on Node ${lambdaNodeMajor} in Lambda; use it here too)`,
    );
  }
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfigPath,
    DYNAMODB_ENDPOINT: ddb.endpoint,
    AWS_REGION: ddb.region,
    TABLE_NAME: defaultTableName,
    POWERTOOLS_LOG_LEVEL: config.logLevel,
  };
  const ddbClient = createDynamoDBClient(ddb);
  stops.push(() => Promise.resolve(ddbClient.destroy()));
  await ensureTable(createCheckpointStore({ client: ddbClient, tableName: defaultTableName }));

  // NOTE: handlers fan out through the bus they are on, created below (a batch invokes its controller once, as on Lambda).
  const fanOutTo: { bus?: LocalBus } = {};
  const fanOut: FanOutSink = (requests) => fanOutTo.bus?.putPassRequests(requests) ?? Promise.resolve(requests);
  const handlers: Partial<Record<Controller, ControllerHandler>> = {};
  for (const controller of Object.keys(reconcilers) as Controller[]) {
    const reconciler = reconcilers[controller];
    if (reconciler) handlers[controller] = createFunctionHandler(reconciler, env, { fanOut });
  }
  print(
    `functions:           ${Object.keys(handlers).join(', ')} (in-process bus, tick every ${config.tickMs / 1000} s)`,
  );
  const bus: LocalBus = createLocalBus({
    handlers,
    // NOTE: one process, one client pool of 16 sockets: CONTROLLER_CONCURRENCY can only lower that.
    concurrency: Math.min(defaultLocalConcurrency, computeRuntimeConfig(env).controllerConcurrency),
    onResult: (controller, event, result) => {
      for (const line of computeProgressLines(controller, event, result, new Date())) print(line);
    },
    onError: (controller, event, err) => print(`${controller} failed on event ${event.id}: ${errorMessage(err)}`),
  });
  fanOutTo.bus = bus;

  if (mgmt) {
    // NOTE: the same handler as the webhooks Lambda, served over HTTPS on loopback the way its Function URL serves
    // it, and registered with the same configurations: what production rejects is rejected here. Only for the
    // management cluster started here: another cluster's API server could not reach this machine's loopback.
    const pathToken = randomBytes(24).toString('hex');
    const webhooks = await startWebhookServer(
      createWebhooksHandler(computeWebhooksHandlerOptions({ ...env, WEBHOOK_PATH_TOKEN: pathToken })),
    );
    stops.push(() => webhooks.stop());
    const configurations = loadWebhookConfigurations({
      baseUrl: `${webhooks.url}/${pathToken}`,
      caBundle: webhooks.caBundle,
    });
    for (const object of configurations) await applyObject(kube, object, { fieldManager: localManager, force: true });
    print(`admission webhooks:  ${webhooks.url} (${configurations.length} configurations, the Lambda's handler)`);
  }

  let workload: TestCluster | undefined;
  if (config.examples && mgmt && !config.upstream) {
    workload = await startWorkloadCluster(mgmt, exampleCluster);
    stops.push(() => workload?.stop() ?? Promise.resolve());
    print(`workload cluster:    ${workload.controlPlane.server} (kubeconfig in Secret default/docker-1-kubeconfig)`);
  }

  // NOTE: stopped after the forwarder (which flushes into it) and before the workload cluster its passes talk to.
  stops.push(() => drainWithin(bus, 20_000, print));
  const targets = [...defaultTargets(), ...(await discoverProviderTargets(kube))];
  const forwarder: Forwarder = startForwarder({
    kube,
    source: { kubeconfigPath },
    targets,
    sink: bus.putEvents,
    coalesceMs: 300,
  });
  stops.push(() => forwarder.stop());
  print(`forwarder:           watching ${targets.length} kinds`);
  bus.startTicks(config.tickMs);

  const aborter = new AbortController();
  stops.push(() => Promise.resolve(aborter.abort()));
  let ready: Promise<string> = new Promise<string>(() => undefined);
  if (config.examples && config.upstream) {
    print('applying the examples:');
    await applyAll(kube, upstreamTopologyExample(), print);
    await applyAll(kube, upstreamAddonsExample(), print);
    await applyAll(kube, providersExample(), print);
    const upstream =
      mgmt && 'upstream' in mgmt ? (mgmt as TestCluster & { upstream: UpstreamCapi }).upstream : undefined;
    ready = waitUntilMachinesRun(kube, upstream, aborter.signal, print);
  } else if (config.examples) {
    print('applying the examples:');
    await applyAll(kube, topologyExample(), print);
    if (workload) {
      // NOTE: no infrastructure provider runs locally; mark the Cluster ready as one would, through the status subresource.
      await applyStatus(
        kube,
        {
          apiVersion: exampleCluster.apiVersion,
          kind: exampleCluster.kind,
          metadata: { namespace: exampleCluster.namespace, name: exampleCluster.name },
          status: { initialization: { infrastructureProvisioned: true } },
        },
        { fieldManager: `${localManager}-infrastructure`, force: true },
      );
      print(
        `  set status.initialization.infrastructureProvisioned=true on Cluster ${exampleCluster.namespace}/${exampleCluster.name}`,
      );
    }
    await applyAll(kube, addonsExample(), print);
    if (mgmt) await applyAll(kube, providersExample(), print);
    ready = waitUntilReconciled(kube, workload, aborter.signal);
  }
  return { kubeconfigPath, ready, stop: stopAll };
}
