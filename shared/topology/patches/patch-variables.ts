// The variables a patch sees for each template: Cluster variables + `builtin`, merged with the template's own
// (control plane / MachineDeployment / MachinePool overrides and builtins), as upstream's variables package builds them.
import type { Topology } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import { VariableDefinitionFrom } from '#shared/api/core/v1beta2/variables.ts';
import { HolderKind } from '#shared/topology/patches/patch-target.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import type { VariableMap } from '#shared/topology/patches/variable-value.ts';
import { CapiError } from '#shared/errors/index.ts';

/** The name of the builtin variable; a user variable with this name is ignored. */
export const BUILTINS_NAME = 'builtin';

type ObjectMetaBuiltins = {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
};

/** `builtin.cluster` (upstream runtimehooksv1.ClusterBuiltins). */
export type ClusterBuiltins = {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly topology?: { readonly version?: string; readonly class?: string };
  readonly network?: {
    readonly serviceDomain?: string;
    readonly services?: readonly string[];
    readonly pods?: readonly string[];
    readonly ipFamily?: string;
  };
};

/** `builtin.controlPlane`. */
export type ControlPlaneBuiltins = {
  readonly version?: string;
  readonly metadata?: ObjectMetaBuiltins;
  readonly name?: string;
  readonly replicas?: number;
  readonly machineTemplate?: { readonly infrastructureRef: { readonly name?: string } };
};

/** `builtin.machineDeployment` / `builtin.machinePool`. */
export type MachineBuiltins = {
  readonly version?: string;
  readonly metadata?: ObjectMetaBuiltins;
  readonly class?: string;
  readonly name?: string;
  readonly topologyName?: string;
  readonly replicas?: number;
  readonly bootstrap?: { readonly configRef?: { readonly name?: string } };
  readonly infrastructureRef?: { readonly name?: string };
};

/** The value of the `builtin` variable (upstream runtimehooksv1.Builtins). */
export type Builtins = {
  readonly cluster?: ClusterBuiltins;
  readonly controlPlane?: ControlPlaneBuiltins;
  readonly machineDeployment?: MachineBuiltins;
  readonly machinePool?: MachineBuiltins;
};

/**
 * Builtin values computed by the topology engine from the desired state, one `builtin` object per level:
 * `global` ({ cluster }) for every template, `controlPlane` ({ controlPlane }) for the ControlPlane and its machine
 * infrastructure only, and per topology name ({ machineDeployment } / { machinePool }) for worker templates.
 */
export type PatchBuiltins = {
  readonly global: Builtins;
  readonly controlPlane: Builtins;
  readonly machineDeployments: Readonly<Record<string, Builtins>>;
  readonly machinePools: Readonly<Record<string, Builtins>>;
};

export type PatchVariablesInput = {
  /** `Cluster.spec.topology`: its `variables` and the `variables.overrides` of control plane and workers. */
  readonly topology: Topology;
  /**
   * ClusterClass `status.variables`: only variables with a definition `from: inline` reach inline patches
   * (upstream's `definitionsForPatch`).
   */
  readonly definitions: readonly ClusterClassStatusVariable[];
  readonly builtins: PatchBuiltins;
};

/** The variables of one target: its own (`template`, used by selectors) and merged with the global ones. */
export type TargetVariables = {
  readonly template: VariableMap;
  readonly merged: VariableMap;
};

/** Variables or builtins missing for a target (a topology name with no builtins or no topology entry). */
export class PatchVariablesError extends CapiError {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value; `undefined` properties are dropped as JSON would. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneJson(item)) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      Object.defineProperty(out, key, { value: cloneJson(item), enumerable: true, writable: true, configurable: true });
    }
    return out as T;
  }
  return value;
}

/**
 * Merges builtin objects like upstream's `mergeBuiltinVariables` (json.Unmarshal of each into one Builtins struct):
 * nested objects merge key by key, later values win, arrays are replaced and `null` clears a field.
 */
export function mergeBuiltins(...builtins: readonly unknown[]): Record<string, unknown> {
  const merge = (into: Record<string, unknown>, from: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(from)) {
      if (value === undefined) continue;
      const current = Object.hasOwn(into, key) ? into[key] : undefined;
      let next: unknown;
      if (value === null) {
        delete into[key];
        continue;
      } else if (isObject(value) && isObject(current)) {
        next = current;
        merge(current, value);
      } else {
        next = cloneJson(value);
      }
      Object.defineProperty(into, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  };
  const out: Record<string, unknown> = {};
  for (const b of builtins) if (isObject(b)) merge(out, b);
  return out;
}

/**
 * Upstream's MergeVariableMaps: later maps win, except `builtin` which is merged with {@link mergeBuiltins}.
 *
 * @example
 * mergeVariableMaps(new Map([['builtin', { cluster: { name: 'c' } }]]), new Map([['builtin', { machineDeployment: { class: 'w' } }]]));
 * // Map { builtin: { cluster: { name: 'c' }, machineDeployment: { class: 'w' } } }
 */
export function mergeVariableMaps(...maps: readonly VariableMap[]): VariableMap {
  const out = new Map<string, unknown>();
  for (const map of maps) {
    for (const [name, value] of map) {
      if (name === BUILTINS_NAME && out.has(name)) out.set(name, mergeBuiltins(out.get(name), value));
      else out.set(name, value);
    }
  }
  return out;
}

/**
 * Names of variables with a definition from `definitionFrom` (upstream's definitionsForPatch): `inline` for
 * ClusterClass `spec.variables`, or the name of the external patch whose DiscoverVariables extension defined them.
 */
function variableNamesFrom(
  definitions: readonly ClusterClassStatusVariable[],
  definitionFrom: string,
): ReadonlySet<string> {
  const names = new Set<string>();
  for (const variable of definitions) {
    if (variable.definitions.some((d) => d.from === definitionFrom)) names.add(variable.name);
  }
  return names;
}

// NOTE: v1.8 ignores the deprecated `definitionFrom` of values (the Cluster webhook rejects it being set).
function userVariables(
  values: readonly ClusterVariable[] | undefined,
  defined: ReadonlySet<string>,
): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const v of values ?? []) {
    if (v.name === BUILTINS_NAME || !defined.has(v.name)) continue;
    out.push([v.name, cloneJson(v.value)]);
  }
  return out;
}

