// Cluster topology defaulting and validation against its ClusterClass, as upstream's Cluster webhook: variables
// defaulted then validated (overrides too), worker names unique, classes known, health checks enabled only where one
// is defined.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ClusterClassStatusVariable } from '#shared/api/core/v1beta2/variables.ts';
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
  errors.push(...validateMachineHealthChecks(cluster, cc));
  return errors;
}

type HealthCheck = { readonly checks?: object | undefined; readonly remediation?: object | undefined };

/** upstream `IsDefined` of a health check: checks or remediation set. */
const isHealthCheckDefined = (h: HealthCheck | undefined) =>
  Object.keys(h?.checks ?? {}).length > 0 || Object.keys(h?.remediation ?? {}).length > 0;

const minNodeStartupTimeoutSeconds = 30;

function validateNodeStartupTimeout(field: string, h: HealthCheck | undefined): FieldError[] {
  const seconds = (h?.checks as { nodeStartupTimeoutSeconds?: number } | undefined)?.nodeStartupTimeoutSeconds;
  if (seconds === undefined || seconds === 0 || seconds >= minNodeStartupTimeoutSeconds) return [];
  return [
    {
      type: 'Invalid',
      field: `${field}.checks.nodeStartupTimeoutSeconds`,
      badValue: seconds,
      detail: 'must be at least 30s',
    },
  ];
}

/**
 * upstream `validateMachineHealthChecks` of the Cluster webhook: a control-plane health check needs control-plane
 * machines in the class; `enabled: true` needs a check defined in the topology or the class; node startup timeouts of
 * at least 30 s (0 disables).
 *
 * @example
 * validateMachineHealthChecks(cluster, cc); // [{ type: 'Forbidden', field: 'spec.topology.controlPlane.healthCheck.enable', … }]
 */
export function validateMachineHealthChecks(cluster: Cluster, cc: ClusterClass): FieldError[] {
  const topology = cluster.spec?.topology;
  if (!topology) return [];
  const errors: FieldError[] = [];
  const enableDetail = (enabled: boolean) =>
    `cannot be set to ${String(enabled)} as healthCheck definition is not available in the Cluster topology or the ClusterClass`;
  const cpField = 'spec.topology.controlPlane.healthCheck';
  const cp = topology.controlPlane?.healthCheck;
  if (isHealthCheckDefined(cp)) {
    if (!cc.spec.controlPlane.machineInfrastructure?.templateRef)
      errors.push({
        type: 'Forbidden',
        field: cpField,
        detail: 'can be only set if spec.controlPlane.machineInfrastructure is set in ClusterClass',
      });
    errors.push(...validateNodeStartupTimeout(cpField, cp));
  }
  if (cp?.enabled === true && !isHealthCheckDefined(cp) && !isHealthCheckDefined(cc.spec.controlPlane.healthCheck))
    errors.push({ type: 'Forbidden', field: `${cpField}.enable`, detail: enableDetail(true) });
  for (const md of topology.workers?.machineDeployments ?? []) {
    const field = `spec.topology.workers.machineDeployments[${md.name}].healthCheck`;
    if (isHealthCheckDefined(md.healthCheck)) errors.push(...validateNodeStartupTimeout(field, md.healthCheck));
    const mdClass = cc.spec.workers?.machineDeployments?.find((c) => c.class === md.class);
    if (!mdClass) continue;
    if (
      md.healthCheck?.enabled === true &&
      !isHealthCheckDefined(md.healthCheck) &&
      !isHealthCheckDefined(mdClass.healthCheck)
    )
      errors.push({ type: 'Forbidden', field: `${field}.enable`, detail: enableDetail(true) });
  }
  return errors;
}
