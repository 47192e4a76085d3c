// ExtensionConfig rules of the admission webhook, as upstream v1.14's (`core/webhooks/admission/extensionconfig.go`,
// with the RuntimeSDK gate on: capi-serverless always runs the Runtime SDK): a DNS-1123 label name, exactly one of
// `clientConfig.url` (an https URL) and `clientConfig.service` (DNS names, an absolute path, a port), and a
// `namespaceSelector` that converts to a selector; defaulting of the selector to `{}` and the service port to 443.
import * as z from 'zod';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import {
  isDNS1035Label,
  isDNS1123Label,
  isLabelKey,
  isLabelValue,
} from '#shared/lang/openapi/apimachinery-validation.ts';
import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '#shared/lang/openapi/field-error.ts';
import { goJson } from '#shared/lang/openapi/json-value.ts';
import { UrlError, parseRequestURI } from '#shared/lang/go/url.ts';
import { quote } from '#shared/lang/go/strconv.ts';

/**
 * An ExtensionConfig as admission sees it: only the types the CRD enforces, so that what upstream's webhook refuses
 * with a message (an unknown selector operator, a port out of range) is refused here with the same message.
 */
export const AdmittedExtensionConfig = z.object({
  metadata: KubeObjectMeta,
  spec: z.object({
    clientConfig: z
      .object({
        url: z.string().optional(),
        service: z
          .object({
            namespace: z.string().optional(),
            name: z.string().optional(),
            path: z.string().optional(),
            port: z.number().int().optional(),
          })
          .optional(),
        caBundle: z.string().optional(),
      })
      .optional(),
    namespaceSelector: z
      .object({
        matchLabels: z.record(z.string(), z.string()).nullish(),
        matchExpressions: z
          .array(z.object({ key: z.string(), operator: z.string(), values: z.array(z.string()).nullish() }))
          .nullish(),
      })
      .nullish(),
    settings: z.record(z.string(), z.string()).nullish(),
  }),
});
export type AdmittedExtensionConfig = z.infer<typeof AdmittedExtensionConfig>;

type Service = NonNullable<NonNullable<AdmittedExtensionConfig['spec']['clientConfig']>['service']>;
type Selector = NonNullable<AdmittedExtensionConfig['spec']['namespaceSelector']>;

/** upstream `ServiceReference.IsDefined`: any field set. */
function isServiceDefined(service: Service | undefined): service is Service {
  return !!service && (!!service.namespace || !!service.name || !!service.path || service.port !== undefined);
}

/** A `metav1.LabelSelector` as Go marshals it: struct order, map keys sorted, empty fields omitted. */
function renderSelector(selector: Selector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Record<string, unknown> = {};
  if (labels.length > 0) out['matchLabels'] = Object.fromEntries(labels);
  if ((selector.matchExpressions ?? []).length > 0)
    out['matchExpressions'] = (selector.matchExpressions ?? []).map((e) => ({
      key: e.key,
      operator: e.operator,
      ...((e.values ?? []).length > 0 ? { values: e.values } : {}),
    }));
  return goJson(out);
}

/** apimachinery's aggregate of error messages: one as is, several as `[a, b]`. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/** labels.NewRequirement's errors (key, values count for the operator, each value), `undefined` when it is valid. */
function requirementError(key: string, operator: string, values: readonly string[] | undefined): string | undefined {
  const messages: string[] = [];
  const keyErrors = isLabelKey(key);
  if (keyErrors.length > 0) messages.push(`key: Invalid value: ${quote(key)}: ${keyErrors.join('; ')}`);
  const count = values?.length ?? 0;
  const rendered = values === undefined ? 'null' : goJson(values);
  if ((operator === 'in' || operator === 'notin') && count === 0)
    messages.push(`values: Invalid value: ${rendered}: for 'in', 'notin' operators, values set can't be empty`);
  if (operator === '=' && count !== 1)
    messages.push(`values: Invalid value: ${rendered}: exact-match compatibility requires one single value`);
  if ((operator === 'exists' || operator === '!') && count !== 0)
    messages.push(`values: Invalid value: ${rendered}: values set must be empty for exists and does not exist`);
  (values ?? []).forEach((value, i) => {
    const valueErrors = isLabelValue(value);
    if (valueErrors.length > 0)
      messages.push(`values[${i}][${key}]: Invalid value: ${quote(value)}: ${valueErrors.join('; ')}`);
  });
  return messages.length > 0 ? aggregate(messages) : undefined;
}

const selectionOperators: Readonly<Record<string, string>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Why apimachinery's `metav1.LabelSelectorAsSelector` refuses a selector (its first failing requirement: match
 * labels in key order, then expressions), `undefined` when it converts. NOTE: Go ranges over matchLabels in random
 * order, so with several bad labels upstream may name another one first.
 *
 * @example
 * labelSelectorError({ matchExpressions: [{ key: 'env', operator: 'Is' }] }); // '"Is" is not a valid label selector operator'
 */
