// The side-by-side bench's fleet: N Clusters of upstream's in-memory ClusterClass in one namespace, the user's
// scripted changes (a variable, a scale-up, a version upgrade, a ClusterResourceSet change, a fleet-wide ClusterClass
// change), and the predicates that say a Cluster converged: TopologyReconciled True at the Cluster's generation and
// the objects the change touches in their final shape. Polled by the driver as its own user, not counted.
import {
  applyObject,
  getObject,
  resolveResource,
  resourcePath,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { listPages } from '#shared/kube/list-pages.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { computeInMemoryObjects } from '#test/e2e/in-memory-class.ts';

export const fleetNamespace = 'bench';
export const fromVersion = 'v1.36.4';
export const toVersion = 'v1.37.0';
export const fleetLabel = { 'bench.capi-serverless.io/fleet': 'true' };
const capi = 'cluster.x-k8s.io/v1beta2';
const user = { fieldManager: 'bench-user', force: true };

export type ClusterIntent = {
  readonly name: string;
  readonly version: string;
  readonly replicas: number;
  readonly imageRepository?: string;
};

export const clusterNames = (n: number) => Array.from({ length: n }, (_, i) => `c-${String(i).padStart(4, '0')}`);

/** The ClusterClass and its templates; `patchLabel` is the value of the class's inline patch label (fleet-wide change). */
export function computeFleetClass(patchLabel?: string): KubeObject[] {
  const { clusterClass } = computeInMemoryObjects({
    namespace: fleetNamespace,
    clusterName: 'unused',
    kubernetesVersion: fromVersion,
  });
  if (patchLabel === undefined) return [...clusterClass];
  return clusterClass.map((o) => {
    if (o.kind !== 'ClusterClass') return o;
    const copy = structuredClone(o);
    const patches = (copy['spec'] as { patches: { definitions: { jsonPatches: { value?: unknown }[] }[] }[] }).patches;
    const metadata = patches[0]?.definitions[0]?.jsonPatches[0]?.value as
      { labels: Record<string, string> } | undefined;
    if (!metadata) throw new Error('in-memory ClusterClass: the first inline patch has no metadata value');
    metadata.labels['top-level-label-1'] = patchLabel;
    return copy;
  });
}

/** The user's Cluster for `intent`. */
export function computeFleetCluster(intent: ClusterIntent): KubeObject {
  const { cluster } = computeInMemoryObjects({
    namespace: fleetNamespace,
    clusterName: intent.name,
    kubernetesVersion: intent.version,
  });
  const desired = structuredClone(cluster);
  desired.metadata.labels = { ...desired.metadata.labels, ...fleetLabel };
  const topology = (desired['spec'] as { topology: Record<string, unknown> }).topology;
  const mds = (topology['workers'] as { machineDeployments: { replicas?: number }[] }).machineDeployments;
  for (const md of mds) md.replicas = intent.replicas;
  // NOTE: imageRepository is required and has no default; upstream's webhook only checks it once the class's
  // variables are reconciled, so a Cluster created with the class would pass without it and fail its first update.
  // (kubeadmControlPlaneMaxSurge, the class's other patched variable, only accepts 1 — its default — with one
  // control-plane replica: 0 needs 3 replicas.)
  topology['variables'] = [{ name: 'imageRepository', value: intent.imageRepository ?? 'kindest' }];
  return desired;
}

/** Applies as the user; a request the loaded machine did not answer in time is retried (an apply is idempotent). */
export async function applyAsUser(kube: KubeClient, obj: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await applyObject(kube, obj, user);
      return;
    } catch (err) {
      if (attempt >= 5 || !/did not answer|timeout|deadline|ECONNRESET|webhook/i.test(errorMessage(err))) throw err;
      await new Promise((r) => setTimeout(r, 2_000 * attempt));
    }
  }
}

/** What the driver sees of the fleet in one poll (one LIST per kind). */
export type FleetView = {
  readonly clusters: ReadonlyMap<string, KubeObject>;
  readonly byCluster: (kind: string, cluster: string) => KubeObject[];
};

const kinds = [
  [capi, 'Cluster'],
  ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
  [capi, 'MachineDeployment'],
  ['infrastructure.cluster.x-k8s.io/v1beta2', 'DevCluster'],
] as const;

/** A kind the view can list besides Clusters (always listed). */
export type FleetKind = (typeof kinds)[number][1];

