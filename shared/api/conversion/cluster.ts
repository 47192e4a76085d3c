// Cluster between v1beta1 and v1beta2 with upstream's field mapping: `topology.class`/`classNamespace` →
// `topology.classRef`, contract-versioned `infrastructureRef`/`controlPlaneRef`, topology health checks, deletion and
// rollout settings, `status.initialization`, failure domains as a list, and conditions (see status-conditions.ts).
import { convertBoolToPointerBool } from '#shared/api/conversion/conversion-data.ts';
import {
  convertDeletionTimeoutsFromHub,
  convertDeletionTimeoutsToHub,
  V1Beta1DeletionFields,
} from '#shared/api/conversion/deletion.ts';
import { convertHealthCheckFromHub, convertHealthCheckToHub } from '#shared/api/conversion/health-check.ts';
import {
  convertToContractVersionedObjectReference,
  convertToObjectReference,
  isReferenceDefined,
  type ApiVersionGetter,
} from '#shared/api/conversion/references.ts';
import { convertStrategyFromHub, convertStrategyToHub } from '#shared/api/conversion/rollout-strategy.ts';
import { convertStatusFromHub, convertStatusToHub } from '#shared/api/conversion/status-conditions.ts';
import {
  compact,
  compactOrUndefined,
  isUnstructured,
  isZero,
  listAt,
  mapObjects,
  objectAt,
  omitKeys,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

function topologyHealthCheckToHub(healthCheck: Unstructured | undefined, maxInFlight?: unknown): Unstructured {
  const { checks, remediation } = healthCheck ? convertHealthCheckToHub(healthCheck) : { checks: {}, remediation: {} };
  return compact({ enabled: healthCheck?.['enable'], checks, remediation: compact({ maxInFlight, ...remediation }) });
}

function topologyHealthCheckFromHub(healthCheck: Unstructured | undefined, namespace: string | undefined) {
  const remediation = omitKeys(objectAt(healthCheck, 'remediation') ?? {}, ['maxInFlight']);
  if (isZero({ ...healthCheck, remediation })) return undefined;
  return compact({
    enable: healthCheck?.['enabled'],
    ...convertHealthCheckFromHub(objectAt(healthCheck, 'checks'), remediation, namespace),
  });
}

function convertControlPlaneTopologyToHub(cp: Unstructured): Unstructured {
  return compact({
    ...omitKeys(cp, ['machineHealthCheck', ...V1Beta1DeletionFields]),
    healthCheck: topologyHealthCheckToHub(objectAt(cp, 'machineHealthCheck')),
    deletion: convertDeletionTimeoutsToHub(cp),
  });
}

function convertControlPlaneTopologyFromHub(cp: Unstructured, namespace: string | undefined): Unstructured {
  return compact({
    ...omitKeys(cp, ['healthCheck', 'deletion']),
    machineHealthCheck: topologyHealthCheckFromHub(objectAt(cp, 'healthCheck'), namespace),
    ...convertDeletionTimeoutsFromHub(cp),
  });
}

function convertMachineDeploymentTopologyToHub(md: Unstructured): Unstructured {
  const { rolloutStrategy, deletionOrder, maxInFlight } = convertStrategyToHub(objectAt(md, 'strategy'));
  return compact({
    ...omitKeys(md, ['machineHealthCheck', 'strategy', 'rollout', ...V1Beta1DeletionFields]),
    healthCheck: topologyHealthCheckToHub(objectAt(md, 'machineHealthCheck'), maxInFlight),
    deletion: compact({ order: deletionOrder, ...convertDeletionTimeoutsToHub(md) }),
    rollout: compact({ ...objectAt(md, 'rollout'), strategy: rolloutStrategy }),
  });
}

function convertMachineDeploymentTopologyFromHub(md: Unstructured, namespace: string | undefined): Unstructured {
  const healthCheck = objectAt(md, 'healthCheck');
  const rollout = objectAt(md, 'rollout');
  return compact({
    ...omitKeys(md, ['healthCheck', 'deletion', 'rollout']),
    machineHealthCheck: topologyHealthCheckFromHub(healthCheck, namespace),
    ...convertDeletionTimeoutsFromHub(md),
    strategy: convertStrategyFromHub(
      objectAt(rollout, 'strategy'),
      objectAt(md, 'deletion')?.['order'],
      objectAt(healthCheck, 'remediation')?.['maxInFlight'],
    ),
    rollout: compactOrUndefined(omitKeys(rollout ?? {}, ['strategy'])),
  });
}

function convertMachinePoolTopologyToHub(mp: Unstructured): Unstructured {
  return compact({ ...omitKeys(mp, V1Beta1DeletionFields), deletion: convertDeletionTimeoutsToHub(mp) });
}

function convertMachinePoolTopologyFromHub(mp: Unstructured): Unstructured {
  return compact({ ...omitKeys(mp, ['deletion']), ...convertDeletionTimeoutsFromHub(mp) });
}

function convertTopologyToHub(topology: Unstructured): Unstructured {
  const workers = objectAt(topology, 'workers');
  const controlPlane = objectAt(topology, 'controlPlane');
  return compact({
    ...omitKeys(topology, ['class', 'classNamespace', 'rolloutAfter', 'controlPlane', 'workers']),
    classRef: compact({ name: topology['class'], namespace: topology['classNamespace'] }),
    controlPlane: controlPlane && convertControlPlaneTopologyToHub(controlPlane),
    workers:
      workers &&
      compact({
        ...workers,
        machineDeployments: mapObjects(listAt(workers, 'machineDeployments'), convertMachineDeploymentTopologyToHub),
        machinePools: mapObjects(listAt(workers, 'machinePools'), convertMachinePoolTopologyToHub),
      }),
  });
}

function convertTopologyFromHub(topology: Unstructured, namespace: string | undefined): Unstructured {
  const classRef = objectAt(topology, 'classRef');
  const workers = objectAt(topology, 'workers');
  return compact({
    ...omitKeys(topology, ['classRef', 'controlPlane', 'workers']),
    class: classRef?.['name'],
    classNamespace: classRef?.['namespace'],
    controlPlane: convertControlPlaneTopologyFromHub(objectAt(topology, 'controlPlane') ?? {}, namespace),
    workers:
      workers &&
      compactOrUndefined({
        ...workers,
        machineDeployments: mapObjects(listAt(workers, 'machineDeployments'), (md) =>
          convertMachineDeploymentTopologyFromHub(md, namespace),
        ),
        machinePools: mapObjects(listAt(workers, 'machinePools'), convertMachinePoolTopologyFromHub),
      }),
  });
}

/** The v1beta2 spec of a v1beta1 Cluster spec; `restored` is the hub from the conversion-data annotation, if any. */
export function convertClusterSpecToHub(spec: Unstructured, restored: Unstructured | undefined): Unstructured {
  const infrastructureRef = objectAt(spec, 'infrastructureRef');
  const controlPlaneRef = objectAt(spec, 'controlPlaneRef');
  const topology = objectAt(spec, 'topology');
  return compact({
    ...omitKeys(spec, ['paused', 'infrastructureRef', 'controlPlaneRef', 'topology']),
    paused: convertBoolToPointerBool(spec['paused'], restored, objectAt(restored, 'spec')?.['paused']),
    infrastructureRef: infrastructureRef && convertToContractVersionedObjectReference(infrastructureRef),
    controlPlaneRef: controlPlaneRef && convertToContractVersionedObjectReference(controlPlaneRef),
    topology: topology && convertTopologyToHub(topology),
  });
}

/** The v1beta1 spec of a v1beta2 Cluster spec in `namespace`; references get their apiVersion from the getter. */
export function convertClusterSpecFromHub(
  spec: Unstructured,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  const infrastructureRef = objectAt(spec, 'infrastructureRef');
  const controlPlaneRef = objectAt(spec, 'controlPlaneRef');
  const topology = objectAt(spec, 'topology');
  const clusterNetwork = objectAt(spec, 'clusterNetwork');
  return compact({
    ...omitKeys(spec, ['paused', 'infrastructureRef', 'controlPlaneRef', 'topology', 'clusterNetwork']),
    paused: spec['paused'] === true ? true : undefined,
    clusterNetwork:
      clusterNetwork &&
      compactOrUndefined({
        ...clusterNetwork,
        apiServerPort: clusterNetwork['apiServerPort'] === 0 ? undefined : clusterNetwork['apiServerPort'],
      }),
    infrastructureRef: isReferenceDefined(infrastructureRef)
      ? convertToObjectReference(infrastructureRef, namespace, apiVersionFor)
      : undefined,
    controlPlaneRef: isReferenceDefined(controlPlaneRef)
      ? convertToObjectReference(controlPlaneRef, namespace, apiVersionFor)
      : undefined,
    topology: isZero(topology) ? undefined : convertTopologyFromHub(topology ?? {}, namespace),
  });
}

const clusterStatusOptions = {
  deprecatedFields: ['failureReason', 'failureMessage'],
  v1beta2Fields: ['controlPlane', 'workers'],
} as const;

/** The v1beta2 status of a v1beta1 Cluster status. */
export function convertClusterStatusToHub(status: Unstructured | undefined, restored: Unstructured | undefined) {
  const hub = convertStatusToHub(status, clusterStatusOptions);
  if (hub === undefined || status === undefined) return undefined;
  const restoredInitialization = objectAt(objectAt(restored, 'status'), 'initialization');
  const failureDomains = objectAt(status, 'failureDomains');
  return compact({
    ...omitKeys(hub, ['controlPlaneReady', 'infrastructureReady', 'failureDomains']),
    initialization: compact({
      controlPlaneInitialized: convertBoolToPointerBool(
        status['controlPlaneReady'],
        restored,
        restoredInitialization?.['controlPlaneInitialized'],
      ),
      infrastructureProvisioned: convertBoolToPointerBool(
        status['infrastructureReady'],
        restored,
        restoredInitialization?.['infrastructureProvisioned'],
      ),
    }),
    failureDomains:
      failureDomains &&
      Object.keys(failureDomains)
        .sort()
        .map((name) => {
          const domain = objectAt(failureDomains, name);
          return compact({ name, controlPlane: domain?.['controlPlane'] === true, attributes: domain?.['attributes'] });
        }),
  });
}

/** The v1beta1 status of a v1beta2 Cluster status. */
export function convertClusterStatusFromHub(status: Unstructured | undefined) {
  const spoke = convertStatusFromHub(status, clusterStatusOptions);
  if (spoke === undefined || status === undefined) return undefined;
  const initialization = objectAt(status, 'initialization');
  const failureDomains = listAt(status, 'failureDomains');
  return compact({
    ...omitKeys(spoke, ['initialization', 'failureDomains']),
    failureDomains:
      failureDomains &&
      Object.fromEntries(
        failureDomains.filter(isUnstructured).map((domain) => [
          domain['name'],
          compact({
            controlPlane: domain['controlPlane'] === true ? true : undefined,
            attributes: domain['attributes'],
          }),
        ]),
      ),
    // NOTE: v1beta1 serialises both even when false (no omitempty).
    infrastructureReady: initialization?.['infrastructureProvisioned'] === true,
    controlPlaneReady: initialization?.['controlPlaneInitialized'] === true,
  });
}
