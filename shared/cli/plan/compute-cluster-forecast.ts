// What one Cluster's plan means for its Machines: the objects a change edits in place, the templates it rotates, and
// the Machines each rollout replaces (control plane, each MachineDeployment and MachinePool), counted from the live
// objects' replicas. Pure: it reads only the plan and the objects given.
import type { PlannedObject } from '#shared/cli/plan/compute-plan.ts';
import {
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyMachinePoolNameLabel,
} from '#shared/topology/labels.ts';
import { getPath, sortKeysDeep } from '#shared/topology/desired/paths.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type ObjectName = { readonly kind: string; readonly namespace: string; readonly name: string };

/** A cloned template the pass replaces by a new clone (upstream's template rotation). */
export type TemplateRotation = ObjectName & {
  readonly replacedBy: string;
  /** What uses it: `ControlPlane`, `MachineDeployment md-a`, `MachinePool mp-a`. */
  readonly usedBy: string;
};

/** A rollout of Machines: every replica of the control plane, a MachineDeployment or a MachinePool is replaced. */
export type MachineRollout = ObjectName & {
  readonly owner: 'ControlPlane' | 'MachineDeployment' | 'MachinePool';
  /** The topology name of a MachineDeployment or MachinePool. */
  readonly topologyName?: string | undefined;
  /** Machines replaced: spec.replicas of the live object (status.replicas when unset); undefined for none (managed). */
  readonly replicas: number | undefined;
  readonly reasons: readonly string[];
};

export type ClusterForecast = {
  readonly namespace: string;
  readonly name: string;
  readonly from: { readonly class: string; readonly version: string };
  readonly to: { readonly class: string; readonly version: string };
  readonly result: 'Changes' | 'Unchanged' | 'Invalid';
  /** Why the change is refused (upstream's webhook message, or the plan's error). */
  readonly error?: string | undefined;
  readonly created: readonly ObjectName[];
  readonly inPlace: readonly ObjectName[];
  readonly rotations: readonly TemplateRotation[];
  readonly rollouts: readonly MachineRollout[];
  readonly machines: { readonly controlPlane: number; readonly workers: number };
};

const nameOf = (o: Unstructured): ObjectName => ({
  kind: o.kind,
  namespace: o.metadata.namespace ?? '',
  name: o.metadata.name ?? '',
});
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '');
const same = (a: unknown, b: unknown) => JSON.stringify(sortKeysDeep(a)) === JSON.stringify(sortKeysDeep(b));
const text = (o: Unstructured | undefined, path: readonly string[]) => {
  const v = o ? getPath(o, path) : undefined;
  return typeof v === 'string' ? v : undefined;
};

function replicasOf(o: Unstructured): number | undefined {
  const spec = getPath(o, ['spec', 'replicas']);
  if (typeof spec === 'number') return spec;
  const status = getPath(o, ['status', 'replicas']);
  return typeof status === 'number' ? status : undefined;
}

/** Fields of a Machine template that upstream changes on existing Machines in place (no rollout). */
const inPlaceMachineFields = new Set([
  'deletion',
  'minReadySeconds',
  'readinessGates',
  'nodeDrainTimeout',
  'nodeVolumeDetachTimeout',
  'nodeDeletionTimeout',
  'nodeDrainTimeoutSeconds',
  'nodeVolumeDetachTimeoutSeconds',
  'nodeDeletionTimeoutSeconds',
]);

const refNames = {
  infrastructureRef: 'infrastructure template',
  bootstrap: 'bootstrap template',
} as const;

/** Why a Machine template spec (MachineDeployment or MachinePool) replaces Machines, before → after. */
function computeTemplateReasons(before: unknown, after: unknown, targetVersion: string): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const reasons: string[] = [];
  const version = typeof a['version'] === 'string' ? a['version'] : '';
  const next = typeof b['version'] === 'string' && b['version'] !== version ? b['version'] : targetVersion;
  if (version !== '' && next !== '' && next !== version) reasons.push(`version ${version} → ${next}`);
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (key === 'version' || inPlaceMachineFields.has(key) || same(a[key], b[key])) continue;
    reasons.push(
      key in refNames ? `${refNames[key as keyof typeof refNames]} rotates` : `spec.template.spec.${key} changes`,
    );
  }
  return reasons;
}

/** Why a control plane replaces its Machines: version, machine template, or any other spec change (kubeadm config). */
function computeControlPlaneReasons(before: Unstructured, after: Unstructured, targetVersion: string): string[] {
  const a = (before['spec'] ?? {}) as Record<string, unknown>;
  const b = (after['spec'] ?? {}) as Record<string, unknown>;
  const reasons: string[] = [];
  const version = typeof a['version'] === 'string' ? a['version'] : '';
  const next = typeof b['version'] === 'string' && b['version'] !== version ? b['version'] : targetVersion;
  if (version !== '' && next !== '' && next !== version) reasons.push(`version ${version} → ${next}`);
  const infraRef = (o: Unstructured) =>
    getPath(o, ['spec', 'machineTemplate', 'spec', 'infrastructureRef']) ??
    getPath(o, ['spec', 'machineTemplate', 'infrastructureRef']);
  if (!same(infraRef(before), infraRef(after))) reasons.push('infrastructure template rotates');
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (key === 'version' || key === 'replicas' || key === 'machineTemplate' || same(a[key], b[key])) continue;
    reasons.push(`spec.${key} changes`);
  }
  return reasons;
}

