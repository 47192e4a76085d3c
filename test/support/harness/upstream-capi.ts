// Upstream Cluster API's managers (core, kubeadm bootstrap, kubeadm control plane, Docker provider with its in-memory
// backend) as processes against a harness management cluster: built from the published Go modules
// (test/support/harness/build-upstream-capi.sh), upstream's CRDs with conversion webhooks and upstream's admission webhook
// configurations pointing at the managers' loopback webhook servers, each manager with its own client identity.
//
// Two modes:
// - 'beside-capi-serverless' (default): the handoff documented in docs/beside-upstream.md.
//   Upstream's topology and ClusterResourceSet controllers do not act and its webhooks accept topology objects:
//   * core manager with `ClusterTopology=false` (upstream's default): the topology controllers (Cluster topology,
//     ClusterClass, MachineDeployment/MachineSet topology) are not registered;
//   * kubeadm control plane, kubeadm bootstrap and Docker managers with `ClusterTopology=true`: their template
//     webhooks accept KubeadmControlPlaneTemplates/DevClusterTemplates, and KCP's and the MachineSet's topology-aware
//     preflight checks stay those of a topology installation (none of them registers a topology controller);
//   * the core ValidatingWebhookConfiguration gets matchConditions so the Cluster validator skips Clusters with
//     `spec.topology` and the ClusterClass validator sees no request: with the gate off they reject every topology
//     Cluster and ClusterClass ("can be set only if the ClusterTopology feature flag is enabled"), and every
//     ClusterClass delete (the "class in use" check needs an index only the gate registers); capi-serverless's own
//     webhooks validate those and refuse deleting a class in use; the ExtensionConfig
//     validator, too, only sees DELETE (with the RuntimeSDK gate off it rejects every ExtensionConfig; capi-serverless
//     runs the Runtime SDK);
//   * a ValidatingAdmissionPolicy denies the core manager's identity any write to ClusterResourceSets and
//     ClusterResourceSetBindings: upstream's ClusterResourceSet controllers are always registered (no gate, no flag),
//     their first write is adding the ClusterResourceSet finalizer (capi-serverless uses its own and takes upstream's
//     away, so it is always missing), so they stop there (an error per retry in the core manager's log, with the
//     controller's exponential backoff) and never read or apply any resource. The harness waits until the API server
//     enforces the policy (a moment after it is created) before it returns;
//   * a second ValidatingAdmissionPolicy denies the core manager the deletes of a topology Cluster's objects (and the
//     removal of its finalizer) until the Cluster carries ok-to-delete, so BeforeClusterDelete holds the deletion.
// - 'upstream-only': every gate on, webhooks unchanged, no policy: upstream owns everything (comparisons, bench).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { applyObject, createKubeClient, createObject, KubeError, type KubeObject } from '#shared/kube/index.ts';
import {
  computeClusterResourceSetHandoffPolicy,
  computeHandoffWebhooks,
  handoffPolicyBaseName,
} from '#shared/providers/desired/compute-handoff.ts';
import {
  beforeClusterDeletePolicyBaseName,
  computeBeforeClusterDeletePolicy,
} from '#shared/providers/desired/compute-before-cluster-delete-policy.ts';
import { issueCertificate, renderKubeconfig } from '#test/support/harness/certs.ts';
import {
  acquireExclusiveLock,
  dockerInMemoryPortLock,
  type ExclusiveLock,
} from '#test/support/harness/exclusive-lock.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import type { StartControllerManagerOptions } from '#test/support/harness/controller-manager.ts';
import { getFreePort } from '#test/support/harness/ports.ts';
import {
  probeHttp,
  startHarnessProcess,
  waitForProcesses,
  type HarnessProcess,
} from '#test/support/harness/processes.ts';
import {
  computeUpstreamWebhookConfigurations,
  installUpstreamCrds,
  upstreamFieldManager,
  type UpstreamComponent,
} from '#test/support/harness/upstream-crds.ts';

export const upstreamManagers = [
  'core',
  'bootstrap-kubeadm',
  'control-plane-kubeadm',
  'infrastructure-docker',
] as const satisfies readonly UpstreamComponent[];
export type UpstreamManager = (typeof upstreamManagers)[number];

export type UpstreamCapiMode = 'beside-capi-serverless' | 'upstream-only';

