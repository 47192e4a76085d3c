// Cluster topology defaulting and validation against its ClusterClass, as upstream's Cluster webhook: variables
// defaulted then validated (overrides too), worker names unique, classes known.
import type { Cluster } from '#shared/api/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/v1beta2/cluster-class.ts';
import type { ClusterClassStatusVariable } from '#shared/api/v1beta2/variables.ts';
import { computeClusterClassStatusVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import {
  defaultClusterVariables,
  defaultMachineVariables,
  validateClusterVariables,
  validateControlPlaneVariables,
  validateMachineVariables,
  type FieldError,
} from '#shared/topology/variables/index.ts';

/** The variable definitions of a class: its status when reconciled, else computed from its spec. */
export function definitionsOf(cc: ClusterClass): ClusterClassStatusVariable[] {
  return cc.status?.variables ?? computeClusterClassStatusVariables(cc);
}

export type DefaultedTopology =
  { readonly ok: true; readonly cluster: Cluster } | { readonly ok: false; readonly errors: FieldError[] };

/**
 * The Cluster with its topology variables (and every worker's overrides) defaulted; inputs untouched.
 *
 * @example
 * const result = computeDefaultedTopology(cluster, clusterClass);
 */
export function computeDefaultedTopology(cluster: Cluster, cc: ClusterClass): DefaultedTopology {
  const topology = cluster.spec?.topology;
  if (!topology) return { ok: true, cluster };
  const definitions = definitionsOf(cc);
  const errors: FieldError[] = [];
  const top = defaultClusterVariables(topology.variables ?? [], definitions);
  if (!top.ok) errors.push(...top.errors);
  const machineDeployments = (topology.workers?.machineDeployments ?? []).map((md) => {
    if (!md.variables?.overrides) return md;
    const r = defaultMachineVariables(
      md.variables.overrides,
      definitions,
      `spec.topology.workers.machineDeployments[${md.name}].variables.overrides`,
    );
    if (!r.ok) {
      errors.push(...r.errors);
      return md;
    }
    return { ...md, variables: { overrides: r.values } };
  });
  const machinePools = (topology.workers?.machinePools ?? []).map((mp) => {
    if (!mp.variables?.overrides) return mp;
    const r = defaultMachineVariables(
      mp.variables.overrides,
      definitions,
      `spec.topology.workers.machinePools[${mp.name}].variables.overrides`,
    );
    if (!r.ok) {
      errors.push(...r.errors);
      return mp;
    }
    return { ...mp, variables: { overrides: r.values } };
  });
  if (errors.length > 0 || !top.ok) return { ok: false, errors };
  const workers = topology.workers
    ? {
        ...topology.workers,
        ...(topology.workers.machineDeployments ? { machineDeployments } : {}),
        ...(topology.workers.machinePools ? { machinePools } : {}),
      }
    : undefined;
  const variables = top.values;
  return {
    ok: true,
    cluster: {
      ...cluster,
      spec: {
        ...cluster.spec,
        topology: { ...topology, ...(variables.length > 0 ? { variables } : {}), ...(workers ? { workers } : {}) },
      },
    },
  };
}

/**
 * Field errors of a Cluster's topology against its class. `old` is the Cluster before an update (the webhook's
 * oldObject): its variables are the `oldSelf` of transition rules, matched by name as upstream (workers' overrides
 * by worker name).
 *
 * @example
 * validateClusterTopology(cluster, clusterClass); // [] when valid
 */
export function validateClusterTopology(cluster: Cluster, cc: ClusterClass, old?: Cluster): FieldError[] {
  const topology = cluster.spec?.topology;
  if (!topology) return [];
  const oldTopology = old?.spec?.topology;
  const oldMachineDeployments = new Map(
    (oldTopology?.workers?.machineDeployments ?? []).map((md) => [md.name, md.variables?.overrides ?? []]),
  );
  const oldMachinePools = new Map(
    (oldTopology?.workers?.machinePools ?? []).map((mp) => [mp.name, mp.variables?.overrides ?? []]),
  );
  const definitions = definitionsOf(cc);
  const errors: FieldError[] = [];
  const mdClasses = new Set((cc.spec?.workers?.machineDeployments ?? []).map((c) => c.class));
  const mpClasses = new Set((cc.spec?.workers?.machinePools ?? []).map((c) => c.class));
  const ccName = `${cc.metadata.namespace ?? ''}/${cc.metadata.name ?? ''}`;
  const names = new Set<string>();
  (topology.workers?.machineDeployments ?? []).forEach((md, i) => {
    const field = `spec.topology.workers.machineDeployments[${i}]`;
    if (names.has(md.name))
      errors.push({
        type: 'Invalid',
        field: `${field}.name`,
        badValue: md.name,
        detail: 'name must be unique. MachineDeployment with name "' + md.name + '" is defined more than once',
      });
    names.add(md.name);
    if (!mdClasses.has(md.class))
      errors.push({
        type: 'Invalid',
        field: `${field}.class`,
        badValue: md.class,
        detail: `MachineDeploymentClass with name "${md.class}" does not exist in ClusterClass "${ccName}"`,
      });
    if (md.variables?.overrides)
      errors.push(
        ...validateMachineVariables(
          md.variables.overrides,
          definitions,
          // NOTE: upstream names overrides by the worker's name (field.Path.Key), other fields by index.
          `spec.topology.workers.machineDeployments[${md.name}].variables.overrides`,
          oldMachineDeployments.get(md.name),
        ),
      );
  });
  const poolNames = new Set<string>();
  (topology.workers?.machinePools ?? []).forEach((mp, i) => {
    const field = `spec.topology.workers.machinePools[${i}]`;
    if (poolNames.has(mp.name))
      errors.push({
        type: 'Invalid',
        field: `${field}.name`,
        badValue: mp.name,
        detail: 'name must be unique. MachinePool with name "' + mp.name + '" is defined more than once',
      });
    poolNames.add(mp.name);
    if (!mpClasses.has(mp.class))
      errors.push({
        type: 'Invalid',
        field: `${field}.class`,
        badValue: mp.class,
        detail: `MachinePoolClass with name "${mp.class}" does not exist in ClusterClass "${ccName}"`,
      });
    if (mp.variables?.overrides)
      errors.push(
        ...validateMachineVariables(
          mp.variables.overrides,
          definitions,
          `spec.topology.workers.machinePools[${mp.name}].variables.overrides`,
          oldMachinePools.get(mp.name),
        ),
      );
  });
  if (topology.controlPlane?.variables?.overrides)
    errors.push(
      ...validateControlPlaneVariables(
        topology.controlPlane.variables.overrides,
        definitions,
        undefined,
        oldTopology?.controlPlane?.variables?.overrides,
      ),
    );
  errors.push(
    ...validateClusterVariables(topology.variables ?? [], definitions, { oldValues: oldTopology?.variables ?? [] }),
  );
  return errors;
}
