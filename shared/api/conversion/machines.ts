// Machine, MachineDeployment and MachinePool between v1beta1 and v1beta2, for reads and writes at the edge:
// contract-versioned bootstrap/infrastructure references, deletion timeouts, MachineDeployment rollout settings,
// `status.initialization`, replica counters and conditions moved as upstream moves them.
import { convertBoolToPointerBool } from '#shared/api/conversion/conversion-data.ts';
import {
  convertDeletionTimeoutsFromHub,
  convertDeletionTimeoutsToHub,
  V1Beta1DeletionFields,
} from '#shared/api/conversion/deletion.ts';
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
  objectAt,
  omitKeys,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

/** The v1beta2 MachineSpec of a v1beta1 MachineSpec. */
export function convertMachineSpecToHub(spec: Unstructured): Unstructured {
  const bootstrap = objectAt(spec, 'bootstrap');
  const configRef = objectAt(bootstrap, 'configRef');
  const infrastructureRef = objectAt(spec, 'infrastructureRef');
  return compact({
    ...omitKeys(spec, ['bootstrap', 'infrastructureRef', ...V1Beta1DeletionFields]),
    bootstrap: compactOrUndefined({
      ...bootstrap,
      configRef: configRef && convertToContractVersionedObjectReference(configRef),
    }),
    infrastructureRef: infrastructureRef && convertToContractVersionedObjectReference(infrastructureRef),
    deletion: convertDeletionTimeoutsToHub(spec),
  });
}

/** The v1beta1 MachineSpec of a v1beta2 MachineSpec in `namespace`. */
export function convertMachineSpecFromHub(
  spec: Unstructured,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  const bootstrap = objectAt(spec, 'bootstrap');
  const configRef = objectAt(bootstrap, 'configRef');
  const infrastructureRef = objectAt(spec, 'infrastructureRef');
  return compact({
    ...omitKeys(spec, ['bootstrap', 'infrastructureRef', 'deletion', 'minReadySeconds']),
    bootstrap: compact({
      ...bootstrap,
      configRef: isReferenceDefined(configRef)
        ? convertToObjectReference(configRef, namespace, apiVersionFor)
        : undefined,
    }),
    infrastructureRef: isReferenceDefined(infrastructureRef)
      ? convertToObjectReference(infrastructureRef, namespace, apiVersionFor)
      : {},
    ...convertDeletionTimeoutsFromHub(spec),
  });
}

function convertTemplateToHub(template: Unstructured | undefined, minReadySeconds: unknown): Unstructured | undefined {
  if (template === undefined) return undefined;
  return compact({
    ...template,
    spec: compact({ ...convertMachineSpecToHub(objectAt(template, 'spec') ?? {}), minReadySeconds }),
  });
}