/** Binary names written by build-upstream-capi.sh. */
const binaryOf = {
  core: 'capi-manager',
  'bootstrap-kubeadm': 'kubeadm-bootstrap',
  'control-plane-kubeadm': 'kubeadm-control-plane',
  'infrastructure-docker': 'docker-infrastructure',
} as const satisfies Record<UpstreamManager, string>;

/**
 * The user names the managers authenticate as (client certificates in the system:masters group). In a clusterctl
 * installation they are their ServiceAccounts, e.g. `system:serviceaccount:capi-system:capi-manager` for the core
 * manager; a certificate's CN is limited to 64 characters, so the harness uses the ServiceAccount names alone.
 */
export const upstreamManagerUsers = {
  core: 'capi-manager',
  'bootstrap-kubeadm': 'capi-kubeadm-bootstrap-manager',
  'control-plane-kubeadm': 'capi-kubeadm-control-plane-manager',
  'infrastructure-docker': 'capd-manager',
} as const satisfies Record<UpstreamManager, string>;

/** Feature gates per mode (merged under `StartUpstreamCapiOptions.featureGates`). */
export const upstreamFeatureGates: Record<UpstreamCapiMode, Record<UpstreamManager, Record<string, boolean>>> = {
  'beside-capi-serverless': {
    core: { ClusterTopology: false },
    'bootstrap-kubeadm': { ClusterTopology: true },
    'control-plane-kubeadm': { ClusterTopology: true },
    'infrastructure-docker': { ClusterTopology: true },
  },
  'upstream-only': {
    core: { ClusterTopology: true },
    'bootstrap-kubeadm': { ClusterTopology: true },
    'control-plane-kubeadm': { ClusterTopology: true },
    'infrastructure-docker': { ClusterTopology: true },
  },
};

/**
 * In-place updates beside capi-serverless (docs/beside-upstream.md): the core manager with `RuntimeSDK` on besides
 * `InPlaceUpdates` (its MachineDeployment and Machine controllers need a Runtime SDK client; its ExtensionConfig
 * controller then discovers ExtensionConfigs and is their one writer: capi-serverless runs with
 * EXTENSION_CONFIG_DISCOVERY=upstream), `ClusterTopology` still off; the kubeadm control plane with `InPlaceUpdates`
 * (it reads ExtensionConfigs with a read-only registry of its own). Merge over the mode's gates:
 *
 * @example
 * startUpstreamCapi(mgmt, { featureGates: inPlaceUpdatesFeatureGates });
 */
export const inPlaceUpdatesFeatureGates: Partial<Record<UpstreamManager, Record<string, boolean>>> = {
  core: { ClusterTopology: false, RuntimeSDK: true, InPlaceUpdates: true },
  'control-plane-kubeadm': { ClusterTopology: true, InPlaceUpdates: true },
};

/**
 * The same feature gates for all four managers, e.g. upstream's e2e `EXP_MACHINE_TAINT_PROPAGATION=true`
 * (test/e2e/config/docker.yaml): its in-memory topology Cluster sets taints, which KCP's and the core webhooks refuse
 * with the gate off.
 *
 * @example
 * startUpstreamCapi(mgmt, { featureGates: computeGatesForAllManagers({ MachineTaintPropagation: true }) });
 */
export function computeGatesForAllManagers(
  gates: Readonly<Record<string, boolean>>,
): Record<UpstreamManager, Record<string, boolean>> {
  return Object.fromEntries(upstreamManagers.map((m) => [m, { ...gates }])) as Record<
    UpstreamManager,
    Record<string, boolean>
  >;
}

let cachedBinDir: string | undefined;

/** Builds (first run: several CPU-minutes, progress on stderr) or finds the managers' binaries; returns their folder. */
export function resolveUpstreamBinaries(): string {
  if (cachedBinDir) return cachedBinDir;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'build-upstream-capi.sh');
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  cachedBinDir = out.trim().split('\n').pop() ?? '';
  return cachedBinDir;
}