export async function getFleetView(
  kube: KubeClient,
  only?: readonly FleetKind[],
  names?: readonly string[],
): Promise<FleetView> {
  // NOTE: a kind left out of `only` is not listed and reads as empty; lists come in pages of 100 (a thousand
  // Clusters with their managed fields are tens of megabytes, which one request on a loaded server does not answer
  // in time); a few Clusters by name, and nothing else, are read one by one.
  const listed = async (apiVersion: string, kind: string): Promise<{ items: KubeObject[] }> => {
    if (kind === 'Cluster' && names !== undefined && names.length <= 100 && only?.length === 0) {
      const items: KubeObject[] = [];
      for (let i = 0; i < names.length; i += 10)
        items.push(
          ...(await Promise.all(
            names
              .slice(i, i + 10)
              .map((name) => getObject(kube, { apiVersion, kind, namespace: fleetNamespace, name })),
          )),
        );
      return { items };
    }
    if (kind !== 'Cluster' && only !== undefined && !only.includes(kind as FleetKind)) return { items: [] };
    const info = await resolveResource(kube, apiVersion, kind);
    const items: KubeObject[] = [];
    await listPages(
      kube,
      { path: resourcePath(info, fleetNamespace, undefined), kind, namespace: fleetNamespace, limit: 100 },
      { onPage: (page) => void items.push(...page.map((o) => ({ ...o, apiVersion, kind }))) },
    );
    return { items };
  };
  const lists = await Promise.all(kinds.map(([apiVersion, kind]) => listed(apiVersion, kind)));
  const [clusters, ...owned] = lists;
  const index = new Map<string, KubeObject[]>();
  owned.forEach((list, i) => {
    for (const o of list.items) {
      const key = `${kinds[i + 1]?.[1] ?? ''}/${o.metadata.labels?.['cluster.x-k8s.io/cluster-name'] ?? ''}`;
      index.set(key, [...(index.get(key) ?? []), o]);
    }
  });
  return {
    clusters: new Map((clusters?.items ?? []).map((c) => [c.metadata.name ?? '', c])),
    byCluster: (kind, cluster) => index.get(`${kind}/${cluster}`) ?? [],
  };
}

type Condition = { type: string; status: string; observedGeneration?: number };
const conditionOf = (o: KubeObject | undefined, type: string) =>
  ((o?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** TopologyReconciled True for the Cluster's current generation. */
export function isTopologyReconciled(cluster: KubeObject | undefined): boolean {
  const t = conditionOf(cluster, 'TopologyReconciled');
  return (
    t?.status === 'True' &&
    (t.observedGeneration === undefined || t.observedGeneration >= (cluster?.metadata.generation ?? 0))
  );
}

export type Predicate = (view: FleetView, cluster: string) => boolean;

const spec = (o: KubeObject | undefined) => (o?.['spec'] ?? {}) as Record<string, unknown>;

export const predicates = {
  created: (view: FleetView, name: string) => {
    const c = view.clusters.get(name);
    return isTopologyReconciled(c) && conditionOf(c, 'ControlPlaneAvailable')?.status === 'True';
  },
  /** A variable no inline patch reads (the Docker backend's image repository): the pass changes no object. */
  variableObserved: (value: string) => (view: FleetView, name: string) => {
    const cluster = view.clusters.get(name);
    const variables = (spec(cluster)['topology'] as { variables?: { name: string; value: unknown }[] } | undefined)
      ?.variables;
    return (
      isTopologyReconciled(cluster) &&
      variables?.some((v) => v.name === 'imageRepository' && v.value === value) === true
    );
  },
  replicas: (value: number) => (view: FleetView, name: string) => {
    const mds = view.byCluster('MachineDeployment', name);
    return (
      isTopologyReconciled(view.clusters.get(name)) && mds.length > 0 && mds.every((m) => spec(m)['replicas'] === value)
    );
  },
  version: (value: string) => (view: FleetView, name: string) => {
    const kcp = view.byCluster('KubeadmControlPlane', name)[0];
    const mds = view.byCluster('MachineDeployment', name);
    const mdVersion = (m: KubeObject) => (spec(m)['template'] as { spec?: { version?: string } }).spec?.version;
    return (
      isTopologyReconciled(view.clusters.get(name)) &&
      spec(kcp)['version'] === value &&
      mds.length > 0 &&
      mds.every((m) => mdVersion(m) === value)
    );
  },
  patchLabel: (value: string) => (view: FleetView, name: string) => {
    const dc = view.byCluster('DevCluster', name)[0];
    return isTopologyReconciled(view.clusters.get(name)) && dc?.metadata.labels?.['top-level-label-1'] === value;
  },
};

/**
 * Polls once a second (or every `pollMs`) until every Cluster in `names` satisfies `predicate`; returns when each
 * first did (ms after `since`), or throws after `timeoutMs` naming the ones that did not.
 */
export async function waitForFleet(
  kube: KubeClient,
  names: readonly string[],
  predicate: Predicate,
  opts: { since: number; timeoutMs: number; what: string; pollMs?: number; kinds?: readonly FleetKind[] },
): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  for (;;) {
    let view: FleetView;
    try {
      view = await getFleetView(kube, opts.kinds, names);
    } catch (err) {
      // NOTE: a loaded API server may not answer one poll in time, or throttle it (429, also while its watch cache
      // re-initializes); the next poll asks again until the timeout.
      if (
        Date.now() - opts.since > opts.timeoutMs ||
        !/did not answer|ECONNRESET|timeout|throttled|429|Too Many|initializing/i.test(errorMessage(err))
      )
        throw err;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1_000));
      continue;
    }
    const now = Date.now();
    for (const name of names) if (!done.has(name) && predicate(view, name)) done.set(name, now - opts.since);
    if (done.size === names.length) return done;
    if (now - opts.since > opts.timeoutMs) {
      const missing = names.filter((n) => !done.has(n));
      const sample = view.clusters.get(missing[0] ?? '');
      throw new Error(
        `${opts.what}: ${missing.length} of ${names.length} Clusters not converged after ${opts.timeoutMs / 1000} s (${missing.slice(0, 5).join(', ')}); first: ${JSON.stringify((sample?.['status'] as { conditions?: unknown } | undefined)?.conditions ?? 'absent').slice(0, 800)}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 1_000));
  }
}
