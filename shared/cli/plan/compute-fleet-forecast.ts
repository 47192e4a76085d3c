// `plan` for a fleet: given a snapshot of the Clusters and their objects (read once from a cluster or from files) and
// a change — new ClusterClasses or templates, a topology version, a rebase to another class — plan every Cluster the
// change reaches with the same one-pass plan, after the Cluster webhook's rules for a version or class change, and
// say what each rollout replaces. Takes everything as arguments; Runtime Extensions are reached through `deps`.
import { computeLabelSelectorMatch, type LabelRequirement } from '#shared/providers/desired/label-selector.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { computeClusterForecast, type ClusterForecast } from '#shared/cli/plan/compute-cluster-forecast.ts';
import { computePlan, type PlanRuntime, type SourcedObject } from '#shared/cli/plan/compute-plan.ts';
import { ClusterNameLabel } from '#shared/topology/labels.ts';
import { getPath, setPath } from '#shared/topology/desired/paths.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import { createMemoryWebhookReader } from '#shared/webhooks/current/memory-webhook-reader.ts';
import { mutateCluster, validateClusterAdmission } from '#shared/webhooks/review-cluster.ts';
import jsonpatch from 'fast-json-patch';
import { mapLimit } from '#shared/runtime/map-limit.ts';

/** The change to forecast. Empty `objects` and no version or class: nothing changes. */
export type FleetChange = {
  /** New or changed ClusterClasses and templates; they replace the fleet's objects of the same kind and name. */
  readonly objects: readonly SourcedObject[];
  /** A topology version for every selected Cluster. */
  readonly version?: string | undefined;
  /** A class to rebase every selected Cluster to (`spec.topology.classRef`). */
  readonly rebaseTo?: { readonly name: string; readonly namespace?: string | undefined } | undefined;
  /** Which Clusters: a namespace (all when undefined) and label requirements. */
  readonly namespace?: string | undefined;
  readonly selector?: readonly LabelRequirement[] | undefined;
};

export type FleetSummary = {
  readonly clusters: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly invalid: number;
  /** Clusters that roll worker Machines, and how many Machines in all. */
  readonly workerRollouts: number;
  readonly workerMachines: number;
  readonly controlPlaneRollouts: number;
  readonly controlPlaneMachines: number;
};

export type FleetForecast = { readonly clusters: readonly ClusterForecast[]; readonly summary: FleetSummary };

export type FleetForecastDeps = {
  /** A fresh name generator per Cluster, so names do not depend on the order Clusters are planned in. */
  readonly randomSuffixFor: () => () => string;
  readonly runtime?: PlanRuntime | undefined;
  /** Clusters planned at once (extension calls overlap). */
  readonly concurrency: number;
  /** Called after each planned Cluster. */
  readonly onPlanned?: ((done: number, total: number) => void) | undefined;
};

