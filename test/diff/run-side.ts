// One side of the differential: a management cluster with upstream's four managers, either upstream's own topology
// controller in charge ('upstream-only') or the handoff with capi-serverless's topology pass wired as in the e2e
// (test/e2e/product.ts). Runs scenarios (each in its own namespace, several at once), and after each step waits until
// the side is quiet, then snapshots the topology's objects; every poll goes through the scenario's observer
// (observe.ts: creation-order name tokens, the step's TopologyReconciled and version trajectories).
import { applyObject, deleteObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { createAuditLog, type AuditEvent, type AuditLog } from '#test/support/harness/audit-log.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { computeGatesForAllManagers, startUpstreamManagementCluster } from '#test/support/harness/upstream-capi.ts';
import { startProduct, type RunningProduct } from '#test/e2e/product.ts';
import type { TestExtension } from '#test/support/harness/test-extension.ts';
import { applyHookResponses, extensionNamespaceLabel, startDiffExtension, waitForClassVariables } from './extension.ts';
import { getTopologyProgress, type NormalizedSnapshot } from './normalize.ts';
import { createScenarioObserver, type ScenarioObserver } from './observe.ts';
import { clusterName, type Scenario, type Step, type UserEdit } from './scenarios.ts';
import { getTopologySnapshot } from './snapshot.ts';

export const sides = ['upstream', 'capi-serverless'] as const;
export type SideName = (typeof sides)[number];

/** A write to one of the snapshot's objects while the side was settled (its normalised objects unchanged). */
export type SettledWrite = {
  user: string;
  verb: string;
  object: string;
  fieldManager: string;
  at: string;
  /** The request body's metadata (what the write carried besides spec). */
  requestMetadata?: unknown;
};

export type StepResult = {
  readonly step: string;
  /** False when the step hit its timeout before TopologyReconciled settled (snapshot taken anyway). */
  readonly settled: boolean;
  readonly waitedMs: number;
  readonly topologyReconciled?: string;
  readonly snapshot: NormalizedSnapshot;
  /** Non-dry-run writes (not status) to the snapshot's objects during the quiet window before the snapshot. */
  readonly settledWrites: readonly SettledWrite[];
  readonly quietWindowMs: number;
};

export type ScenarioResult = {
  readonly durationMs: number;
  readonly steps: StepResult[];
  readonly error?: string;
  /** When the scenario ended (ISO): merging saved results keeps the latest run of each scenario. */
  readonly finishedAt?: string;
};

export type SideResult = {
  readonly side: SideName;
  readonly startMs: number;
  readonly durationMs: number;
  readonly concurrency: number;
  readonly scenarios: Record<string, ScenarioResult>;
};

export type RunningSide = {
  readonly name: SideName;
  readonly mgmt: TestCluster;
  readonly audit: AuditLog;
  /** The audit events so far, slimmed (request bodies keep their metadata only); read incrementally. */
  auditEvents(): readonly AuditEvent[];
  diagnostics(): string;
  /** Every capi-serverless pass line so far (empty on the upstream side). */
  passLog(): string;
  stop(): Promise<void>;
};

/** Writes (not status) with their request body for the topology's groups, so a no-op write can be read back. */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources:
  - group: cluster.x-k8s.io
    resources: ['*/status']
  - group: controlplane.cluster.x-k8s.io
    resources: ['*/status']
  - group: infrastructure.cluster.x-k8s.io
    resources: ['*/status']
  - group: bootstrap.cluster.x-k8s.io
    resources: ['*/status']
- level: Request
  verbs: [create, update, patch, delete]
  resources:
  - group: cluster.x-k8s.io
  - group: controlplane.cluster.x-k8s.io
  - group: infrastructure.cluster.x-k8s.io
  - group: bootstrap.cluster.x-k8s.io
- level: None
`;

/**
 * Starts one side: upstream's managers ('upstream-only' for `upstream`, the handoff plus capi-serverless's topology
 * handler behind the local bus, forwarder and ticks for `capi-serverless`), with an audit log of writes; with
 * `extension`, upstream's test Runtime Extension registered and discovered on it (the extension scenarios).
 *
 * @example
 * const side = await startSide('upstream', { extension: true });
 * try { ... } finally { await side.stop(); }
 */
export async function startSide(name: SideName, opts: { extension?: boolean } = {}): Promise<RunningSide> {
  const audit = createAuditLog(auditPolicy);
  const mgmt = await startUpstreamManagementCluster({
    name: name === 'upstream' ? 'diff-upstream' : 'diff-capi-serverless',
    extraApiServerArgs: audit.apiServerArgs,
    upstream: {
      mode: name === 'upstream' ? 'upstream-only' : 'beside-capi-serverless',
      // NOTE: as upstream's e2e (test/e2e/config/docker.yaml): its in-memory topology Cluster sets taints. Upstream's
      // own topology controller runs with RuntimeSDK on, as capi-serverless always runs the lifecycle hooks (pending
      // marks, the upgrade step); beside capi-serverless the gate stays off (docs/beside-upstream.md).
      featureGates: computeGatesForAllManagers({
        MachineTaintPropagation: true,
        ...(name === 'upstream' ? { RuntimeSDK: true } : {}),
      }),
    },
  });
  let product: RunningProduct | undefined;
  let extension: TestExtension | undefined;
  try {
    if (name === 'capi-serverless') product = await startProduct(mgmt, ['topology'], { tickMs: 5_000 });
    // NOTE: after the product: on the capi-serverless side its topology function discovers the extension.
    if (opts.extension) extension = await startDiffExtension(mgmt);
  } catch (err) {
    await product?.stop();
    await mgmt.stop();
    throw err;
  }
  const events: AuditEvent[] = [];
  return {
    name,
    mgmt,
    audit,
    auditEvents() {
      for (const e of audit.readNew()) {
        if (!e.objectRef?.namespace) continue;
        const metadata = (e.requestObject as { metadata?: unknown } | undefined)?.metadata;
        const { requestObject: _body, ...rest } = e;
        events.push(metadata === undefined ? rest : { ...rest, requestObject: { metadata } });
      }
      return events;
    },
    diagnostics: () =>
      `${product ? `----- capi-serverless passes\n${product.recentPasses(60)}\n` : ''}${extension ? `----- test extension\n${extension.logs().split('\n').slice(-40).join('\n')}\n` : ''}----- upstream managers\n${mgmt.upstream
        .logs()
        .split('\n')
        .slice(-80)
        .join('\n')}`,
    passLog: () => (product ? `${product.passLines.join('\n')}\n` : ''),
    async stop() {
      await product?.stop();
      await extension?.stop();
      await mgmt.stop();
      audit.remove();
    },
  };
}

const user = { fieldManager: 'diff-user', force: true };
/** A user's edits of managed objects go in under their own field manager (not the one that applies the scenario). */
const editor = { fieldManager: 'diff-editor', force: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type SettleOptions = {
  /** The normalised snapshot must stay unchanged this long (longer than capi-serverless's 5 s tick). */
  readonly quietMs: number;
  /**
   * The quiet a step that changes the ClusterClass or its templates needs: such a change leaves the Cluster's
   * generation and TopologyReconciled as they were, so nothing on the Cluster shows whether a side has reacted yet.
   */
  readonly classChangeQuietMs: number;
  /** Give up waiting for TopologyReconciled True after this long. */
  readonly stepTimeoutMs: number;
  /** A TopologyReconciled that is not True but unchanged this long counts as settled. */
  readonly notTrueQuietMs: number;
};

// NOTE: notTrueQuietMs outlasts capi-serverless's 30 s requeue while it waits (an upgrade phase, a template a
// MachineSet holds): it learns of those ends by polling, where upstream's controllers watch the objects.
export const defaultSettle: SettleOptions = {
  quietMs: 7_000,
  classChangeQuietMs: 30_000,
  stepTimeoutMs: 180_000,
  notTrueQuietMs: 45_000,
};

/**
 * TopologyReconciled reasons of work under way (upstream's controller and capi-serverless both leave them once the
 * rollout ends): the quiet fallback never accepts them, since a rollout under load can leave every compared field
 * unchanged for longer than the fallback's window (the whole corpus of 2026-11-25 took upstream's snapshot
 * mid-upgrade four times).
 */
const inProgressReasons = /Upgrading|UpgradePending|Creating|Blocking|Pending/;

/** Applies as the user; a request the loaded machine did not answer in time is retried (an apply is idempotent). */
async function applyAsUser(kube: KubeClient, obj: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await applyObject(kube, obj, user);
      return;
    } catch (err) {
      if (attempt >= 4 || !/did not answer|timeout|deadline/i.test(errorMessage(err))) throw err;
      await sleep(2_000 * attempt);
    }
  }
}

async function applyStep(kube: KubeClient, step: Step & { kind: 'apply' }, extension: boolean): Promise<void> {
  for (const obj of step.state.objects) await applyAsUser(kube, obj);
  // NOTE: the Cluster's variables are validated against those the extension's DiscoverVariables returned.
  if (extension) {
    const classRef = (step.state.cluster['spec'] as { topology: { classRef: { name: string } } }).topology.classRef;
    await waitForClassVariables(kube, step.state.cluster.metadata.namespace ?? '', classRef.name);
  }
  await applyAsUser(kube, step.state.cluster);
  if (step.userEdits) await applyUserEdits(kube, step.state.cluster.metadata.namespace ?? '', step.userEdits);
}

/** Each edit onto the object holding its role now (server-side apply as `diff-editor`, forcing conflicts). */
async function applyUserEdits(kube: KubeClient, namespace: string, edits: readonly UserEdit[]): Promise<void> {
  const raw = await getTopologySnapshot(kube, namespace, clusterName);
  for (const edit of edits) {
    const target = raw.objects[edit.role];
    if (!target) throw new Error(`user edit: no object holds role ${edit.role} in ${namespace}`);
    const { metadata, ...rest } = edit.patch as { metadata?: Record<string, unknown> };
    await applyObject(
      kube,
      {
        ...rest,
        apiVersion: target.apiVersion,
        kind: target.kind,
        metadata: { ...metadata, name: target.metadata.name, namespace },
      } as KubeObject,
      editor,
    );
  }
}

type Settled = {
  snapshot: NormalizedSnapshot;
  settled: boolean;
  quietSince: number;
  topologyReconciled?: string;
  names: Set<string>;
};

/** Polls the snapshot until it has not changed for `quietMs` and TopologyReconciled is True (or the rules above). */
async function waitUntilSettled(
  kube: KubeClient,
  namespace: string,
  deleting: boolean,
  observer: ScenarioObserver,
  opts: SettleOptions & { clusterClass?: boolean; blocked?: boolean },
): Promise<Settled> {
  const started = Date.now();
  let last = '';
  let quietSince = Date.now();
  for (;;) {
    const raw = await getTopologySnapshot(kube, namespace, clusterName, { clusterClass: opts.clusterClass ?? false });
    const snapshot = observer.observe(raw);
    const text = JSON.stringify(snapshot);
    const now = Date.now();
    if (text !== last) {
      last = text;
      quietSince = now;
    }
    const progress = getTopologyProgress(raw);
    const quiet = now - quietSince;
    const topologyReconciled = progress.status
      ? `${progress.status}${progress.reason ? `/${progress.reason}` : ''}`
      : '';
    const names = new Set(
      [raw.cluster, ...Object.values(raw.objects), ...raw.leftovers]
        .filter((o): o is KubeObject => o !== undefined)
        .map((o) => `${o.kind}/${o.metadata.name ?? ''}`),
    );
    // NOTE: leftover templates and MachineDeployments go once their MachineSets and Machines are gone: worth waiting
    // for. A leftover MachineHealthCheck never goes by itself (upstream's leaked control-plane copies, R2b): waiting
    // for it ran d07's steps into the time limit on upstream's side (the whole corpus of 2026-11-27).
    const awaitedLeftovers = raw.leftovers.filter((o) => o.kind !== 'MachineHealthCheck').length;
    const beingDeleted = [...Object.values(raw.objects), ...raw.leftovers].some(
      (o) => o.metadata.deletionTimestamp !== undefined,
    );
    // NOTE: a pending AfterControlPlaneInitialized waits for the control plane, whose status is not compared.
    const pendingHooks = Boolean(raw.cluster?.metadata.annotations?.['runtime.cluster.x-k8s.io/pending-hooks']);
    const done = deleting
      ? raw.cluster === undefined && names.size === 0 && quiet >= 1_000
      : quiet >= opts.quietMs &&
        // NOTE: a rotated or removed MachineDeployment's templates go once its old MachineSets are gone, a removed
        // MachineDeployment once its Machines are: wait for both. The condition's observedGeneration may lag behind a
        // generation nothing reconciles again (a write of the Cluster's references): after `notTrueQuietMs` of quiet
        // the state counts as settled whatever it says.
        ((progress.status === 'True' &&
          progress.upToDate &&
          awaitedLeftovers === 0 &&
          !beingDeleted &&
          !pendingHooks) ||
          // NOTE: the quiet fallback does not cover a leftover template or a pending hook while TopologyReconciled is
          // True: both wait on objects the snapshot does not show (an old MachineSet, the control plane initialising),
          // which under load outlast the quiet window (the full corpus of 2026-11-25 took such snapshots on either
          // side). Where the topology is stuck (False, e.g. a control plane refused at creation) they stay forever.
          // A missing condition (no pass has reported yet) and an in-progress reason are not accepted either.
          (quiet >= opts.notTrueQuietMs &&
            progress.status !== undefined &&
            // NOTE: a step whose hook blocks on purpose stays blocked (upstream v1.14.2 on a blocked
            // BeforeClusterUpgrade: ClusterUpgrading, "Following hooks are blocking upgrade: …"; LifecycleHookBlocking
            // elsewhere): unchanged that long, it is settled.
            (!inProgressReasons.test(progress.reason ?? '') ||
              (opts.blocked === true &&
                (progress.reason === 'LifecycleHookBlocking' ||
                  /Following hooks are blocking/.test(progress.message ?? '')))) &&
            (progress.status !== 'True' || (awaitedLeftovers === 0 && !pendingHooks))));
    if (done) return { snapshot, settled: true, quietSince, topologyReconciled, names };
    if (now - started > opts.stepTimeoutMs) return { snapshot, settled: false, quietSince, topologyReconciled, names };
    await sleep(1_000);
  }
}

const kindOfResource: Record<string, string> = {
  clusters: 'Cluster',
  devclusters: 'DevCluster',
  kubeadmcontrolplanes: 'KubeadmControlPlane',
  devmachinetemplates: 'DevMachineTemplate',
  kubeadmconfigtemplates: 'KubeadmConfigTemplate',
  machinedeployments: 'MachineDeployment',
  machinepools: 'MachinePool',
  machinehealthchecks: 'MachineHealthCheck',
};

/** The writes to `names` in `namespace` between `from` and `to` (not dry runs, not status). */
export function computeSettledWrites(
  events: readonly AuditEvent[],
  namespace: string,
  names: ReadonlySet<string>,
  from: number,
  to: number,
): SettledWrite[] {
  return events
    .filter((e) => {
      if (e.objectRef?.namespace !== namespace || (e.responseStatus?.code ?? 500) >= 300) return false;
      if (e.requestURI.includes('dryRun=')) return false;
      const kind = kindOfResource[e.objectRef.resource ?? ''];
      if (!kind || !names.has(`${kind}/${e.objectRef.name ?? ''}`)) return false;
      const at = Date.parse(e.stageTimestamp ?? e.requestReceivedTimestamp ?? '');
      return at >= from && at <= to;
    })
    .map((e) => ({
      user: e.user.username,
      verb: e.verb,
      object: `${kindOfResource[e.objectRef?.resource ?? ''] ?? ''}/${e.objectRef?.name ?? ''}`,
      fieldManager: /fieldManager=([^&]+)/.exec(e.requestURI)?.[1] ?? '',
      at: e.stageTimestamp ?? '',
      ...(e.requestObject ? { requestMetadata: (e.requestObject as { metadata?: unknown }).metadata } : {}),
    }));
}

async function runScenario(side: RunningSide, scenario: Scenario, settle: SettleOptions): Promise<ScenarioResult> {
  const { kube } = side.mgmt;
  const namespace = scenario.name;
  const started = Date.now();
  const steps: StepResult[] = [];
  try {
    await applyAsUser(kube, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, ...(scenario.extension ? { labels: { [extensionNamespaceLabel]: 'true' } } : {}) },
    });
    if (scenario.extension) await applyHookResponses(kube, namespace);
    let previousObjects = '';
    const observer = createScenarioObserver();
    for (const step of scenario.steps) {
      observer.startStep();
      const stepStarted = Date.now();
      const objects = step.kind === 'apply' ? JSON.stringify(step.state.objects) : previousObjects;
      const classChanged = previousObjects !== '' && objects !== previousObjects;
      previousObjects = objects;
      // NOTE: a step an admission webhook refuses is an outcome to compare (upstream refuses an upgrade of a Cluster
      // whose control plane was refused at creation), not an error of the run.
      let refusal: string | undefined;
      if (step.kind === 'apply')
        refusal = await applyStep(kube, step, scenario.extension ?? false).then(
          () => undefined,
          (err: unknown) => {
            const message = errorMessage(err);
            if (!/admission webhook .* denied the request/.test(message)) throw err;
            return message;
          },
        );
      else
        await deleteObject(kube, {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          namespace,
          name: clusterName,
        });
      const s = await waitUntilSettled(kube, namespace, step.kind === 'delete', observer, {
        ...settle,
        ...(classChanged ? { quietMs: Math.max(settle.quietMs, settle.classChangeQuietMs) } : {}),
        clusterClass: scenario.extension ?? false,
        blocked: step.kind === 'apply' && step.blocked === true,
      });
      const snapshotAt = Date.now();
      const settledWrites = computeSettledWrites(side.auditEvents(), namespace, s.names, s.quietSince, snapshotAt);
      steps.push({
        step: step.name,
        settled: s.settled,
        waitedMs: snapshotAt - stepStarted,
        ...(s.topologyReconciled ? { topologyReconciled: s.topologyReconciled } : {}),
        // NOTE: the step's trajectories are compared as one more entry of the snapshot.
        snapshot: {
          ...s.snapshot,
          Trajectories: observer.trajectories(),
          ...(refusal === undefined ? {} : { AdmissionRefusal: refusal }),
        },
        settledWrites,
        quietWindowMs: snapshotAt - s.quietSince,
      });
    }
    return { durationMs: Date.now() - started, steps, finishedAt: new Date().toISOString() };
  } catch (err) {
    return {
      durationMs: Date.now() - started,
      steps,
      error: errorMessage(err),
      finishedAt: new Date().toISOString(),
    };
  }
}

/**
 * Runs `scenarios` on `side`, `concurrency` at a time, with a progress line per step.
 *
 * @example
 * const result = await runScenarios(side, computeScenarios(), { concurrency: 6 });
 */
export async function runScenarios(
  side: RunningSide,
  scenarios: readonly Scenario[],
  opts: { concurrency: number; settle?: SettleOptions; startMs: number; log?: (line: string) => void },
): Promise<SideResult> {
  const started = Date.now();
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const results: Record<string, ScenarioResult> = {};
  const queue = [...scenarios];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const r = await runScenario(side, next, opts.settle ?? defaultSettle);
      results[next.name] = r;
      const steps = r.steps
        .map((s) => `${s.step}: ${(s.waitedMs / 1000).toFixed(0)}s${s.settled ? '' : ' (not settled)'}`)
        .join(', ');
      log(
        `[${side.name}] ${next.name} ${(r.durationMs / 1000).toFixed(0)} s (${Object.keys(results).length}/${scenarios.length}) ${steps}${r.error ? ` ERROR ${r.error}` : ''}`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return {
    side: side.name,
    startMs: opts.startMs,
    durationMs: Date.now() - started,
    concurrency: opts.concurrency,
    scenarios: Object.fromEntries(scenarios.map((s) => [s.name, results[s.name]!])),
  };
}
