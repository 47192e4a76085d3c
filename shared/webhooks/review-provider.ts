// Admission of provider objects (operator.cluster.x-k8s.io): schema rules (fetchConfig exactly one source, patches
// or manifestPatches) through zod, the provider rules, and on create the single-instance rules (one list call).
import { isProviderKind, providerSchemas, type Provider } from '#shared/api/operator.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { computeFieldOutcome } from '#shared/webhooks/admission-status.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { parseAdmittedObject } from '#shared/webhooks/parse-admitted-object.ts';
import { validateProvider, validateProviderIsSingle } from '#shared/webhooks/rules/provider-rules.ts';

/**
 * Validating: CREATE and UPDATE of the seven provider kinds.
 *
 * @example
 * await validateProviderAdmission(request, reader);
 */
export async function validateProviderAdmission(
  request: AdmissionRequest,
  reader: WebhookReader,
): Promise<AdmissionOutcome> {
  const kind = request.kind.kind;
  if (!isProviderKind(kind)) return { allowed: true };
  const object = { group: request.kind.group, kind, name: request.name ?? '' };
  const parsed = parseAdmittedObject(providerSchemas[kind], request.object);
  if (!parsed.ok) return computeFieldOutcome(object, parsed.errors);
  const provider = parsed.value as Provider;
  const named = { ...object, name: provider.metadata.name ?? object.name };
  const errors = validateProvider(provider);
  if (request.operation === 'CREATE')
    errors.push(...validateProviderIsSingle(provider, await reader.listProviders(kind)));
  return computeFieldOutcome(named, errors);
}