const keyOf = (o: Unstructured) =>
  `${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}|${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;
const isCapi = (o: Unstructured, kind: string) => o.kind === kind && o.apiVersion.startsWith('cluster.x-k8s.io/');
const text = (o: Unstructured, path: readonly string[]) => {
  const v = getPath(o, path);
  return typeof v === 'string' ? v : '';
};
const classKeyOf = (cluster: Unstructured) =>
  `${text(cluster, ['spec', 'topology', 'classRef', 'namespace']) || (cluster.metadata.namespace ?? '')}/${text(cluster, ['spec', 'topology', 'classRef', 'name'])}`;

/** Every template a ClusterClass references, as `group|kind|namespace|name` keys. */
function computeClassTemplateKeys(cc: Unstructured): string[] {
  const refs: unknown[] = [
    getPath(cc, ['spec', 'infrastructure', 'templateRef']),
    getPath(cc, ['spec', 'controlPlane', 'templateRef']),
    getPath(cc, ['spec', 'controlPlane', 'machineInfrastructure', 'templateRef']),
  ];
  for (const list of ['machineDeployments', 'machinePools'])
    for (const w of (getPath(cc, ['spec', 'workers', list]) ?? []) as Record<string, unknown>[])
      refs.push(getPath(w, ['bootstrap', 'templateRef']), getPath(w, ['infrastructure', 'templateRef']));
  return refs
    .filter((r): r is { apiVersion: string; kind: string; name: string } => typeof r === 'object' && r !== null)
    .map((r) =>
      keyOf({ apiVersion: r.apiVersion, kind: r.kind, metadata: { namespace: cc.metadata.namespace, name: r.name } }),
    );
}

/** The ClusterClasses (`namespace/name`) a change of objects reaches: changed themselves, or using a changed template. */
export function computeAffectedClasses(objects: readonly Unstructured[], changed: ReadonlySet<string>): Set<string> {
  return new Set(
    objects
      .filter((o) => isCapi(o, 'ClusterClass'))
      .filter((cc) => changed.has(keyOf(cc)) || computeClassTemplateKeys(cc).some((k) => changed.has(k)))
      .map((cc) => `${cc.metadata.namespace ?? ''}/${cc.metadata.name ?? ''}`),
  );
}

/** The Cluster as the change would write it: classRef and version set, nothing else. */
function computeChangedCluster(cluster: Unstructured, change: FleetChange): Unstructured {
  let out = cluster;
  if (change.version !== undefined) out = setPath(out, ['spec', 'topology', 'version'], change.version);
  if (change.rebaseTo)
    out = setPath(out, ['spec', 'topology', 'classRef'], {
      name: change.rebaseTo.name,
      ...(change.rebaseTo.namespace ? { namespace: change.rebaseTo.namespace } : {}),
    });
  return out;
}

/**
 * What upstream's Cluster webhooks answer to the change, in the API server's order: the mutating one (defaults), then
 * the validating one on its result. The Cluster as it would be stored, or the refusal's message.
 */
async function admitChange(
  snapshot: readonly Unstructured[],
  before: Unstructured,
  after: Unstructured,
): Promise<{ readonly cluster: Unstructured } | { readonly refused: string }> {
  const reader = createMemoryWebhookReader(snapshot);
  const request = (object: Unstructured) => ({
    uid: 'plan',
    kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Cluster' },
    resource: { group: 'cluster.x-k8s.io', version: 'v1beta2', resource: 'clusters' },
    name: before.metadata.name ?? '',
    namespace: before.metadata.namespace ?? '',
    operation: 'UPDATE' as const,
    object,
    oldObject: before,
    dryRun: true,
  });
  const mutated = await mutateCluster(request(after), reader);
  if (!mutated.allowed) return { refused: mutated.status.message };
  const cluster = mutated.patch?.length
    ? (jsonpatch.applyPatch(after, [...mutated.patch], false, false).newDocument as Unstructured)
    : after;
  const validated = await validateClusterAdmission(request(cluster), reader);
  return validated.allowed ? { cluster } : { refused: validated.status.message };
}

/** The fleet snapshot with the change's objects in place of the ones of the same kind and name. */
function computeChangedObjects(fleet: readonly SourcedObject[], change: FleetChange): SourcedObject[] {
  const replaced = new Map(change.objects.map((c) => [keyOf(c.object), c]));
  const kept = fleet.filter((f) => !replaced.has(keyOf(f.object)));
  return [...kept, ...replaced.values()];
}

/**
 * The Clusters the change reaches, sorted by namespace and name: with a version or a class, every selected Cluster
 * with a topology; with objects only, the selected Clusters whose class is changed or uses a changed template.
 */
export function computeFleetClusters(objects: readonly Unstructured[], change: FleetChange): Unstructured[] {
  const affected = computeAffectedClasses(objects, new Set(change.objects.map((c) => keyOf(c.object))));
  const reachesAll = change.version !== undefined || change.rebaseTo !== undefined;
  return objects
    .filter((o) => isCapi(o, 'Cluster') && getPath(o, ['spec', 'topology']) !== undefined)
    .filter((c) => change.namespace === undefined || c.metadata.namespace === change.namespace)
    .filter((c) => computeLabelSelectorMatch(change.selector ?? [], c.metadata.labels ?? {}))
    .filter((c) => reachesAll || affected.has(classKeyOf(c)))
    .sort((a, b) =>
      `${a.metadata.namespace ?? ''}/${a.metadata.name ?? ''}`.localeCompare(
        `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`,
      ),
    );
}

/** The fleet's one-line numbers. */
export function computeFleetSummary(clusters: readonly ClusterForecast[]): FleetSummary {
  const changed = clusters.filter((c) => c.result === 'Changes');
  return {
    clusters: clusters.length,
    changed: changed.length,
    unchanged: clusters.filter((c) => c.result === 'Unchanged').length,
    invalid: clusters.filter((c) => c.result === 'Invalid').length,
    workerRollouts: changed.filter((c) => c.rollouts.some((r) => r.owner !== 'ControlPlane')).length,
    workerMachines: changed.reduce((n, c) => n + c.machines.workers, 0),
    controlPlaneRollouts: changed.filter((c) => c.rollouts.some((r) => r.owner === 'ControlPlane')).length,
    controlPlaneMachines: changed.reduce((n, c) => n + c.machines.controlPlane, 0),
  };
}

/**
 * Forecasts the change for every Cluster it reaches. A Cluster the change would make invalid (upstream's webhook
 * refuses it, or its topology fails the plan's validation) is `Invalid` with the message; the others are planned.
 *
 * @example
 * const { clusters, summary } = await computeFleetForecast(snapshot, { objects: [], version: 'v1.31.0' }, deps);
 */
export async function computeFleetForecast(
  fleet: readonly SourcedObject[],
  change: FleetChange,
  deps: FleetForecastDeps,
): Promise<FleetForecast> {
  const changed = computeChangedObjects(fleet, change);
  const snapshot = changed.map((c) => c.object);
  const clusters = computeFleetClusters(snapshot, change);
  // NOTE: each Cluster is planned with only its own objects and the shared ones (classes, templates), so planning a
  // fleet costs each Cluster its own objects, not the fleet's.
  const own = new Map<string, SourcedObject[]>();
  const shared: SourcedObject[] = [];
  for (const input of changed) {
    const o = input.object;
    if (isCapi(o, 'Cluster') || isCapi(o, 'Machine') || isCapi(o, 'ClusterClass')) continue;
    const owner = o.metadata.labels?.[ClusterNameLabel];
    if (owner === undefined) shared.push(input);
    else {
      const k = `${o.metadata.namespace ?? ''}/${owner}`;
      own.set(k, [...(own.get(k) ?? []), input]);
    }
  }
  const classes = new Map(
    changed
      .filter((c) => isCapi(c.object, 'ClusterClass'))
      .map((c) => [`${c.object.metadata.namespace ?? ''}/${c.object.metadata.name ?? ''}`, c]),
  );
  const sourceOf = new Map(changed.map((c) => [keyOf(c.object), c.source]));
  let done = 0;
  const forecasts = await mapLimit(clusters, deps.concurrency, async (cluster): Promise<ClusterForecast> => {
    const after = computeChangedCluster(cluster, change);
    const target = {
      class: text(after, ['spec', 'topology', 'classRef', 'name']),
      version: text(after, ['spec', 'topology', 'version']),
    };
    const forecast = await computeOneForecast(cluster, after, target);
    deps.onPlanned?.(++done, clusters.length);
    return forecast;
  });
  return { clusters: forecasts, summary: computeFleetSummary(forecasts) };

  async function computeOneForecast(
    cluster: Unstructured,
    after: Unstructured,
    target: ClusterForecast['to'],
  ): Promise<ClusterForecast> {
    const invalid = (error: string): ClusterForecast => ({
      namespace: cluster.metadata.namespace ?? '',
      name: cluster.metadata.name ?? '',
      from: {
        class: text(cluster, ['spec', 'topology', 'classRef', 'name']),
        version: text(cluster, ['spec', 'topology', 'version']),
      },
      to: target,
      result: 'Invalid',
      error,
      created: [],
      inPlace: [],
      rotations: [],
      rollouts: [],
      machines: { controlPlane: 0, workers: 0 },
    });
    let admitted = after;
    if (after !== cluster) {
      const outcome = await admitChange(snapshot, cluster, after);
      if ('refused' in outcome) return invalid(outcome.refused);
      admitted = outcome.cluster;
    }
    const cc = classes.get(classKeyOf(after));
    const inputs: SourcedObject[] = [
      ...(cc ? [cc] : []),
      ...shared,
      ...(own.get(`${cluster.metadata.namespace ?? ''}/${cluster.metadata.name ?? ''}`) ?? []),
      { object: admitted, source: sourceOf.get(keyOf(cluster)) ?? '' },
    ];
    try {
      const plan = await computePlan(inputs, {
        randomSuffix: deps.randomSuffixFor(),
        ...(deps.runtime ? { runtime: deps.runtime } : {}),
      });
      return computeClusterForecast(cluster, target, plan.objects);
    } catch (err) {
      return invalid(errorMessage(err));
    }
  }
}
