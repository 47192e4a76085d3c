// ClusterClass update rules of the admission webhook, as upstream's ClusterClass webhook and topology checks:
// referenced template kinds and groups stay (bootstrap templates excepted), classes and variables in use stay, and
// variable schema changes must keep every existing Cluster's values valid. Pure: the Clusters are passed in.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ClusterClassTemplateReference } from '#shared/api/core/v1beta2/common.ts';
import type { ClusterClassStatusVariable, ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import { compareWithBuildTags, formatVersion, parseVersionTolerant } from '#shared/lang/semver/semver.ts';
import { groupOf } from '#shared/topology/desired/template-to-object.ts';
import { computeClusterClassStatusVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import {
  defaultClusterVariables,
  formatFieldErrors,
  jsonEqual,
  validateClusterVariable,
  type FieldError,
} from '#shared/topology/variables/index.ts';

type TemplateSlot = { readonly templateRef: ClusterClassTemplateReference };

function refGroupKind(template: TemplateSlot | undefined): { group: string; kind: string } | undefined {
  const ref = template?.templateRef;
  if (!ref?.apiVersion || !ref.kind) return undefined;
  return { group: groupOf(ref.apiVersion), kind: ref.kind };
}

/**
 * upstream `ClusterClassTemplateAreCompatible`: same group and kind. NOTE: no namespace check: in v1beta2 a template
 * is always in its ClusterClass's namespace, and a Cluster may be rebased to a class in another namespace (upstream's
 * ClusterClassChangesSpec does; v1.14 dropped the v1beta1-era "same namespace" check).
 */
function validateTemplatesAreCompatible(
  current: TemplateSlot | undefined,
  desired: TemplateSlot | undefined,
  path: string,
): FieldError[] {
  const a = refGroupKind(current);
  const b = refGroupKind(desired);
  if (!a || !b) return [];
  const errors: FieldError[] = [];
  if (a.group !== b.group)
    errors.push({
      type: 'Forbidden',
      field: `${path}.templateRef.apiVersion`,
      detail: `apiVersion.group cannot be changed from "${a.group}" to "${b.group}" to prevent incompatible changes in the Clusters`,
    });
  if (a.kind !== b.kind)
    errors.push({
      type: 'Forbidden',
      field: `${path}.templateRef.kind`,
      detail: `apiVersion.kind cannot be changed from "${a.kind}" to "${b.kind}" to prevent incompatible changes in the Clusters`,
    });
  return errors;
}

/**
 * upstream `ClusterClassesAreCompatible`: the infrastructure cluster, control plane, control plane machine
 * infrastructure and each kept MachineDeployment/MachinePool class's infrastructure template keep their group and
 * kind. Bootstrap templates and metadata may change. Used on a ClusterClass update and on a Cluster's class change.
 *
 * @example
 * validateClusterClassesAreCompatible(oldClass, newClass); // [] when compatible
 */
export function validateClusterClassesAreCompatible(current: ClusterClass, desired: ClusterClass): FieldError[] {
  const a = current.spec;
  const b = desired.spec;
  const errors = [
    ...validateTemplatesAreCompatible(a.infrastructure, b.infrastructure, 'spec.infrastructure'),
    ...validateTemplatesAreCompatible(a.controlPlane, b.controlPlane, 'spec.controlPlane'),
  ];
  if (a.controlPlane?.machineInfrastructure && b.controlPlane?.machineInfrastructure)
    errors.push(
      ...validateTemplatesAreCompatible(
        a.controlPlane.machineInfrastructure,
        b.controlPlane.machineInfrastructure,
        'spec.controlPlane.machineInfrastructure',
      ),
    );
  (b.workers?.machineDeployments ?? []).forEach((md, i) => {
    const old = a.workers?.machineDeployments?.find((c) => c.class === md.class);
    if (old)
      errors.push(
        ...validateTemplatesAreCompatible(
          old.infrastructure,
          md.infrastructure,
          `spec.workers.machineDeployments[${i}].infrastructure`,
        ),
      );
  });
  (b.workers?.machinePools ?? []).forEach((mp, i) => {
    const old = a.workers?.machinePools?.find((c) => c.class === mp.class);
    if (old)
      errors.push(
        ...validateTemplatesAreCompatible(
          old.infrastructure,
          mp.infrastructure,
          `spec.workers.machinePools[${i}].infrastructure`,
        ),
      );
  });
  return errors;
}

/** MachineDeployment and MachinePool classes of `current` that `desired` no longer has. */
export function computeRemovedWorkerClasses(
  current: ClusterClass,
  desired: ClusterClass,
): { readonly machineDeployments: readonly string[]; readonly machinePools: readonly string[] } {
  const kept = (list: readonly { class: string }[] | undefined) => new Set((list ?? []).map((c) => c.class));
  const mds = kept(desired.spec?.workers?.machineDeployments);
  const mps = kept(desired.spec?.workers?.machinePools);
  return {
    machineDeployments: (current.spec?.workers?.machineDeployments ?? [])
      .map((c) => c.class)
      .filter((c) => !mds.has(c)),
    machinePools: (current.spec?.workers?.machinePools ?? []).map((c) => c.class).filter((c) => !mps.has(c)),
  };
}

/**
 * Refuses removing a MachineDeployment or MachinePool class a Cluster still uses (upstream messages).
 *
 * @example
 * validateRemovedClassesAreNotUsed(clustersUsingTheClass, oldClass, newClass);
 */
export function validateRemovedClassesAreNotUsed(
  clusters: readonly Cluster[],
  current: ClusterClass,
  desired: ClusterClass,
): FieldError[] {
  const removed = computeRemovedWorkerClasses(current, desired);
  const errors: FieldError[] = [];
  for (const cluster of clusters) {
    const name = cluster.metadata.name ?? '';
    for (const md of cluster.spec?.topology?.workers?.machineDeployments ?? []) {
      if (removed.machineDeployments.includes(md.class))
        errors.push({
          type: 'Forbidden',
          field: 'spec.workers.machineDeployments',
          detail: `MachineDeploymentClass "${md.class}" cannot be deleted because it is used by Cluster "${name}"`,
        });
    }
    for (const mp of cluster.spec?.topology?.workers?.machinePools ?? []) {
      if (removed.machinePools.includes(mp.class))
        errors.push({
          type: 'Forbidden',
          field: 'spec.workers.machinePools',
          detail: `MachinePoolClass "${mp.class}" cannot be deleted because it is used by Cluster "${name}"`,
        });
    }
  }
  return errors;
}

/** Names of variables whose definition (schema, required, metadata) differs between the classes, or that are gone. */
export function computeChangedVariables(current: ClusterClass, desired: ClusterClass): ReadonlySet<string> {
  const after = new Map((desired.spec?.variables ?? []).map((v) => [v.name, v]));
  const before = new Map((current.spec?.variables ?? []).map((v) => [v.name, v]));
  const changed = new Set<string>();
  for (const [name, v] of before) if (!jsonEqual(v, after.get(name))) changed.add(name);
  for (const name of after.keys()) if (!before.has(name)) changed.add(name);
  return changed;
}

type VariableUse = { readonly value: ClusterVariable; readonly field: string; readonly topLevel: boolean };

/** Every variable value a Cluster sets: cluster-wide and every override, with its field path. */
function variableUses(cluster: Cluster): VariableUse[] {
  const topology = cluster.spec?.topology;
  if (!topology) return [];
  const uses: VariableUse[] = (topology.variables ?? []).map((value) => ({
    value,
    field: `spec.topology.variables[${value.name}]`,
    topLevel: true,
  }));
  for (const value of topology.controlPlane?.variables?.overrides ?? [])
    uses.push({ value, field: `spec.topology.controlPlane.variables.overrides[${value.name}]`, topLevel: false });
  for (const md of topology.workers?.machineDeployments ?? [])
    for (const value of md.variables?.overrides ?? [])
      uses.push({
        value,
        field: `spec.topology.workers.machineDeployments[${md.name}].variables.overrides[${value.name}]`,
        topLevel: false,
      });
  for (const mp of topology.workers?.machinePools ?? [])
    for (const value of mp.variables?.overrides ?? [])
      uses.push({
        value,
        field: `spec.topology.workers.machinePools[${mp.name}].variables.overrides[${value.name}]`,
        topLevel: false,
      });
  return uses;
}

/** The value as the Cluster webhook would default it against the new definition, then validated. */
function validateUse(use: VariableUse, definition: ClusterClassStatusVariable): FieldError[] {
  const defaulted = defaultClusterVariables([use.value], [definition], {
    createVariables: false,
    fieldPath: use.field,
  });
  if (!defaulted.ok) return defaulted.errors;
  const value = defaulted.values[0] ?? use.value;
  const schema = definition.definitions[0]?.schema;
  return schema ? validateClusterVariable(value, { name: value.name, schema }, use.field) : [];
}

/**
 * Variable changes checked against the Clusters using the class (seed 000): a variable a Cluster sets cannot be
 * removed; a changed schema must accept every existing value (after defaulting, as the Cluster webhook would); a
 * variable cannot become required while a Cluster does not set it and it has no default. Only changed variables are
 * checked, so values that were already invalid do not block unrelated edits.
 *
 * @example
 * validateVariableChangesAgainstClusters(clustersUsingTheClass, oldClass, newClass);
 */
export function validateVariableChangesAgainstClusters(
  clusters: readonly Cluster[],
  current: ClusterClass,
  desired: ClusterClass,
): FieldError[] {
  const changed = computeChangedVariables(current, desired);
  if (changed.size === 0) return [];
  const definitions = new Map(computeClusterClassStatusVariables(desired).map((d) => [d.name, d]));
  const indexOf = new Map((desired.spec?.variables ?? []).map((v, i) => [v.name, i]));
  const formerlyDefined = new Set((current.spec?.variables ?? []).map((v) => v.name));
  const formerlyRequired = new Set((current.spec?.variables ?? []).filter((v) => v.required).map((v) => v.name));
  const removedUsers = new Map<string, string[]>();
  const missingRequired = new Map<string, string[]>();
  const errors: FieldError[] = [];
  for (const cluster of clusters) {
    const clusterName = cluster.metadata.name ?? '';
    const uses = variableUses(cluster);
    for (const use of uses) {
      const name = use.value.name;
      if (!changed.has(name)) continue;
      const definition = definitions.get(name);
      if (!definition) {
        if (!formerlyDefined.has(name)) continue;
        const users = removedUsers.get(name) ?? [];
        if (!users.includes(clusterName)) users.push(clusterName);
        removedUsers.set(name, users);
        continue;
      }
      const problems = validateUse(use, definition);
      if (problems.length > 0)
        errors.push({
          type: 'Forbidden',
          field: `spec.variables[${indexOf.get(name) ?? 0}].schema`,
          detail: `variable "${name}" schema change is incompatible with Cluster "${clusterName}": ${formatFieldErrors(problems).join('; ')}`,
        });
    }
    for (const name of changed) {
      const definition = definitions.get(name)?.definitions[0];
      if (!definition?.required || formerlyRequired.has(name)) continue;
      if (definition.schema.openAPIV3Schema.default !== undefined) continue;
      if (uses.some((u) => u.topLevel && u.value.name === name)) continue;
      missingRequired.set(name, [...(missingRequired.get(name) ?? []), clusterName]);
    }
  }
  for (const [name, users] of removedUsers)
    errors.push({
      type: 'Forbidden',
      field: 'spec.variables',
      detail: `variable "${name}" cannot be removed because it is used by Cluster(s) "${users.join(',')}"`,
    });
  for (const [name, users] of missingRequired)
    errors.push({
      type: 'Forbidden',
      field: `spec.variables[${indexOf.get(name) ?? 0}].required`,
      detail: `variable "${name}" cannot become required without a default because Cluster(s) "${users.join(',')}" do not set it`,
    });
  return errors;
}

/**
 * upstream validateKubernetesVersions: each of spec.kubernetesVersions a semantic version, greater than the one
 * before (a different build of the same version is tolerated) and at most one minor above it.
 *
 * @example
 * validateKubernetesVersions(['v1.31.0', 'v1.33.0']); // expecting a version with minor 31 or 32, found version 1.33.0
 */
export function validateKubernetesVersions(versions: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  let previous: ReturnType<typeof parseVersionTolerant>;
  versions.forEach((raw, i) => {
    const field = `spec.kubernetesVersion[${i}]`;
    const v = parseVersionTolerant(raw);
    if (!v) {
      errors.push({ type: 'Invalid', field, badValue: raw, detail: 'version must be a valid semantic version' });
      return;
    }
    if (previous) {
      if (compareWithBuildTags(v, previous) <= 0)
        errors.push({
          type: 'Invalid',
          field,
          badValue: raw,
          detail: `version must be greater than v${formatVersion(previous)}`,
        });
      if (previous.minor !== v.minor && previous.minor + 1 !== v.minor)
        errors.push({
          type: 'Invalid',
          field,
          badValue: raw,
          detail: `expecting a version with minor ${previous.minor} or ${previous.minor + 1}, found version ${formatVersion(v)}`,
        });
    }
    previous = v;
  });
  return errors;
}

/**
 * upstream validateKubernetesVersionsOfClusters: a class that lists kubernetesVersions must list the version of
 * every Cluster using it.
 *
 * @example
 * validateKubernetesVersionsOfClusters(clusters, desired); // Kubernetes Version v1.30.0 is used by Cluster "c1" but not set in ClusterClass
 */
export function validateKubernetesVersionsOfClusters(
  clusters: readonly Cluster[],
  desired: ClusterClass,
): FieldError[] {
  const versions = new Set(desired.spec.kubernetesVersions ?? []);
  if (versions.size === 0) return [];
  return clusters
    .filter((c) => !versions.has(c.spec?.topology?.version ?? ''))
    .map((c) => ({
      type: 'Forbidden' as const,
      field: 'spec.kubernetesVersions',
      detail: `Kubernetes Version ${c.spec?.topology?.version ?? ''} is used by Cluster "${c.metadata.name ?? ''}" but not set in ClusterClass`,
    }));
}
