// "What would one topology pass do?" for manifests given on the command line (upstream's former
// `clusterctl alpha topology plan`): default and validate the ClusterClasses and Clusters as the webhooks would,
// reconcile the ClusterClasses in memory, run one pass per Cluster and return every object the topology manages.
import { Cluster } from '#shared/api/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/v1beta2/cluster-class.ts';
import { computeDroppedFields, parseObject } from '#shared/api/parse.ts';
import { CapiError, ValidationError } from '#shared/errors/index.ts';
import { getBlueprint } from '#shared/topology/current/get-blueprint.ts';
import { createContractResolver } from '#shared/topology/current/get-contracts.ts';
import { computeUnreferencedKinds, getCurrentState } from '#shared/topology/current/get-current-state.ts';
import { createMemoryReader } from '#shared/topology/current/reader.ts';
import { computeDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import { sortKeysDeep } from '#shared/topology/desired/paths.ts';
import { computeOverlay, computePlanRotations } from '#shared/topology/plan/compute-plan-rotations.ts';
import type { DesiredState, PureDeps, Unstructured } from '#shared/topology/types.ts';
import {
  computeClusterClassStatusVariables,
  validateClusterClass,
} from '#shared/topology/validation/validate-cluster-class.ts';
import { computeDefaultedTopology, validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import { computeDefaultedVersion, validateTopologyVersionFormat } from '#shared/webhooks/rules/cluster-rules.ts';

/** An input object with where it came from, so errors can name the file. */
export type SourcedObject = { readonly object: Unstructured; readonly source: string };

export type PlannedObject = {
  readonly object: Unstructured;
  /** `replaced`: a template the pass rotates (clones under a new name); it goes once nothing uses it. */
  readonly operation: 'created' | 'updated' | 'unchanged' | 'replaced';
  readonly current?: Unstructured | undefined;
  /** For `replaced`: the name of the clone that replaces it. */
  readonly replacedBy?: string | undefined;
};

export type PlanResult = {
  readonly objects: readonly PlannedObject[];
  /** Input fields the plan dropped or does not act on, each naming file, object and field. */
  readonly warnings: readonly string[];
};

export class PlanError extends CapiError {}

const key = (o: {
  apiVersion: string;
  kind: string;
  metadata: { namespace?: string | undefined; name?: string | undefined };
}) => `${o.apiVersion.split('/')[0]}|${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;

/**
 * Every object of a desired state the pass writes, in a stable order (Cluster first, then as upstream creates them):
 * not the MachineDeployments and MachinePools whose creation waits for the control plane.
 */
export function listDesiredObjects(desired: DesiredState): Unstructured[] {
  const out: Unstructured[] = [desired.cluster as unknown as Unstructured, desired.infrastructureCluster];
  if (desired.controlPlane.infrastructureMachineTemplate) out.push(desired.controlPlane.infrastructureMachineTemplate);
  out.push(desired.controlPlane.object);
  if (desired.controlPlane.machineHealthCheck)
    out.push(desired.controlPlane.machineHealthCheck as unknown as Unstructured);
  for (const name of Object.keys(desired.machineDeployments).sort()) {
    if (desired.upgrade.machineDeployments.pendingCreate.includes(name)) continue;
    const md = desired.machineDeployments[name]!;
    out.push(md.bootstrapTemplate, md.infrastructureMachineTemplate, md.object as unknown as Unstructured);
    if (md.machineHealthCheck) out.push(md.machineHealthCheck as unknown as Unstructured);
  }
  for (const name of Object.keys(desired.machinePools).sort()) {
    if (desired.upgrade.machinePools.pendingCreate.includes(name)) continue;
    const mp = desired.machinePools[name]!;
    out.push(mp.bootstrapObject, mp.infrastructureMachinePoolObject, mp.object as unknown as Unstructured);
  }
  return out;
}

function fail(
  source: string,
  kind: string,
  namespace: string,
  name: string,
  messages: string[],
  fieldPath?: string,
): never {
  throw new PlanError(`${source}: invalid ${kind} ${namespace}/${name}: ${messages.join('; ')}`, {
    kind,
    namespace,
    name,
    ...(fieldPath ? { fieldPath } : {}),
    reason: 'Invalid',
  });
}

/**
 * Computes the plan. Throws PlanError / ValidationError naming file, object and field; computes nothing partial.
 *
 * @example
 * const { objects } = await computePlan(sourced, { randomSuffix: () => 'abcde' });
 */
export async function computePlan(inputs: readonly SourcedObject[], deps: PureDeps): Promise<PlanResult> {
  const sourceOf = new Map(inputs.map((i) => [key(i.object), i.source]));
  const warnings: string[] = [];
  const withSource = <T>(source: string, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ValidationError)
        throw new PlanError(
          `${source}: ${err.message}`,
          {
            ...(err.kind ? { kind: err.kind } : {}),
            ...(err.fieldPath ? { fieldPath: err.fieldPath } : {}),
            reason: 'Invalid',
          },
          { cause: err },
        );
      throw err;
    }
  };
  // Reconcile the ClusterClasses in memory: validate, then fill status.variables as the ClusterClass controller does.
  const objects: Unstructured[] = inputs.map((i) => i.object);
  for (const [index, input] of inputs.entries()) {
    if (input.object.kind !== 'ClusterClass') continue;
    const cc = withSource(input.source, () => parseObject(ClusterClass, 'ClusterClass', input.object));
    warnings.push(...computeDroppedFieldWarnings(input.source, input.object, cc));
    const errors = validateClusterClass(cc);
    if (errors.length > 0)
      fail(
        input.source,
        'ClusterClass',
        cc.metadata.namespace ?? '',
        cc.metadata.name ?? '',
        formatFieldErrors(errors),
        errors[0]?.field,
      );
    objects[index] = {
      ...(cc as unknown as Unstructured),
      status: {
        ...(cc.status ?? {}),
        variables: computeClusterClassStatusVariables(cc),
        observedGeneration: cc.metadata.generation ?? 1,
      },
    };
  }
  const reader = createMemoryReader(objects);
  // NOTE: manifests carry no CRDs: a provider kind's contract is assumed from its API version (v1beta2 and up).
  const contracts = createContractResolver(reader, { lenient: true });
  const planned: PlannedObject[] = [];
  const clusters = inputs.filter((i) => i.object.kind === 'Cluster');
  if (clusters.length === 0) throw new PlanError('no Cluster with spec.topology in the input', { reason: 'NoCluster' });
  for (const input of clusters) {
    const parsed = withSource(input.source, () => parseObject(Cluster, 'Cluster', input.object));
    warnings.push(...computeDroppedFieldWarnings(input.source, input.object, parsed));
    if (!parsed.spec?.topology) continue;
    const namespace = parsed.metadata.namespace ?? 'default';
    // NOTE: upstream's Cluster webhook defaults `1.30.1` to `v1.30.1` before anything else reads it.
    const topology0 = parsed.spec.topology;
    const cluster0 = {
      ...parsed,
      metadata: { ...parsed.metadata, namespace },
      spec: { ...parsed.spec, topology: { ...topology0, version: computeDefaultedVersion(topology0.version) } },
    };
    const versionErrors = validateTopologyVersionFormat(cluster0.spec.topology.version);
    if (versionErrors.length > 0)
      fail(
        input.source,
        'Cluster',
        namespace,
        cluster0.metadata.name ?? '',
        formatFieldErrors(versionErrors),
        versionErrors[0]?.field,
      );
    const classRef = cluster0.spec!.topology!.classRef;
    const classNamespace = classRef.namespace || namespace;
    const cc = (await reader.get({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: classNamespace,
      name: classRef.name,
    })) as ClusterClass | undefined;
    if (!cc)
      fail(
        input.source,
        'Cluster',
        namespace,
        cluster0.metadata.name ?? '',
        [
          `spec.topology.classRef: Invalid value: "${classRef.name}": ClusterClass not found in namespace ${classNamespace}`,
        ],
        'spec.topology.classRef',
      );
    warnings.push(...computeUnhonouredFieldWarnings(input.source, cc));
    // Default and validate as the Cluster webhook would.
    const defaulted = computeDefaultedTopology(cluster0, cc);
    if (!defaulted.ok)
      fail(
        input.source,
        'Cluster',
        namespace,
        cluster0.metadata.name ?? '',
        formatFieldErrors(defaulted.errors),
        defaulted.errors[0]?.field,
      );
    const cluster = defaulted.cluster;
    const errors = validateClusterTopology(cluster, cc);
    if (errors.length > 0)
      fail(
        input.source,
        'Cluster',
        namespace,
        cluster.metadata.name ?? '',
        formatFieldErrors(errors),
        errors[0]?.field,
      );
    const blueprint = await withSource(input.source, () => getBlueprint(reader, contracts, cc));
    const current = await getCurrentState(reader, contracts, cluster, undefined, computeUnreferencedKinds(blueprint));
    const computed = withSource(input.source, () => computeDesiredState({ cluster, blueprint, current }, deps));
    const isTaken = (kind: string, name: string) =>
      objects.some((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
    const { desired, rotations } = computePlanRotations(current, computed, deps.randomSuffix, isTaken);
    for (const object of listDesiredObjects(desired)) {
      const existing =
        object.kind === 'Cluster'
          ? (input.object as Unstructured)
          : await reader.get({
              apiVersion: object.apiVersion,
              kind: object.kind,
              namespace: object.metadata.namespace,
              name: object.metadata.name ?? '',
            });
      if (!existing || (object.kind === 'Cluster' && !sourceOf.has(key(object)))) {
        planned.push({ object: sortKeysDeep(object), operation: existing ? 'updated' : 'created', current: existing });
        continue;
      }
      const merged = computeOverlay(existing, object) as Unstructured;
      const same = JSON.stringify(sortKeysDeep(merged)) === JSON.stringify(sortKeysDeep(existing));
      planned.push({ object: sortKeysDeep(merged), operation: same ? 'unchanged' : 'updated', current: existing });
    }
    for (const r of rotations)
      planned.push({
        object: sortKeysDeep(r.replaced),
        operation: 'replaced',
        current: r.replaced,
        replacedBy: r.created.metadata.name,
      });
  }
  return { objects: planned, warnings: [...new Set(warnings)] };
}

/** Input fields the schema does not know (typos, or fields of a newer API): named, never dropped silently. */
function computeDroppedFieldWarnings(source: string, raw: Unstructured, parsed: { spec?: unknown }): string[] {
  const id = `${raw.kind} ${raw.metadata.namespace ?? ''}/${raw.metadata.name ?? ''}`;
  return computeDroppedFields({ spec: raw['spec'] }, { spec: parsed.spec }).map(
    (field) => `${source}: ${id}: ${field} is not a known field of ${raw.apiVersion} ${raw.kind} and is ignored`,
  );
}

/**
 * Fields of a v1beta2 ClusterClass that upstream's topology controller acts on and this engine does not (yet): `plan`
 * names them instead of dropping them silently.
 */
function computeUnhonouredFieldWarnings(source: string, cc: ClusterClass): string[] {
  const id = `ClusterClass ${cc.metadata.namespace ?? ''}/${cc.metadata.name ?? ''}`;
  const out: string[] = [];
  if (cc.spec.kubernetesVersions)
    out.push(
      `${source}: ${id}: spec.kubernetesVersions is kept but not used: multi-step upgrade plans are not computed (upgrades go straight to spec.topology.version)`,
    );
  if (cc.spec.upgrade?.external)
    out.push(`${source}: ${id}: spec.upgrade.external is kept but not used: runtime extensions are not called`);
  for (const [i, patch] of (cc.spec.patches ?? []).entries())
    if (patch.external)
      out.push(`${source}: ${id}: spec.patches[${i}].external is kept but not used: runtime extensions are not called`);
  return out;
}
