// Whether the Machines of a Cluster's control plane and of each MachineDeployment and MachinePool its topology owns
// have finished rolling out the latest spec, read from those objects themselves: their observed generation, their
// replica counters (the v1beta2 contract: replicas, upToDateReplicas, availableReplicas) and, for a
// MachineDeployment, which MachineSets still hold Machines. The Cluster's own conditions aggregate these objects a
// reconcile or more later, so they alone cannot tell a change not yet started from one finished.

/** The parts of a v1beta2 condition read here. */
export type ProgressCondition = { readonly type: string; readonly status: string; readonly reason: string };

/** A MachineDeployment's or MachineSet's `spec.template.spec`: the fields whose change rolls its Machines. */
export type MachineTemplateSpec = {
  readonly version?: string | undefined;
  readonly bootstrap?: unknown;
  readonly infrastructureRef?: unknown;
  readonly failureDomain?: string | undefined;
};

type Counters = {
  readonly observedGeneration?: number | undefined;
  readonly replicas?: number | undefined;
  readonly upToDateReplicas?: number | undefined;
  readonly availableReplicas?: number | undefined;
  readonly conditions?: readonly ProgressCondition[] | undefined;
};

/** The parts of a control plane, MachineDeployment or MachinePool read here. */
export type ReplicaSource = {
  readonly kind: string;
  readonly metadata: {
    readonly name?: string | undefined;
    readonly generation?: number | undefined;
    readonly labels?: Readonly<Record<string, string>> | undefined;
  };
  readonly spec?:
    | {
        readonly replicas?: number | undefined;
        readonly version?: string | undefined;
        readonly template?: { readonly spec?: MachineTemplateSpec | undefined } | undefined;
      }
    | undefined;
  readonly status?: (Counters & { readonly version?: string | undefined }) | undefined;
};

/** What the gate checks of these objects, each a list of what fails (empty when it passes). */
export type RolloutProgress = {
  /** Objects whose controller has not observed their latest generation: their status describes an older spec. */
  readonly unobserved: readonly string[];
  /** Machines not all on the latest spec (counters, version, or a MachineSet of an older template still holding Machines). */
  readonly notUpToDate: readonly string[];
  readonly notAvailable: readonly string[];
  readonly rollingOut: readonly string[];
};

const nameOf = (o: ReplicaSource) => `${o.kind} ${o.metadata.name ?? ''}`;

/** A stable rendering for comparing references: key order does not matter, absent equals undefined. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/**
 * Whether a MachineSet's template rolls out the same Machines as its MachineDeployment's: the fields upstream's
 * MachineDeployment controller compares to pick its newest MachineSet (version, bootstrap, infrastructureRef,
 * failureDomain; labels, annotations and in-place fields do not roll Machines).
 *
 * @example
 * isSameMachineTemplate({ version: 'v1.34.1' }, { version: 'v1.34.1' }); // true
 */
export function isSameMachineTemplate(a: MachineTemplateSpec | undefined, b: MachineTemplateSpec | undefined): boolean {
  return (
    (a?.version ?? '') === (b?.version ?? '') &&
    (a?.failureDomain ?? '') === (b?.failureDomain ?? '') &&
    canonical(a?.bootstrap ?? {}) === canonical(b?.bootstrap ?? {}) &&
    canonical(a?.infrastructureRef ?? {}) === canonical(b?.infrastructureRef ?? {})
  );
}

const machineDeploymentNameLabel = 'cluster.x-k8s.io/deployment-name';

/** The MachineSets of a MachineDeployment still holding (or asked to hold) Machines on an older template. */
function computeOldMachineSets(md: ReplicaSource, machineSets: readonly ReplicaSource[]): string[] {
  const name = md.metadata.name ?? '';
  const template = md.spec?.template?.spec;
  return machineSets
    .filter((ms) => ms.metadata.labels?.[machineDeploymentNameLabel] === name)
    .filter((ms) => (ms.spec?.replicas ?? 0) > 0 || (ms.status?.replicas ?? 0) > 0)
    .filter((ms) => !isSameMachineTemplate(ms.spec?.template?.spec, template))
    .map((ms) => `${nameOf(md)} still has ${ms.status?.replicas ?? 0} Machines in ${nameOf(ms)} of an older template`);
}