function convertTemplateFromHub(
  template: Unstructured | undefined,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured | undefined {
  if (template === undefined) return undefined;
  return { ...template, spec: convertMachineSpecFromHub(objectAt(template, 'spec') ?? {}, namespace, apiVersionFor) };
}

/** The v1beta2 spec of a v1beta1 MachineDeployment spec. */
export function convertMachineDeploymentSpecToHub(
  spec: Unstructured,
  restored: Unstructured | undefined,
): Unstructured {
  const { rolloutStrategy, deletionOrder, maxInFlight } = convertStrategyToHub(objectAt(spec, 'strategy'));
  const namingTemplate = objectAt(spec, 'machineNamingStrategy')?.['template'];
  return compact({
    ...omitKeys(spec, [
      'strategy',
      'rolloutAfter',
      'machineNamingStrategy',
      'minReadySeconds',
      'revisionHistoryLimit',
      'progressDeadlineSeconds',
      'paused',
      'template',
    ]),
    template: convertTemplateToHub(objectAt(spec, 'template'), spec['minReadySeconds']),
    paused: convertBoolToPointerBool(spec['paused'], restored, objectAt(restored, 'spec')?.['paused']),
    rollout: compact({ after: spec['rolloutAfter'], strategy: rolloutStrategy }),
    deletion: compact({ order: deletionOrder }),
    remediation: compact({ maxInFlight }),
    machineNaming: compact({ template: namingTemplate }),
  });
}

/** The v1beta1 spec of a v1beta2 MachineDeployment spec in `namespace`. */
export function convertMachineDeploymentSpecFromHub(
  spec: Unstructured,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  const rollout = objectAt(spec, 'rollout');
  const template = objectAt(spec, 'template');
  const namingTemplate = objectAt(spec, 'machineNaming')?.['template'];
  return compact({
    ...omitKeys(spec, ['rollout', 'deletion', 'remediation', 'machineNaming', 'paused', 'template']),
    template: convertTemplateFromHub(template, namespace, apiVersionFor),
    minReadySeconds: objectAt(template, 'spec')?.['minReadySeconds'],
    paused: spec['paused'] === true ? true : undefined,
    strategy: convertStrategyFromHub(
      objectAt(rollout, 'strategy'),
      objectAt(spec, 'deletion')?.['order'],
      objectAt(spec, 'remediation')?.['maxInFlight'],
    ),
    rolloutAfter: rollout?.['after'],
    machineNamingStrategy:
      namingTemplate === undefined || namingTemplate === '' ? undefined : { template: namingTemplate },
  });
}

const machineDeploymentStatusOptions = {
  deprecatedFields: ['availableReplicas', 'unavailableReplicas', 'updatedReplicas', 'readyReplicas'],
  v1beta2Fields: ['readyReplicas', 'availableReplicas', 'upToDateReplicas'],
} as const;

export function convertMachineDeploymentStatusToHub(status: Unstructured | undefined) {
  return convertStatusToHub(status, machineDeploymentStatusOptions);
}

export function convertMachineDeploymentStatusFromHub(status: Unstructured | undefined) {
  return convertStatusFromHub(status, machineDeploymentStatusOptions);
}

/** The v1beta2 spec of a v1beta1 MachinePool spec (`minReadySeconds` moves into the machine template). */
export function convertMachinePoolSpecToHub(spec: Unstructured): Unstructured {
  return compact({
    ...omitKeys(spec, ['minReadySeconds', 'template']),
    template: convertTemplateToHub(objectAt(spec, 'template'), spec['minReadySeconds']),
  });
}

export function convertMachinePoolSpecFromHub(
  spec: Unstructured,
  namespace: string | undefined,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  const template = objectAt(spec, 'template');
  return compact({
    ...omitKeys(spec, ['template']),
    template: convertTemplateFromHub(template, namespace, apiVersionFor),
    minReadySeconds: objectAt(template, 'spec')?.['minReadySeconds'],
  });
}

const machinePoolStatusOptions = {
  deprecatedFields: ['failureReason', 'failureMessage', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'],
  v1beta2Fields: ['readyReplicas', 'availableReplicas', 'upToDateReplicas'],
} as const;

const machineStatusOptions = { deprecatedFields: ['failureReason', 'failureMessage'] } as const;

/** Machine and MachinePool `status.initialization` from v1beta1 `bootstrapReady`/`infrastructureReady`. */
function initializationToHub(status: Unstructured, restored: Unstructured | undefined): Unstructured {
  const restoredInitialization = objectAt(objectAt(restored, 'status'), 'initialization');
  return compact({
    bootstrapDataSecretCreated: convertBoolToPointerBool(
      status['bootstrapReady'],
      restored,
      restoredInitialization?.['bootstrapDataSecretCreated'],
    ),
    infrastructureProvisioned: convertBoolToPointerBool(
      status['infrastructureReady'],
      restored,
      restoredInitialization?.['infrastructureProvisioned'],
    ),
  });
}

function initializationFromHub(status: Unstructured): Unstructured {
  const initialization = objectAt(status, 'initialization');
  return {
    bootstrapReady: initialization?.['bootstrapDataSecretCreated'] === true,
    infrastructureReady: initialization?.['infrastructureProvisioned'] === true,
  };
}

export function convertMachinePoolStatusToHub(status: Unstructured | undefined, restored: Unstructured | undefined) {
  const hub = convertStatusToHub(status, machinePoolStatusOptions);
  if (hub === undefined || status === undefined) return undefined;
  return compact({
    ...omitKeys(hub, ['bootstrapReady', 'infrastructureReady']),
    initialization: initializationToHub(status, restored),
  });
}

export function convertMachinePoolStatusFromHub(status: Unstructured | undefined) {
  const spoke = convertStatusFromHub(status, machinePoolStatusOptions);
  if (spoke === undefined || status === undefined) return undefined;
  return compact({ ...omitKeys(spoke, ['initialization']), ...initializationFromHub(status) });
}

/** The v1beta2 status of a v1beta1 Machine status (`nodeRef` keeps only its name). */
export function convertMachineStatusToHub(status: Unstructured | undefined, restored: Unstructured | undefined) {
  const hub = convertStatusToHub(status, machineStatusOptions);
  if (hub === undefined || status === undefined) return undefined;
  const nodeRef = objectAt(status, 'nodeRef');
  const restoredStatus = objectAt(restored, 'status');
  return compact({
    ...omitKeys(hub, ['bootstrapReady', 'infrastructureReady', 'nodeRef']),
    nodeRef: compactOrUndefined({ name: nodeRef?.['name'] }),
    initialization: initializationToHub(status, restored),
    ...(restored === undefined
      ? {}
      : { phase: restoredStatus?.['phase'], failureDomain: restoredStatus?.['failureDomain'] }),
  });
}

export function convertMachineStatusFromHub(status: Unstructured | undefined) {
  const spoke = convertStatusFromHub(status, machineStatusOptions);
  if (spoke === undefined || status === undefined) return undefined;
  const nodeRef = objectAt(status, 'nodeRef');
  return compact({
    ...omitKeys(spoke, ['initialization', 'nodeRef', 'failureDomain']),
    phase: spoke['phase'] === 'Updating' ? 'Running' : spoke['phase'],
    nodeRef: nodeRef && compact({ apiVersion: 'v1', kind: 'Node', name: nodeRef['name'] }),
    ...initializationFromHub(status),
  });
}