export function labelSelectorError(selector: Selector): string | undefined {
  const labels = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of labels) {
    const problem = requirementError(key, '=', [value]);
    if (problem) return problem;
  }
  for (const expression of selector.matchExpressions ?? []) {
    const operator = selectionOperators[expression.operator];
    if (operator === undefined) return `${quote(expression.operator)} is not a valid label selector operator`;
    // NOTE: upstream copies the values with append([]string(nil), …): none is nil, shown as `null`.
    const values = (expression.values ?? []).length > 0 ? [...(expression.values ?? [])] : undefined;
    const problem = requirementError(expression.key, operator, values);
    if (problem) return problem;
  }
  return undefined;
}

/** url.ParseRequestURI's scheme, or its error. */
function parseRequestURIScheme(raw: string): { readonly scheme: string } | { readonly error: string } {
  try {
    return { scheme: parseRequestURI(raw).scheme };
  } catch (error) {
    if (error instanceof UrlError) return { error: error.message };
    throw error;
  }
}

function validateURL(url: string): FieldError[] {
  const field = 'spec.clientConfig.url';
  const parsed = parseRequestURIScheme(url);
  if ('error' in parsed)
    return [fieldInvalid(field, url, `must be a valid URL, e.g. https://example.com: ${parsed.error}`)];
  if (parsed.scheme !== 'https')
    return [fieldInvalid(field, url, "'https' is the only allowed URL scheme, e.g. https://example.com")];
  return [];
}

function validateService(service: Service): FieldError[] {
  const field = 'spec.clientConfig.service';
  const errors: FieldError[] = [];
  const name = service.name ?? '';
  const namespace = service.namespace ?? '';
  if (name === '') errors.push(fieldRequired(`${field}.name`, 'must not be empty'));
  for (const message of isDNS1035Label(name)) errors.push(fieldInvalid(`${field}.name`, name, message));
  if (namespace === '') errors.push(fieldRequired(`${field}.namespace`, 'must not be empty'));
  for (const message of isDNS1123Label(namespace)) errors.push(fieldInvalid(`${field}.namespace`, namespace, message));
  const path = service.path ?? '';
  if (path !== '') {
    const parsed = parseRequestURIScheme(path);
    if ('error' in parsed)
      errors.push(fieldInvalid(`${field}.path`, path, `must be a valid URL path e.g. /path/to/hook: ${parsed.error}`));
    if (!path.startsWith('/'))
      errors.push(fieldInvalid(`${field}.path`, path, 'must start with "/" to be a valid URL path'));
  }
  if (service.port !== undefined && (service.port < 1 || service.port > 65535))
    errors.push(fieldInvalid(`${field}.port`, service.port, 'must be between 1 and 65535, inclusive'));
  return errors;
}

/**
 * Field errors of an ExtensionConfig create or update (upstream's `validate` with the RuntimeSDK gate on), in
 * upstream's order.
 *
 * @example
 * validateExtensionConfig(ec).map(formatFieldError);
 * // ['spec.clientConfig: Required value: either url or service must be defined']
 */
export function validateExtensionConfig(ec: AdmittedExtensionConfig): FieldError[] {
  const errors: FieldError[] = [];
  const name = ec.metadata.name ?? '';
  const nameErrors = isDNS1123Label(name);
  if (nameErrors.length > 0)
    errors.push(
      fieldInvalid(
        'metadata.name',
        name,
        `ExtensionConfig name should be a valid DNS1123 label name: [${nameErrors.join(' ')}]`,
      ),
    );
  const url = ec.spec.clientConfig?.url ?? '';
  const service = ec.spec.clientConfig?.service;
  const hasService = isServiceDefined(service);
  if (url === '' && !hasService)
    errors.push(fieldRequired('spec.clientConfig', 'either url or service must be defined'));
  if (url !== '' && hasService)
    errors.push(fieldForbidden('spec.clientConfig', 'only one of url or service can be defined'));
  if (url !== '') errors.push(...validateURL(url));
  if (hasService) errors.push(...validateService(service));
  const selector = ec.spec.namespaceSelector;
  if (!selector) errors.push(fieldRequired('spec.namespaceSelector', 'must be defined'));
  else {
    const problem = labelSelectorError(selector);
    if (problem !== undefined)
      errors.push(fieldInvalid('spec.namespaceSelector', { rendered: renderSelector(selector) }, problem));
  }
  return errors;
}

/**
 * The fields upstream's defaulting webhook sets, applied to a copy of the raw object: `spec.namespaceSelector` to
 * `{}` when unset, `spec.clientConfig.service.port` to 443 when a service is set without a port.
 *
 * @example
 * computeExtensionConfigDefaults({ spec: { clientConfig: { service: { namespace: 'ns', name: 'ext' } } } });
 * // { spec: { clientConfig: { service: { namespace: 'ns', name: 'ext', port: 443 } }, namespaceSelector: {} } }
 */
export function computeExtensionConfigDefaults(raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const doc = structuredClone(raw) as Record<string, unknown>;
  const spec = (doc['spec'] ??= {}) as Record<string, unknown>;
  if (spec['namespaceSelector'] === undefined || spec['namespaceSelector'] === null) spec['namespaceSelector'] = {};
  const clientConfig = spec['clientConfig'] as Record<string, unknown> | undefined;
  const service = clientConfig?.['service'] as Service | null | undefined;
  if (service && isServiceDefined(service) && (service.port === undefined || service.port === null))
    (service as Record<string, unknown>)['port'] = 443;
  return doc;
}