const count = (n: number | undefined) => (n === undefined ? 'not reported' : String(n));

/** One object's counters against its desired replicas. */
function computeCounters(o: ReplicaSource): { notUpToDate: string[]; notAvailable: string[] } {
  const status = o.status ?? {};
  const desired = o.spec?.replicas ?? status.replicas ?? 0;
  const notUpToDate: string[] = [];
  const notAvailable: string[] = [];
  if (status.replicas !== desired && !(desired === 0 && status.replicas === undefined)) {
    notUpToDate.push(`${nameOf(o)} has ${count(status.replicas)} replicas, ${desired} desired`);
  }
  if ((status.upToDateReplicas ?? 0) < desired) {
    notUpToDate.push(`${nameOf(o)} has ${count(status.upToDateReplicas)} up-to-date replicas of ${desired}`);
  }
  if ((status.availableReplicas ?? 0) < desired) {
    notAvailable.push(`${nameOf(o)} has ${count(status.availableReplicas)} available replicas of ${desired}`);
  }
  return { notUpToDate, notAvailable };
}

const isTrue = (o: ReplicaSource, type: string) =>
  (o.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** What has not finished rolling out among some objects. */
function computeProgressOf(objects: readonly ReplicaSource[], machineSets: readonly ReplicaSource[]): RolloutProgress {
  const unobserved = objects
    .filter((o) => (o.status?.observedGeneration ?? 0) < (o.metadata.generation ?? 0))
    .map(
      (o) =>
        `${nameOf(o)} generation ${o.metadata.generation ?? 0}, observed ${o.status?.observedGeneration ?? 'none'}`,
    );
  const counters = objects.map(computeCounters);
  const versionLag = objects.flatMap((o) =>
    o.spec?.version !== undefined && o.status?.version !== undefined && o.status.version !== o.spec.version
      ? [`${nameOf(o)} at version ${o.status.version}, ${o.spec.version} desired`]
      : [],
  );
  return {
    unobserved,
    notUpToDate: [
      ...counters.flatMap((c) => c.notUpToDate),
      ...versionLag,
      ...objects.filter((o) => o.kind === 'MachineDeployment').flatMap((md) => computeOldMachineSets(md, machineSets)),
    ],
    notAvailable: counters.flatMap((c) => c.notAvailable),
    rollingOut: objects.filter((o) => isTrue(o, 'RollingOut')).map((o) => `${nameOf(o)} RollingOut is True`),
  };
}

/**
 * What has not finished rolling out in a Cluster's control plane (undefined: not read) and in the MachineDeployments
 * and MachinePools its topology owns, given the MachineSets of those MachineDeployments. A MachineDeployment whose
 * controller observed a new template is still rolling out while a MachineSet of the old template holds Machines,
 * even though its Machines, its counters and its RollingOut condition do not say so yet (upstream marks Machines not
 * up to date a reconcile of the Machine controller later).
 *
 * @example
 * computeRolloutProgress(kcp, [md], [oldMs, newMs]).workers.notUpToDate;
 * // ['MachineDeployment c1-md-0 still has 1 Machines in MachineSet c1-md-0-abc of an older template']
 */
export function computeRolloutProgress(
  controlPlane: ReplicaSource | undefined,
  workers: readonly ReplicaSource[],
  machineSets: readonly ReplicaSource[] = [],
): { readonly controlPlane: RolloutProgress; readonly workers: RolloutProgress } {
  return {
    controlPlane: computeProgressOf(controlPlane === undefined ? [] : [controlPlane], []),
    workers: computeProgressOf(workers, machineSets),
  };
}
