// What one side does during a scenario, beyond each step's end state: every poll of the topology goes through the
// scenario's observer, which gives generated names stable tokens by creation order (per role: a rotation on one side
// and not the other is a difference) and records, per step, the TopologyReconciled trajectory (each
// status/reason/message in turn) and the order in which the control plane and the MachineDeployments changed version.
import { computeNormalizedSnapshot, randomSuffix, type NormalizedSnapshot } from './normalize.ts';
import type { RawSnapshot } from './snapshot.ts';

export type TopologyReconciledState = { readonly status: string; readonly reason: string; readonly message: string };
export type VersionChange = { readonly role: string; readonly version: string };

export type StepTrajectories = {
  /** Each TopologyReconciled state the step went through, consecutive repeats collapsed (see computeTrajectories). */
  readonly topologyReconciled: readonly TopologyReconciledState[];
  /** Each change of a control plane's or MachineDeployment's version during the step, in the order seen. */
  readonly versions: readonly VersionChange[];
};

export type ScenarioObserver = {
  /** Starts a step: its trajectories begin from the state the previous step ended in. */
  startStep(): void;
  /** One poll: assigns tokens to names not seen before, records the trajectories, returns the normalised snapshot. */
  observe(raw: RawSnapshot): NormalizedSnapshot;
  /** The step's trajectories so far. */
  trajectories(): StepTrajectories;
};

type Condition = { type?: string; status?: string; reason?: string; message?: string };

const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);

/** The version each versioned role has: the control plane's spec.version, a MachineDeployment's or pool's template's. */
function computeVersions(raw: RawSnapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const [role, o] of Object.entries(raw.objects)) {
    const version =
      role === 'ControlPlane'
        ? at(o, 'spec', 'version')
        : /^(MachineDeployment|MachinePool)\/[^/]+$/.test(role)
          ? at(o, 'spec', 'template', 'spec', 'version')
          : undefined;
    if (typeof version === 'string') out.set(role, version);
  }
  return out;
}

/**
 * A scenario's observer on one side. Tokens: the k-th generated name a role ever holds becomes `<prefix>-<k>` (a
 * leftover never held by a role keeps `-<random>`), so both sides agree exactly when each role went through as many
 * generated names, in the same steps.
 *
 * @example
 * const observer = createScenarioObserver();
 * observer.startStep();
 * const snapshot = observer.observe(await getTopologySnapshot(kube, ns, 'c'));
 */
export function createScenarioObserver(): ScenarioObserver {
  const tokens = new Map<string, string>();
  const perRole = new Map<string, number>();
  let lastState: TopologyReconciledState | undefined;
  const lastVersions = new Map<string, string>();
  let states: TopologyReconciledState[] = [];
  let versions: VersionChange[] = [];
  const assign = (role: string, name: string | undefined) => {
    if (!name || tokens.has(name) || !randomSuffix.test(name)) return;
    const k = (perRole.get(role) ?? 0) + 1;
    perRole.set(role, k);
    tokens.set(name, name.replace(randomSuffix, `-<${k}>`));
  };
  return {
    startStep() {
      states = lastState ? [lastState] : [];
      versions = [];
    },
    observe(raw) {
      const clusterName = raw.cluster?.metadata.name;
      for (const role of Object.keys(raw.objects).sort()) {
        const name = raw.objects[role]!.metadata.name;
        // NOTE: the topology names the control plane's MachineHealthCheck after the control plane: its name is the
        // control plane's and takes the ControlPlane's token once that holds it. Counted for itself, a poll that saw
        // the health check before the control plane (capi-serverless creates it first, and deletes it when the
        // control plane is refused) gave the control plane the health check's count (d07 of 2026-11-28: `c-<4>`
        // against upstream's `c-<1>`, one control plane on each side).
        if (name !== clusterName && role !== 'MachineHealthCheck/ControlPlane') assign(role, name);
      }
      // NOTE: a name seen only as a leftover gets no token yet (it keeps `-<random>`): a template is a leftover
      // between its creation and its owner's (the control plane, a MachineDeployment) referencing it, and counting
      // it then gave it a token from another sequence (CI run 2 of 2026-11-27: `c-md-0-<2>` in d18 without a rotation).
      // A rotated-away template already has its role's token.
      const snapshot = computeNormalizedSnapshot(raw, tokens);
      const cluster = snapshot['Cluster'] as { topologyReconciled?: Condition } | undefined;
      const c = cluster?.topologyReconciled;
      if (c) {
        const state = { status: c.status ?? '', reason: c.reason ?? '', message: c.message ?? '' };
        const last = states[states.length - 1];
        if (!last || JSON.stringify(last) !== JSON.stringify(state)) states.push(state);
        lastState = state;
      }
      // NOTE: a role that appears (a new MachineDeployment) starts at its version: no change. A role a poll missed
      // keeps its last version.
      for (const [role, version] of [...computeVersions(raw).entries()].sort(([a], [b]) => a.localeCompare(b))) {
        if (lastVersions.has(role) && lastVersions.get(role) !== version) versions.push({ role, version });
        lastVersions.set(role, version);
      }
      return snapshot;
    },
    trajectories: () => ({ topologyReconciled: [...states], versions: [...versions] }),
  };
}

/**
 * Documented timing differences a trajectory may show on either side, dropped when transient (not the step's last
 * state): a pass that ran before upstream's ClusterClass controller had observed the class's new generation (both
 * sides share that controller; upstream's topology controller watches the class directly and often wins the race,
 * capi-serverless's pass comes later through its event bus), and a pass whose request the API server of the loaded
 * test machine did not answer in time, and a pass that lost its connection to the core manager's webhook server.
 */
const transientStates: readonly { reason: RegExp; message: RegExp }[] = [
  // NOTE: both sides word it as upstream's error since capi-serverless's d71 fix (it said ClusterClassNotReconciled).
  { reason: /^ReconcileFailed$/, message: /^ClusterClass is not successfully reconciled: / },
  {
    reason: /^ReconcileFailed$/,
    message:
      /did not answer .* within \d+ ms|context deadline exceeded|unable to return a response in the time allotted/,
  },
  {
    // NOTE: the core manager's webhook server (upstream's, on both sides) dropping a connection under load.
    reason: /^ReconcileFailed$/,
    message:
      /failed calling webhook "[^"]+": failed to call webhook: .*(connection reset by peer|broken pipe|EOF|i\/o timeout)/,
  },
];

/**
 * The trajectories as compared: transient states of the documented timing differences dropped, then consecutive
 * repeats collapsed; the version changes as recorded.
 *
 * @example
 * computeComparableTrajectories(observer.trajectories()).topologyReconciled
 */
export function computeComparableTrajectories(t: StepTrajectories): StepTrajectories {
  const states = t.topologyReconciled.filter(
    (s, i) =>
      i === t.topologyReconciled.length - 1 ||
      !transientStates.some((x) => x.reason.test(s.reason) && x.message.test(s.message)),
  );
  const collapsed = states.filter((s, i) => i === 0 || JSON.stringify(s) !== JSON.stringify(states[i - 1]));
  return { topologyReconciled: collapsed, versions: t.versions };
}