/**
 * Computes the variables of each target for the patches whose variable definitions come from `definitionFrom`
 * (default `inline`; an external patch's name for that patch); results cached per target id.
 */
export class PatchVariablesResolver {
  private readonly defined: ReadonlySet<string>;
  private readonly global: VariableMap;
  private readonly cache = new Map<string, TargetVariables>();

  constructor(
    private readonly input: PatchVariablesInput,
    definitionFrom: string = VariableDefinitionFrom.Inline,
  ) {
    this.defined = variableNamesFrom(input.definitions, definitionFrom);
    this.global = new Map([
      ...userVariables(input.topology.variables, this.defined),
      [BUILTINS_NAME, cloneJson(input.builtins.global)],
    ]);
  }

  /** Global variables: Cluster `spec.topology.variables` defined inline, plus `builtin` ({ cluster }). */
  globalVariables(): VariableMap {
    return this.global;
  }

  /** The target's own variables and the merged ones; throws PatchVariablesError when builtins are missing. */
  forTarget(target: PatchTarget): TargetVariables {
    const cached = this.cache.get(target.id);
    if (cached) return cached;
    const template = this.templateVariables(target);
    const result = { template, merged: mergeVariableMaps(this.global, template) };
    this.cache.set(target.id, result);
    return result;
  }

  private templateVariables(target: PatchTarget): VariableMap {
    const { topology, builtins } = this.input;
    const { holder } = target;
    switch (holder.kind) {
      case HolderKind.InfrastructureCluster:
        return new Map();
      case HolderKind.ControlPlane:
      case HolderKind.ControlPlaneMachineInfrastructure:
        return new Map([
          ...userVariables(topology.controlPlane?.variables?.overrides, this.defined),
          [BUILTINS_NAME, cloneJson(builtins.controlPlane)],
        ]);
      case HolderKind.MachineDeploymentBootstrap:
      case HolderKind.MachineDeploymentInfrastructure: {
        const name = holder.machineDeploymentTopologyName;
        const mdTopology = topology.workers?.machineDeployments?.find((md) => md.name === name);
        if (!mdTopology) {
          throw new PatchVariablesError(
            `failed to lookup MachineDeployment topology "${name}" in Cluster.spec.topology.workers.machineDeployments`,
          );
        }
        const builtin = Object.hasOwn(builtins.machineDeployments, name)
          ? builtins.machineDeployments[name]
          : undefined;
        if (builtin === undefined) {
          throw new PatchVariablesError(`could not find builtins for MachineDeployment topology "${name}"`);
        }
        return new Map([
          ...userVariables(mdTopology.variables?.overrides, this.defined),
          [BUILTINS_NAME, cloneJson(builtin)],
        ]);
      }
      case HolderKind.MachinePoolBootstrap:
      case HolderKind.MachinePoolInfrastructure: {
        const name = holder.machinePoolTopologyName;
        const mpTopology = topology.workers?.machinePools?.find((mp) => mp.name === name);
        if (!mpTopology) {
          throw new PatchVariablesError(
            `failed to lookup MachinePool topology "${name}" in Cluster.spec.topology.workers.machinePools`,
          );
        }
        const builtin = Object.hasOwn(builtins.machinePools, name) ? builtins.machinePools[name] : undefined;
        if (builtin === undefined) {
          throw new PatchVariablesError(`could not find builtins for MachinePool topology "${name}"`);
        }
        return new Map([
          ...userVariables(mpTopology.variables?.overrides, this.defined),
          [BUILTINS_NAME, cloneJson(builtin)],
        ]);
      }
    }
  }
}

/**
 * The variables one target sees (a convenience over {@link PatchVariablesResolver}).
 *
 * @example
 * computeTargetVariables(input, mdInfraTarget).merged.get('builtin'); // { cluster: {...}, machineDeployment: {...} }
 */
export function computeTargetVariables(input: PatchVariablesInput, target: PatchTarget): TargetVariables {
  return new PatchVariablesResolver(input).forTarget(target);
}

/**
 * The data a Go template sees: the merged variables as a plain object (`{{ .builtin.cluster.name }}`,
 * `{{ .myVariable }}`), like upstream's calculateTemplateData.
 */
export function computeTemplateData(variables: VariableMap): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, value] of variables) {
    Object.defineProperty(data, name, {
      value: cloneJson(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return data;
}
