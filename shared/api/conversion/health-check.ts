// Health-check fields between v1beta1 (`machineHealthCheck`/MachineHealthCheck spec: unhealthyConditions, maxUnhealthy,
// unhealthyRange, nodeStartupTimeout, remediationTemplate) and v1beta2 (`checks` and `remediation.triggerIf`), as
// upstream's MachineHealthCheck, ControlPlaneClass/Topology and MachineDeploymentClass/Topology conversions map them.
import { convertFromSeconds, convertToSeconds } from '#shared/api/conversion/durations.ts';
import {
  convertFromRemediationTemplateReference,
  convertToRemediationTemplateReference,
  isReferenceDefined,
} from '#shared/api/conversion/references.ts';
import {
  compact,
  listAt,
  mapObjects,
  objectAt,
  stringAt,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

/** The fields of a v1beta1 health check that move in v1beta2. */
export const V1Beta1HealthCheckFields = [
  'unhealthyConditions',
  'unhealthyMachineConditions',
  'nodeStartupTimeout',
  'maxUnhealthy',
  'unhealthyRange',
  'remediationTemplate',
] as const;

function convertConditionsToHub(conditions: unknown[] | undefined): unknown[] | undefined {
  return mapObjects(conditions, (c) =>
    compact({ type: c['type'], status: c['status'], timeoutSeconds: convertToSeconds(c['timeout']) }),
  );
}

function convertConditionsFromHub(conditions: unknown[] | undefined): unknown[] | undefined {
  return mapObjects(conditions, (c) =>
    compact({ type: c['type'], status: c['status'], timeout: convertFromSeconds(c['timeoutSeconds']) ?? '0s' }),
  );
}

/**
 * v1beta2 `{checks, remediation}` of a v1beta1 health check (MachineHealthCheck spec or `machineHealthCheck` of a
 * class or topology).
 *
 * @example
 * convertHealthCheckToHub({ maxUnhealthy: '40%', nodeStartupTimeout: '10m' });
 * // { checks: { nodeStartupTimeoutSeconds: 600 }, remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } } }
 */
export function convertHealthCheckToHub(healthCheck: Unstructured): {
  checks: Unstructured;
  remediation: Unstructured;
} {
  const remediationTemplate = objectAt(healthCheck, 'remediationTemplate');
  return {
    checks: compact({
      nodeStartupTimeoutSeconds: convertToSeconds(healthCheck['nodeStartupTimeout']),
      unhealthyNodeConditions: convertConditionsToHub(listAt(healthCheck, 'unhealthyConditions')),
      unhealthyMachineConditions: convertConditionsToHub(listAt(healthCheck, 'unhealthyMachineConditions')),
    }),
    remediation: compact({
      triggerIf: compact({
        unhealthyLessThanOrEqualTo: healthCheck['maxUnhealthy'],
        unhealthyInRange: healthCheck['unhealthyRange'],
      }),
      templateRef: remediationTemplate && convertToRemediationTemplateReference(remediationTemplate),
    }),
  };
}

/**
 * The v1beta1 health-check fields of v1beta2 `checks` and `remediation`; the remediation template lands in
 * `namespace` (the object's own, as upstream's webhooks set it).
 */
export function convertHealthCheckFromHub(
  checks: Unstructured | undefined,
  remediation: Unstructured | undefined,
  namespace: string | undefined,
): Unstructured {
  const triggerIf = objectAt(remediation, 'triggerIf');
  const templateRef = objectAt(remediation, 'templateRef');
  return compact({
    unhealthyConditions: convertConditionsFromHub(listAt(checks, 'unhealthyNodeConditions')),
    unhealthyMachineConditions: convertConditionsFromHub(listAt(checks, 'unhealthyMachineConditions')),
    nodeStartupTimeout: convertFromSeconds(checks?.['nodeStartupTimeoutSeconds']),
    maxUnhealthy: triggerIf?.['unhealthyLessThanOrEqualTo'],
    unhealthyRange: stringAt(triggerIf, 'unhealthyInRange'),
    remediationTemplate: isReferenceDefined(templateRef)
      ? convertFromRemediationTemplateReference(templateRef, namespace)
      : undefined,
  });
}
