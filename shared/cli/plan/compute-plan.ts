// "What would one topology pass do?" for manifests given on the command line (upstream's former
// `clusterctl alpha topology plan`): default and validate the ClusterClasses and Clusters as the webhooks would,
// reconcile the ClusterClasses in memory (variables of DiscoverVariables extensions included), run one pass per
// Cluster (external patches and ValidateTopology through the Runtime Extensions) and return every object the
// topology manages.
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computeDroppedFields, parseObject } from '#shared/api/parse.ts';
import { CapiError, describeObject, errorMessage, ValidationError } from '#shared/errors/index.ts';
import type { ExtensionCallDeps, ExtensionRegistry } from '#shared/runtime-sdk/index.ts';
import { getBlueprint } from '#shared/topology/current/get-blueprint.ts';
import {
  computeClusterShim,
  computeClusterShimAction,
  computeShimOwnedState,
  computeShimOwnerRef,
} from '#shared/topology/desired/compute-cluster-shim.ts';
import { createContractResolver } from '#shared/topology/current/get-contracts.ts';
import { computeUnreferencedKinds, getCurrentState } from '#shared/topology/current/get-current-state.ts';
import { createMemoryReader } from '#shared/topology/current/reader.ts';
import { applyPatchesToDesiredState } from '#shared/topology/desired/apply-patches.ts';
import { computeUnpatchedDesiredState } from '#shared/topology/desired/compute-desired-state.ts';
import { computeHeldBack } from '#shared/topology/desired/compute-held-back.ts';
import {
  computeUpgradePlanRequest,
  computeUpgradePlanSource,
  type GeneratedUpgradePlan,
} from '#shared/topology/desired/compute-upgrade-plan.ts';
import { sortKeysDeep } from '#shared/topology/desired/paths.ts';
import { computeOverlay, computePlanRotations } from '#shared/cli/plan/compute-plan-rotations.ts';
import { getDiscoveredVariables } from '#shared/topology/get-discovered-variables.ts';
import { createUpgradePlanCaller, getGeneratedUpgradePlan } from '#shared/topology/get-upgrade-plan.ts';
import { createPatchExtensions, hasExternalPatches, runPatchEngine } from '#shared/topology/run-patch-engine.ts';
import type { CurrentState, DesiredState, PureDeps, Unstructured } from '#shared/topology/types.ts';
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
  /** Why the pass leaves this object as it is although the desired state changes it (an upgrade waits). */
  readonly heldBack?: string | undefined;
};

/** The upgrade plan a Cluster's pass follows (upstream's status.controlPlane/workers.upgradePlan), when upgrading. */
export type PlannedUpgrade = {
  readonly cluster: string;
  readonly controlPlane: readonly string[];
  readonly workers: readonly string[];
};

export type PlanResult = {
  readonly objects: readonly PlannedObject[];
  readonly upgrades: readonly PlannedUpgrade[];
  /** Input fields the plan dropped or does not act on, each naming file, object and field. */
  readonly warnings: readonly string[];
};

export class PlanError extends CapiError {}

/**
 * How the plan reaches Runtime Extensions: the ExtensionConfigs (discovered) it may call, and the client for
 * `service` client configs. Without it, a ClusterClass that needs an extension cannot be planned.
 */
export type PlanRuntime = ExtensionCallDeps & { readonly registry: ExtensionRegistry };

export type PlanDeps = PureDeps & { readonly runtime?: PlanRuntime };

