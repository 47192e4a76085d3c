// MachineHealthCheck between v1beta1 and v1beta2 with upstream's mapping: flat health-check fields → `checks` and
// `remediation`, `*int32` status counters restored from the conversion-data annotation, conditions moved.
import { convertInt32ToPointerInt32 } from '#shared/api/conversion/conversion-data.ts';
import {
  convertHealthCheckFromHub,
  convertHealthCheckToHub,
  V1Beta1HealthCheckFields,
} from '#shared/api/conversion/health-check.ts';
import { convertStatusFromHub, convertStatusToHub } from '#shared/api/conversion/status-conditions.ts';
import { compact, objectAt, omitKeys, type Unstructured } from '#shared/api/conversion/unstructured.ts';

const counters = ['expectedMachines', 'currentHealthy', 'remediationsAllowed'] as const;

/** The v1beta2 spec of a v1beta1 MachineHealthCheck spec. */
export function convertMachineHealthCheckSpecToHub(spec: Unstructured): Unstructured {
  return compact({ ...omitKeys(spec, V1Beta1HealthCheckFields), ...convertHealthCheckToHub(spec) });
}

/** The v1beta1 spec of a v1beta2 MachineHealthCheck spec; the remediation template lands in `namespace`. */
export function convertMachineHealthCheckSpecFromHub(spec: Unstructured, namespace: string | undefined): Unstructured {
  return compact({
    ...omitKeys(spec, ['checks', 'remediation']),
    ...convertHealthCheckFromHub(objectAt(spec, 'checks'), objectAt(spec, 'remediation'), namespace),
  });
}

/** The v1beta2 status of a v1beta1 MachineHealthCheck status. */
export function convertMachineHealthCheckStatusToHub(
  status: Unstructured | undefined,
  restored: Unstructured | undefined,
) {
  const hub = convertStatusToHub(status);
  if (hub === undefined || status === undefined) return undefined;
  const restoredStatus = objectAt(restored, 'status');
  const out: Unstructured = { ...hub };
  for (const counter of counters) {
    const value = convertInt32ToPointerInt32(status[counter], restored, restoredStatus?.[counter]);
    if (value === undefined) delete out[counter];
    else out[counter] = value;
  }
  return out;
}

/** The v1beta1 status of a v1beta2 MachineHealthCheck status. */
export function convertMachineHealthCheckStatusFromHub(status: Unstructured | undefined) {
  const spoke = convertStatusFromHub(status);
  if (spoke === undefined) return undefined;
  const out: Unstructured = { ...spoke };
  // NOTE: v1beta1 serialises the counters even when zero (no omitempty).
  for (const counter of counters) out[counter] = typeof out[counter] === 'number' ? out[counter] : 0;
  return out;
}