export type StartUpstreamCapiOptions = {
  /** Which managers to run (default: all four). CRDs of all four are installed regardless. */
  readonly managers?: readonly UpstreamManager[];
  readonly mode?: UpstreamCapiMode;
  /** Overrides per manager, e.g. `{ core: { MachinePool: false } }`. */
  readonly featureGates?: Partial<Record<UpstreamManager, Record<string, boolean>>>;
  readonly extraArgs?: Partial<Record<UpstreamManager, readonly string[]>>;
  /** Print the managers' output live (default: HARNESS_VERBOSE=1). */
  readonly verbose?: boolean;
  readonly startTimeoutMs?: number;
  /** How long to wait for another user of the Docker in-memory manager's fixed port 19000 (default: 30 minutes). */
  readonly portLockTimeoutMs?: number;
  /**
   * The port-19000 lock, already held by the caller (e.g. a bench that runs two fleets one after the other and must
   * not lose the port in between): not acquired here, and not released on stop.
   */
  readonly heldPortLock?: ExclusiveLock;
  /** The port lock a previous run handed over (`stopKeepingPortLock`): a restart does not queue again. */
  readonly portLock?: ExclusiveLock;
};

export type RunningUpstreamManager = {
  readonly process: HarnessProcess;
  /** `https://127.0.0.1:<port>`, serving upstream's webhooks and conversions with a certificate from the harness CA. */
  readonly webhookUrl: string;
  /** `http://127.0.0.1:<port>` with `/healthz` and `/readyz`. */
  readonly healthUrl: string;
  /** `http://127.0.0.1:<port>` with `/metrics` (the diagnostics endpoint, served without authentication). */
  readonly diagnosticsUrl: string;
  readonly user: string;
  /** The manager's own kubeconfig (its client certificate): to act as the manager, e.g. probe an admission policy. */
  readonly kubeconfigPath: string;
};

export type UpstreamCapi = {
  readonly mode: UpstreamCapiMode;
  readonly managers: Partial<Record<UpstreamManager, RunningUpstreamManager>>;
  /** Every object the harness installed besides CRDs (webhook configurations, the handoff policy). */
  readonly installed: readonly KubeObject[];
  /** The managers' output so far, each under a header line (print it when a test fails). */
  logs(): string;
  stop(): Promise<void>;
  /**
   * Stops the managers but keeps the Docker in-memory port lock, for a restart (e.g. in another mode) that must not
   * lose its turn to another test file: pass the lock as `portLock`.
   */
  stopKeepingPortLock(): Promise<ExclusiveLock | undefined>;
};

/**
 * The handoff policies of 'beside-capi-serverless' mode: the core manager may not write ClusterResourceSet kinds, nor
 * delete a topology Cluster's objects before its BeforeClusterDelete hooks allow it. The providers pass installs the
 * same policies (named after the core provider's namespace, for its ServiceAccount).
 */
export function computeHarnessHandoffPolicy(coreUser: string): KubeObject[] {
  return [
    ...computeClusterResourceSetHandoffPolicy({ name: handoffPolicyBaseName, user: coreUser }),
    ...computeBeforeClusterDeletePolicy({ name: beforeClusterDeletePolicyBaseName, user: coreUser }),
  ] as KubeObject[];
}

/**
 * The core manager's webhook configurations for 'beside-capi-serverless' mode: the Cluster validator skips Clusters
 * with `spec.topology`, the ClusterClass validator sees nothing (capi-serverless's refuses deleting a class in use).
 * The providers pass applies the same matchConditions.
 */
export function computeBesideCapiServerlessWebhooks(configs: readonly KubeObject[]): KubeObject[] {
  return configs.map((config) => computeHandoffWebhooks(config));
}

/**
 * Waits (30 s at most) until the handoff policy refuses the core manager's writes: the API server enforces a new
 * ValidatingAdmissionPolicy only once it has loaded it and its binding, a moment after they are created, and a
 * ClusterResourceSet created in that moment would let upstream's controller add its finalizer. Probes with a dry-run
 * CREATE of a ClusterResourceSet as the core manager (its own client certificate).
 */