const key = (o: {
  apiVersion: string;
  kind: string;
  metadata: { namespace?: string | undefined; name?: string | undefined };
}) => `${o.apiVersion.split('/')[0]}|${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;

/** An object of the plan's list; `heldBack` says why the pass leaves it as it is. */
export type ListedObject = { readonly object: Unstructured; readonly heldBack?: string | undefined };

const heldReason = {
  controlPlane: 'held back while the control plane upgrade is pending',
  machineDeployment: 'held back while the MachineDeployment upgrade is pending or deferred',
  machinePool: 'held back while the MachinePool upgrade is pending or deferred',
} as const;

/**
 * Every object of a desired state the pass writes, in a stable order (Cluster first, then as upstream creates them),
 * with the pass's holds (computeHeldBack, as the apply step): not the MachineDeployments and MachinePools whose
 * creation waits for the control plane; the current ControlPlane, MachineDeployments and MachinePools (and their
 * templates) whose upgrade waits. Health checks follow whatever waits.
 */
export function listDesiredObjects(current: CurrentState, desired: DesiredState): ListedObject[] {
  const held = computeHeldBack(current, desired);
  const out: ListedObject[] = [
    { object: desired.cluster as unknown as Unstructured },
    { object: desired.infrastructureCluster },
  ];
  const push = (objects: readonly (Unstructured | undefined)[], heldBack?: string) => {
    for (const object of objects) if (object) out.push({ object, ...(heldBack ? { heldBack } : {}) });
  };
  const cp = desired.controlPlane;
  if (held.controlPlane && current.controlPlane?.object)
    push([current.controlPlane.infrastructureMachineTemplate, current.controlPlane.object], heldReason.controlPlane);
  else push([cp.infrastructureMachineTemplate, cp.object]);
  push([cp.machineHealthCheck as unknown as Unstructured | undefined]);
  for (const name of Object.keys(desired.machineDeployments).sort()) {
    if (held.machineDeployments.create.has(name)) continue;
    const md = desired.machineDeployments[name]!;
    const now = current.machineDeployments[name];
    if (now && held.machineDeployments.update.has(name))
      push(
        [now.bootstrapTemplate, now.infrastructureMachineTemplate, now.object as unknown as Unstructured],
        heldReason.machineDeployment,
      );
    else push([md.bootstrapTemplate, md.infrastructureMachineTemplate, md.object as unknown as Unstructured]);
    push([md.machineHealthCheck as unknown as Unstructured | undefined]);
  }
  for (const name of Object.keys(desired.machinePools).sort()) {
    if (held.machinePools.create.has(name)) continue;
    const mp = desired.machinePools[name]!;
    const now = current.machinePools[name];
    if (now && held.machinePools.update.has(name))
      push(
        [now.bootstrapObject, now.infrastructureMachinePoolObject, now.object as unknown as Unstructured],
        heldReason.machinePool,
      );
    else push([mp.bootstrapObject, mp.infrastructureMachinePoolObject, mp.object as unknown as Unstructured]);
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
 * Extensions are called through `deps.runtime`: a failing one fails the plan naming the patch, the extension
 * handler and the hook, as it fails the pass.
 *
 * @example
 * const { objects } = await computePlan(sourced, { randomSuffix: () => 'abcde' });
 */
export async function computePlan(inputs: readonly SourcedObject[], deps: PlanDeps): Promise<PlanResult> {
  const sourceOf = new Map(inputs.map((i) => [key(i.object), i.source]));
  const warnings: string[] = [];
  // Reconcile the ClusterClasses in memory: validate, then fill status.variables as the ClusterClass controller does.
  const objects: Unstructured[] = inputs.map((i) => i.object);
  for (const [index, input] of inputs.entries()) {
    if (input.object.kind !== 'ClusterClass') continue;
    const cc = withSourceOf(input.source, () => parseObject(ClusterClass, 'ClusterClass', input.object));
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
    const variables = computeClusterClassStatusVariables(cc, await getPlanDiscoveredVariables(deps, input.source, cc));
    objects[index] = {
      ...(cc as unknown as Unstructured),
      status: {
        ...(cc.status ?? {}),
        variables,
        observedGeneration: cc.metadata.generation ?? 1,
      },
    };
  }
  const reader = createMemoryReader(objects);
  // NOTE: manifests carry no CRDs: a provider kind's contract is assumed from its API version (v1beta2 and up).
  const contracts = createContractResolver(reader, { lenient: true });
  const planned: PlannedObject[] = [];
  const upgrades: PlannedUpgrade[] = [];
  const clusters = inputs.filter((i) => i.object.kind === 'Cluster');
  if (clusters.length === 0) throw new PlanError('no Cluster with spec.topology in the input', { reason: 'NoCluster' });
  for (const input of clusters) {
    const parsed = withSourceOf(input.source, () => parseObject(Cluster, 'Cluster', input.object));
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
    const blueprint = await withSourceOf(input.source, () => getBlueprint(reader, contracts, cc));
    const current = await getCurrentState(reader, contracts, cluster, undefined, computeUnreferencedKinds(blueprint));
    const computed = await computePlannedDesiredState(deps, input.source, { cluster, blueprint, current });
    const plans = computed.upgrade.plans;
    const workers = plans && plans.machinePools.length > 0 ? plans.machinePools : (plans?.machineDeployments ?? []);
    if (plans && (plans.controlPlane.length > 0 || workers.length > 0))
      upgrades.push({
        cluster: describeObject('Cluster', namespace, cluster.metadata.name),
        controlPlane: plans.controlPlane,
        workers,
      });
    const isTaken = (kind: string, name: string) =>
      objects.some((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
    const { desired: rotated, rotations } = computePlanRotations(current, computed, deps.randomSuffix, isTaken);
    // NOTE: as the pass (reconcile-cluster-shim.ts): while the InfrastructureCluster or ControlPlane is yet to be
    // created, the cluster shim owns both (a shim not created yet has no uid). The shim Secret itself, bookkeeping
    // the pass creates and deletes, is not listed.
    const shim = computeClusterShimAction(current) === 'ensure' ? computeClusterShim(cluster) : undefined;
    const desired = shim ? computeShimOwnedState(rotated, computeShimOwnerRef(current.clusterShim ?? shim)) : rotated;
    for (const { object, heldBack } of listDesiredObjects(current, desired)) {
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
      planned.push({
        object: sortKeysDeep(merged),
        operation: same ? 'unchanged' : 'updated',
        current: existing,
        ...(heldBack ? { heldBack } : {}),
      });
    }
    for (const r of rotations)
      planned.push({
        object: sortKeysDeep(r.replaced),
        operation: 'replaced',
        current: r.replaced,
        replacedBy: r.created.metadata.name,
      });
  }
  return { objects: planned, upgrades, warnings: [...new Set(warnings)] };
}

/** The variables the class's DiscoverVariables extensions define; a failure or conflict fails the plan. */
async function getPlanDiscoveredVariables(deps: PlanDeps, source: string, cc: ClusterClass) {
  const id = describeObject('ClusterClass', cc.metadata.namespace, cc.metadata.name);
  const wanted = (cc.spec.patches ?? []).some((p) => p.external?.discoverVariablesExtension);
  if (!wanted) return [];
  if (!deps.runtime) throw noRuntimeError(source, id);
  const { discovered, errors } = await getDiscoveredVariables(deps.runtime, cc);
  const conflicts = computeClusterClassStatusVariables(cc, discovered)
    .filter((v) => v.definitionsConflict)
    .map((v) => v.name);
  if (errors.length === 0 && conflicts.length > 0)
    errors.push(`the following variables have conflicting schemas: ${conflicts.join(',')}`);
  if (errors.length > 0)
    throw new PlanError(`${source}: ${id}: VariableDiscovery failed: ${errors.join('; ')}`, {
      kind: 'ClusterClass',
      namespace: cc.metadata.namespace ?? '',
      name: cc.metadata.name ?? '',
      fieldPath: 'spec.patches',
      reason: 'VariableDiscoveryFailed',
    });
  return discovered;
}

function noRuntimeError(source: string, id: string): PlanError {
  return new PlanError(
    `${source}: ${id} has external patches: no Runtime Extension can be called (give its ExtensionConfig with -f, or read the ExtensionConfigs of a cluster with --kubeconfig)`,
    { reason: 'NoRuntimeExtensions' },
  );
}

/**
 * The GenerateUpgradePlan answer a Cluster's pass would get: undefined when its class names no extension or nothing
 * is to be upgraded; without Runtime Extensions to call, an upgrade that needs one fails the plan saying so.
 */
async function getPlanGeneratedUpgradePlan(
  deps: PlanDeps,
  source: string,
  input: Parameters<typeof computeUnpatchedDesiredState>[0],
): Promise<GeneratedUpgradePlan | undefined> {
  const { cluster, blueprint, current } = input;
  const upgradeSource = computeUpgradePlanSource(blueprint.clusterClass);
  if (upgradeSource.kind !== 'Extension') return undefined;
  const id = describeObject('Cluster', cluster.metadata.namespace, cluster.metadata.name);
  const request = computeUpgradePlanRequest(cluster.spec?.topology?.version ?? '', current);
  if (!request || request.upToDate) return undefined;
  if (!deps.runtime)
    throw new PlanError(
      `${source}: ${id}: its upgrade plan comes from the GenerateUpgradePlan extension ${upgradeSource.name}: no Runtime Extension can be called (give its ExtensionConfig with -f, or read the ExtensionConfigs of a cluster with --kubeconfig)`,
      { reason: 'NoRuntimeExtensions' },
    );
  const call = createUpgradePlanCaller(deps.runtime);
  try {
    return await getGeneratedUpgradePlan(
      call,
      { ...input, rawCluster: cluster as unknown as Unstructured },
      0,
      new Map(),
    );
  } catch (err) {
    throw new PlanError(
      `${source}: ${id}: ${errorMessage(err)}`,
      { reason: 'GenerateUpgradePlanFailed' },
      { cause: err },
    );
  }
}

/** One pass's desired state: inline patches in memory, external ones through the extensions (as the pass does). */
async function computePlannedDesiredState(
  deps: PlanDeps,
  source: string,
  input: Parameters<typeof computeUnpatchedDesiredState>[0],
): Promise<DesiredState> {
  const { cluster, blueprint } = input;
  const id = describeObject('Cluster', cluster.metadata.namespace, cluster.metadata.name);
  const generatedUpgradePlan = await getPlanGeneratedUpgradePlan(deps, source, input);
  const unpatched = withSourceOf(source, () => computeUnpatchedDesiredState({ ...input, generatedUpgradePlan }, deps));
  if (!hasExternalPatches(blueprint))
    return withSourceOf(source, () => applyPatchesToDesiredState(cluster, blueprint, unpatched));
  const classId = describeObject(
    'ClusterClass',
    blueprint.clusterClass.metadata.namespace,
    blueprint.clusterClass.metadata.name,
  );
  if (!deps.runtime) throw noRuntimeError(source, classId);
  const extensions = createPatchExtensions(deps.runtime, cluster.metadata.namespace ?? '');
  try {
    return await runPatchEngine(extensions, { cluster, blueprint, desired: unpatched });
  } catch (err) {
    const e = err instanceof CapiError ? err : undefined;
    throw new PlanError(
      `${source}: ${id}: ${(err as Error).message}`,
      {
        kind: 'ClusterClass',
        ...(e?.fieldPath ? { fieldPath: e.fieldPath } : {}),
        reason: e?.reason ?? 'PatchFailed',
      },
      { cause: err },
    );
  }
}

/** Names the input file in a validation error. */
function withSourceOf<T>(source: string, fn: () => T): T {
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
}

/** Input fields the schema does not know (typos, or fields of a newer API): named, never dropped silently. */
function computeDroppedFieldWarnings(source: string, raw: Unstructured, parsed: { spec?: unknown }): string[] {
  const id = `${raw.kind} ${raw.metadata.namespace ?? ''}/${raw.metadata.name ?? ''}`;
  return computeDroppedFields({ spec: raw['spec'] }, { spec: parsed.spec }).map(
    (field) => `${source}: ${id}: ${field} is not a known field of ${raw.apiVersion} ${raw.kind} and is ignored`,
  );
}