/**
 * The forecast of one Cluster from its plan. `cluster` is the live Cluster (its control plane reference names the
 * control plane among the planned objects); `target` the class and version the change gives it. A held-back
 * MachineDeployment or control plane still counts: the version it waits for rolls it later.
 *
 * @example
 * computeClusterForecast(liveCluster, { class: 'dev', version: 'v1.31.0' }, plan.objects).machines; // { controlPlane: 3, workers: 4 }
 */
export function computeClusterForecast(
  cluster: Unstructured,
  target: { readonly class: string; readonly version: string },
  planned: readonly PlannedObject[],
): ClusterForecast {
  const namespace = cluster.metadata.namespace ?? '';
  const from = {
    class: text(cluster, ['spec', 'topology', 'classRef', 'name']) ?? '',
    version: text(cluster, ['spec', 'topology', 'version']) ?? '',
  };
  const cpRef = getPath(cluster, ['spec', 'controlPlaneRef']) as { apiGroup?: string; kind?: string } | undefined;
  const created: ObjectName[] = [];
  const inPlace: ObjectName[] = [];
  const rollouts: MachineRollout[] = [];
  const usedBy = new Map<string, string>();
  for (const p of planned) {
    const { object, current } = p;
    if (object.kind === 'Cluster' && groupOf(object.apiVersion) === 'cluster.x-k8s.io') continue;
    if (p.operation === 'created') created.push(nameOf(object));
    if (p.operation === 'replaced' || !current) continue;
    const topologyName = (label: string) => object.metadata.labels?.[label];
    let rollout: MachineRollout | undefined;
    if (object.kind === cpRef?.kind && groupOf(object.apiVersion) === cpRef.apiGroup) {
      const reasons = computeControlPlaneReasons(current, object, target.version);
      for (const r of [current, object]) {
        const ref = (getPath(r, ['spec', 'machineTemplate', 'spec', 'infrastructureRef', 'name']) ??
          getPath(r, ['spec', 'machineTemplate', 'infrastructureRef', 'name'])) as string | undefined;
        if (ref) usedBy.set(ref, 'ControlPlane');
      }
      if (reasons.length > 0)
        rollout = { ...nameOf(object), owner: 'ControlPlane', replicas: replicasOf(current), reasons };
    } else if (
      (object.kind === 'MachineDeployment' || object.kind === 'MachinePool') &&
      groupOf(object.apiVersion) === 'cluster.x-k8s.io'
    ) {
      const owner = object.kind;
      const name =
        topologyName(
          owner === 'MachineDeployment'
            ? ClusterTopologyMachineDeploymentNameLabel
            : ClusterTopologyMachinePoolNameLabel,
        ) ?? '';
      for (const r of [current, object]) {
        for (const path of [
          ['spec', 'template', 'spec', 'infrastructureRef', 'name'],
          ['spec', 'template', 'spec', 'bootstrap', 'configRef', 'name'],
        ]) {
          const ref = getPath(r, path);
          if (typeof ref === 'string') usedBy.set(ref, `${owner} ${name}`);
        }
      }
      const reasons = computeTemplateReasons(
        getPath(current, ['spec', 'template', 'spec']),
        getPath(object, ['spec', 'template', 'spec']),
        target.version,
      );
      if (reasons.length > 0)
        rollout = { ...nameOf(object), owner, topologyName: name, replicas: replicasOf(current), reasons };
    }
    if (rollout) rollouts.push(rollout);
    else if (p.operation === 'updated') inPlace.push(nameOf(object));
  }
  const rotations: TemplateRotation[] = planned
    .filter((p) => p.operation === 'replaced')
    .map((p) => ({
      ...nameOf(p.object),
      replacedBy: p.replacedBy ?? '',
      usedBy: usedBy.get(p.object.metadata.name ?? '') ?? usedBy.get(p.replacedBy ?? '') ?? '',
    }));
  // NOTE: a rotation's clone is named with its rotation, not again as a created object.
  const clones = new Set(rotations.map((r) => `${r.kind}/${r.replacedBy}`));
  const createdObjects = created.filter((o) => !clones.has(`${o.kind}/${o.name}`));
  const count = (owners: readonly MachineRollout['owner'][]) =>
    rollouts.filter((r) => owners.includes(r.owner)).reduce((n, r) => n + (r.replicas ?? 0), 0);
  const changed =
    from.class !== target.class ||
    from.version !== target.version ||
    createdObjects.length + inPlace.length + rotations.length + rollouts.length > 0;
  return {
    namespace,
    name: cluster.metadata.name ?? '',
    from,
    to: target,
    result: changed ? 'Changes' : 'Unchanged',
    created: createdObjects,
    inPlace,
    rotations,
    rollouts,
    machines: { controlPlane: count(['ControlPlane']), workers: count(['MachineDeployment', 'MachinePool']) },
  };
}