async function waitForHandoffPolicy(coreKubeconfigPath: string): Promise<void> {
  const kube = await createKubeClient({ kubeconfigPath: coreKubeconfigPath }, { userAgent: 'capi-serverless-harness' });
  const probe: KubeObject = {
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    metadata: { namespace: 'default', name: 'capi-serverless-handoff-probe' },
    spec: {
      clusterSelector: { matchLabels: { 'capi-serverless-handoff-probe': 'true' } },
      resources: [{ kind: 'ConfigMap', name: 'capi-serverless-handoff-probe' }],
    },
  };
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      try {
        await createObject(kube, probe, { fieldManager: 'capi-serverless-harness', dryRun: true });
      } catch (err) {
        if (err instanceof KubeError && err.message.includes('reconciled by capi-serverless')) return;
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new Error('the ClusterResourceSet handoff policy was not in force after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    kube.close();
  }
}

type PreparedManager = Omit<RunningUpstreamManager, 'process'> & { start(): HarnessProcess };

/** Certificates, kubeconfig, ports and flags of one manager; `start()` runs it. */
async function prepareManager(
  mgmt: TestCluster,
  dir: string,
  manager: UpstreamManager,
  binDir: string,
  gates: Record<string, boolean>,
  opts: StartUpstreamCapiOptions,
): Promise<PreparedManager> {
  const { pki, server } = mgmt.controlPlane;
  const own = join(dir, manager);
  const certDir = join(own, 'webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const serving = issueCertificate(pki, own, 'serving', { serving: true });
  writeFileSync(join(certDir, 'tls.crt'), readFileSync(serving.cert));
  writeFileSync(join(certDir, 'tls.key'), readFileSync(serving.key));
  const user = upstreamManagerUsers[manager];
  const client = issueCertificate(pki, own, 'client', { user, groups: ['system:masters'] });
  const kubeconfigPath = join(own, 'kubeconfig');
  writeFileSync(
    kubeconfigPath,
    renderKubeconfig(mgmt.controlPlane.name, server, {
      caCert: pki.caCert,
      adminCert: client.cert,
      adminKey: client.key,
    }),
  );
  const [webhookPort, healthPort, diagnosticsPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
  const featureGates = Object.entries(gates)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const args = [
    `--kubeconfig=${kubeconfigPath}`,
    '--leader-elect=false',
    `--webhook-port=${webhookPort}`,
    `--webhook-cert-dir=${certDir}`,
    `--health-addr=127.0.0.1:${healthPort}`,
    `--diagnostics-address=127.0.0.1:${diagnosticsPort}`,
    '--insecure-diagnostics=true',
    ...(featureGates ? [`--feature-gates=${featureGates}`] : []),
    ...(opts.extraArgs?.[manager] ?? []),
  ];
  return {
    webhookUrl: `https://127.0.0.1:${webhookPort}`,
    healthUrl: `http://127.0.0.1:${healthPort}`,
    diagnosticsUrl: `http://127.0.0.1:${diagnosticsPort}`,
    user,
    kubeconfigPath,
    start: () =>
      startHarnessProcess(`upstream ${manager}`, join(binDir, binaryOf[manager]), args, {
        // The Docker provider's in-memory backend serves each workload cluster's API on a listener at POD_IP.
        ...(manager === 'infrastructure-docker' ? { env: { ...process.env, POD_IP: '127.0.0.1' } } : {}),
        ...(opts.verbose === undefined ? {} : { verbose: opts.verbose }),
      }),
  };
}

/**
 * Runs upstream Cluster API's managers against `mgmt` (a cluster started with `crds: 'none'` or `'upstream'`; the
 * project's own CRDs would clash). Installs upstream's CRDs with conversion webhooks at the managers, waits until each
 * manager is ready, then registers upstream's admission webhook configurations (rewritten to loopback URLs with the
 * harness CA) and, in 'beside-capi-serverless' mode, the handoff configuration described at the top of this file.
 * On failure the managers' logs are in the error; `stop()` ends them (SIGTERM, then SIGKILL).
 *
 * @example
 * const mgmt = await startManagementCluster({ crds: 'none', controllerManager: true });
 * const capi = await startUpstreamCapi(mgmt);
 * try { ... } finally { await capi.stop(); await mgmt.stop(); }
 */
export async function startUpstreamCapi(mgmt: TestCluster, opts: StartUpstreamCapiOptions = {}): Promise<UpstreamCapi> {
  // NOTE: a free port found by getFreePort can be taken by a process of a test running in parallel before the manager
  // binds it; the manager then exits with "address already in use": start again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      // NOTE: a failed attempt released the port lock, a handed-over one too: later attempts queue for it again.
      const { portLock: _released, ...rest } = opts;
      return await startUpstreamCapiOnce(mgmt, attempt === 1 ? opts : rest);
    } catch (err) {
      if (attempt >= 3 || !String(err instanceof Error ? err.message : err).includes('address already in use'))
        throw err;
    }
  }
}

async function startUpstreamCapiOnce(mgmt: TestCluster, opts: StartUpstreamCapiOptions): Promise<UpstreamCapi> {
  const mode = opts.mode ?? 'beside-capi-serverless';
  const managers = opts.managers ?? upstreamManagers;
  const binDir = resolveUpstreamBinaries();
  const dir = mkdtempSync(join(tmpdir(), `capi-serverless-upstream-${mgmt.controlPlane.name}-`));
  const running: Partial<Record<UpstreamManager, RunningUpstreamManager>> = {};
  const installed: KubeObject[] = [];
  const caBundle = readFileSync(mgmt.controlPlane.pki.caCert, 'utf8');
  const logs = () =>
    Object.values(running)
      .map((m) => `===== ${m.process.name}\n${m.process.logs()}`)
      .join('\n');
  let portLock: ExclusiveLock | undefined = opts.portLock;
  const stopManagers = async () => {
    await Promise.all(Object.values(running).map((m) => m.process.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  const stop = async () => {
    try {
      await stopManagers();
    } finally {
      portLock?.release();
    }
  };
  const stopKeepingPortLock = async () => {
    await stopManagers();
    const lock = portLock;
    portLock = undefined;
    return lock;
  };
  try {
    // NOTE: the Docker provider's in-memory backend always listens on port 19000 (not configurable in v1.14): test
    // files starting it queue on a cross-process lock, released when the manager has stopped.
    if (managers.includes('infrastructure-docker') && !opts.heldPortLock && !portLock)
      portLock = await acquireExclusiveLock(dockerInMemoryPortLock, {
        purpose: `upstream Docker in-memory manager's port 19000 (management cluster ${mgmt.controlPlane.name})`,
        ...(opts.portLockTimeoutMs === undefined ? {} : { timeoutMs: opts.portLockTimeoutMs }),
      });
    const prepared: Partial<Record<UpstreamManager, PreparedManager>> = {};
    for (const manager of managers) {
      const gates = { ...upstreamFeatureGates[mode][manager], ...opts.featureGates?.[manager] };
      prepared[manager] = await prepareManager(mgmt, dir, manager, binDir, gates, opts);
    }
    const endpoints = Object.fromEntries(
      Object.entries(prepared).map(([m, r]) => [m, { url: r.webhookUrl, caBundle }]),
    ) as Partial<Record<UpstreamComponent, { url: string; caBundle: string }>>;
    // The managers set up indexes on their kinds at start: the CRDs must be served first.
    await installUpstreamCrds(mgmt.kube, {
      components: ['core', 'bootstrap-kubeadm', 'control-plane-kubeadm', 'infrastructure-docker'],
      conversion: endpoints,
    });
    for (const [manager, p] of Object.entries(prepared) as [UpstreamManager, PreparedManager][]) {
      const { start, ...rest } = p;
      running[manager] = { ...rest, process: start() };
    }
    const procs = Object.values(running).map((r) => r.process);
    for (const [manager, r] of Object.entries(running)) {
      await waitForProcesses(
        `upstream ${manager} manager`,
        async () => (await probeHttp(`${r.healthUrl}/readyz`)) === 200,
        procs,
        opts.startTimeoutMs ?? 120_000,
      );
    }
    for (const [manager, r] of Object.entries(running) as [UpstreamManager, RunningUpstreamManager][]) {
      let configs = computeUpstreamWebhookConfigurations(manager, { url: r.webhookUrl, caBundle });
      if (mode === 'beside-capi-serverless' && manager === 'core')
        configs = computeBesideCapiServerlessWebhooks(configs);
      installed.push(...configs);
    }
    if (mode === 'beside-capi-serverless') installed.push(...computeHarnessHandoffPolicy(upstreamManagerUsers.core));
    for (const obj of installed) await applyObject(mgmt.kube, obj, { fieldManager: upstreamFieldManager, force: true });
    if (mode === 'beside-capi-serverless' && running.core) await waitForHandoffPolicy(running.core.kubeconfigPath);
    return { mode, managers: running, installed, logs, stop, stopKeepingPortLock };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const output = logs();
    await stop();
    throw new Error(`starting upstream Cluster API failed: ${message}\n${output.split('\n').slice(-200).join('\n')}`, {
      cause: err,
    });
  }
}

/** One series of the in-memory workload API servers' request counter (`inmemory_apiserver_request_total`). */
export type InMemoryApiRequests = {
  /** As kube-apiserver's metrics name it: POST, PUT, PATCH, APPLY, DELETE, GET, LIST, WATCH, … */
  readonly verb: string;
  readonly resource: string;
  readonly clusterName: string;
  readonly userAgent: string;
  readonly code: string;
  readonly count: number;
};

/** The user agent of upstream's core manager on a workload cluster (`remote.DefaultClusterAPIUserAgent`) contains it. */
export const upstreamCoreWorkloadUserAgent = 'cluster-api-controller-manager';

const writeVerbs: readonly string[] = ['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION'];

/**
 * Every request the Docker provider's in-memory workload API servers have served, counted by verb, resource,
 * workload cluster, user agent and status code, from the Docker manager's metrics. Every client of a workload cluster
 * uses the credentials of the same kubeconfig Secret, so the user agent is what tells them apart (upstream's core
 * manager: `upstreamCoreWorkloadUserAgent`; capi-serverless: `capi-serverless…`).
 *
 * @example
 * (await getInMemoryApiRequests(upstream)).filter((r) => r.resource === 'configmaps' && isWrite(r));
 */
export async function getInMemoryApiRequests(upstream: UpstreamCapi): Promise<InMemoryApiRequests[]> {
  const docker = upstream.managers['infrastructure-docker'];
  if (!docker) throw new Error('the Docker manager is not running: no in-memory workload API server to ask');
  const response = await fetch(`${docker.diagnosticsUrl}/metrics`);
  if (!response.ok) throw new Error(`GET ${docker.diagnosticsUrl}/metrics: ${response.status}`);
  const label = (labels: string, name: string) =>
    new RegExp(`(?:^|,)${name}="((?:[^"\\\\]|\\\\.)*)"`).exec(labels)?.[1]?.replaceAll('\\"', '"') ?? '';
  return (await response.text())
    .split('\n')
    .map((line) => /^inmemory_apiserver_request_total\{(.*)\} (\S+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, labels = '', value = '0']) => ({
      verb: label(labels, 'verb'),
      resource: label(labels, 'resource'),
      clusterName: label(labels, 'cluster_name'),
      userAgent: label(labels, 'user_agent'),
      code: label(labels, 'code'),
      count: Number(value),
    }));
}

/** Whether a counted request changes state (any write verb, refused or not). */
export function isWriteRequest(r: Pick<InMemoryApiRequests, 'verb'>): boolean {
  return writeVerbs.includes(r.verb);
}

/**
 * A management cluster as upstream Cluster API runs on: a harness control plane with kube-controller-manager (garbage
 * collector, namespace controller), upstream's CRDs and managers (`startUpstreamCapi`). `stop()` stops both.
 *
 * @example
 * const mgmt = await startUpstreamManagementCluster({ name: 'e2e' });
 * try { ...mgmt.kube..., mgmt.upstream.logs() } finally { await mgmt.stop(); }
 */
export async function startUpstreamManagementCluster(
  opts: {
    name?: string;
    /** Extra CRDs besides upstream's (e.g. the project's own non-Cluster-API kinds). */
    extraCrds?: readonly KubeObject[];
    controllerManager?: boolean | StartControllerManagerOptions;
    upstream?: StartUpstreamCapiOptions;
    /** Appended to kube-apiserver's flags (e.g. an audit policy and log). */
    extraApiServerArgs?: readonly string[];
  } = {},
): Promise<TestCluster & { readonly upstream: UpstreamCapi }> {
  const mgmt = await startManagementCluster({
    name: opts.name ?? 'mgmt',
    crds: 'none',
    controllerManager: opts.controllerManager ?? true,
    ...(opts.extraCrds ? { extraCrds: opts.extraCrds } : {}),
    ...(opts.extraApiServerArgs ? { extraApiServerArgs: opts.extraApiServerArgs } : {}),
  });
  let upstream: UpstreamCapi;
  try {
    upstream = await startUpstreamCapi(mgmt, opts.upstream);
  } catch (err) {
    await mgmt.stop();
    throw err;
  }
  return {
    ...mgmt,
    upstream,
    async stop() {
      await upstream.stop();
      await mgmt.stop();
    },
  };
}
