// The read side of a fleet plan: one LIST per kind (Clusters, ClusterClasses, MachineDeployments, MachinePools,
// MachineHealthChecks, Machines, and every template and provider kind they reference), never a GET per object and
// never a write, so a forecast of thousands of Clusters costs a handful of requests.
import { listObjects, UnknownKindError, type KubeClient } from '#shared/kube/index.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import { createContractResolver } from '#shared/topology/current/get-contracts.ts';
import { createKubeReader } from '#shared/topology/current/kube-reader.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { SourcedObject } from '#shared/cli/plan/compute-plan.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const capi = 'cluster.x-k8s.io/v1beta2';

export type FleetReadOptions = {
  /** Read one namespace only (ClusterClasses are read in every namespace: a Cluster may use another's). */
  readonly namespace?: string | undefined;
  /** Machines too (the webhook's checks of a version change read them). */
  readonly machines: boolean;
  /** LISTs at once. */
  readonly concurrency: number;
  /** Called after each kind is read. */
  readonly onRead?: ((kind: string, count: number) => void) | undefined;
};

type Ref = { apiVersion?: string; apiGroup?: string; kind?: string };

/** The kinds (`apiVersion` or `group`, and kind) objects reference: templates, provider objects. */
function computeReferencedKinds(objects: readonly Unstructured[]): Ref[] {
  const paths: (readonly string[])[] = [
    ['spec', 'infrastructure', 'templateRef'],
    ['spec', 'controlPlane', 'templateRef'],
    ['spec', 'controlPlane', 'machineInfrastructure', 'templateRef'],
    ['spec', 'infrastructureRef'],
    ['spec', 'controlPlaneRef'],
    ['spec', 'machineTemplate', 'spec', 'infrastructureRef'],
    ['spec', 'machineTemplate', 'infrastructureRef'],
    ['spec', 'template', 'spec', 'infrastructureRef'],
    ['spec', 'template', 'spec', 'bootstrap', 'configRef'],
  ];
  const refs: Ref[] = [];
  for (const o of objects) {
    for (const p of paths) refs.push(getPath(o, p) as Ref);
    for (const list of ['machineDeployments', 'machinePools'])
      for (const w of (getPath(o, ['spec', 'workers', list]) ?? []) as Record<string, unknown>[])
        refs.push(
          getPath(w, ['bootstrap', 'templateRef']) as Ref,
          getPath(w, ['infrastructure', 'templateRef']) as Ref,
        );
  }
  return refs.filter((r) => typeof r === 'object' && r !== null && typeof r.kind === 'string');
}

async function listKind(
  kube: KubeClient,
  apiVersion: string,
  kind: string,
  namespace?: string,
): Promise<Unstructured[]> {
  try {
    return (await listObjects(kube, { apiVersion, kind, namespace })).items as Unstructured[];
  } catch (err) {
    // NOTE: a kind the server does not serve (no MachinePool CRD) simply has no objects.
    if (err instanceof UnknownKindError) return [];
    throw err;
  }
}

/**
 * Reads a fleet: its Clusters and everything a plan of them reads, as plan inputs (`source` names the server).
 *
 * @example
 * const snapshot = await getFleetObjects(kube, { machines: true, concurrency: 4 });
 */
export async function getFleetObjects(kube: KubeClient, options: FleetReadOptions): Promise<SourcedObject[]> {
  const contracts = createContractResolver(createKubeReader(kube));
  const ns = options.namespace;
  const core: [string, string | undefined][] = [
    ['Cluster', ns],
    ['ClusterClass', undefined],
    ['MachineDeployment', ns],
    ['MachinePool', ns],
    ['MachineHealthCheck', ns],
    ...(options.machines ? ([['Machine', ns]] as [string, string | undefined][]) : []),
  ];
  const listed = new Set(core.map(([kind]) => `cluster.x-k8s.io|${kind}`));
  const objects: Unstructured[] = (
    await mapLimit(core, options.concurrency, async ([kind, namespace]) => {
      const items = await listKind(kube, capi, kind, namespace);
      options.onRead?.(kind, items.length);
      return items;
    })
  ).flat();
  // Two rounds: the control plane objects found in the first name the kind of their machine template.
  for (let round = 0; round < 2; round++) {
    const wanted = new Map<string, Ref>();
    for (const ref of computeReferencedKinds(objects)) {
      const group = ref.apiGroup ?? (ref.apiVersion?.includes('/') ? ref.apiVersion.split('/')[0] : '') ?? '';
      const k = `${group}|${ref.kind}`;
      if (!listed.has(k)) wanted.set(k, { apiGroup: group, kind: ref.kind ?? '' });
    }
    const more = await mapLimit([...wanted.entries()].sort(), options.concurrency, async ([k, ref]) => {
      listed.add(k);
      const apiVersion = await contracts.apiVersionOf(ref.apiGroup ?? '', ref.kind ?? '');
      const items = await listKind(kube, apiVersion, ref.kind ?? '', ns);
      options.onRead?.(ref.kind ?? '', items.length);
      return items;
    });
    objects.push(...more.flat());
  }
  const source = `${kube.server || 'the API server'}`;
  return objects.map((object) => ({ object, source }));
}
