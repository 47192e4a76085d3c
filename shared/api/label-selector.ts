// Kubernetes `metav1.LabelSelector`: the schema, matching labels against it, and rendering it as the
// `labelSelector` query parameter the API server accepts. Semantics follow apimachinery's LabelSelectorAsSelector.
import * as z from 'zod';
import { ValidationError } from '#shared/errors/index.ts';
import { atomicObject } from '#shared/api/meta.ts';
import { StringMap } from '#shared/api/object-meta.ts';

export const LabelSelectorOperator = {
  In: 'In',
  NotIn: 'NotIn',
  Exists: 'Exists',
  DoesNotExist: 'DoesNotExist',
} as const;
export type LabelSelectorOperator = (typeof LabelSelectorOperator)[keyof typeof LabelSelectorOperator];

export const LabelSelectorRequirement = z.object({
  key: z.string(),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: z.array(z.string()).optional(),
});
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirement>;

/** `metav1.LabelSelector` (atomic for server-side apply, as controller-gen marks it). */
export const LabelSelector = atomicObject(
  z.object({
    matchLabels: StringMap.optional(),
    matchExpressions: z.array(LabelSelectorRequirement).optional(),
  }),
);
export type LabelSelector = z.infer<typeof LabelSelector>;

/** What an empty selector (no matchLabels, no matchExpressions) selects. */
export type EmptySelectorMeaning = 'everything' | 'nothing';

export type LabelMap = Readonly<Record<string, string>>;

const labelName = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) {
    return `invalid label key "${key}": prefix must be a DNS subdomain`;
  }
  if (name.length === 0 || name.length > 63 || !labelName.test(name)) {
    return `invalid label key "${key}": name must be 63 characters or less, alphanumeric, '-', '_' or '.', starting and ending with an alphanumeric character`;
  }
  return undefined;
}

function labelValueProblem(key: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !labelName.test(value)) {
    return `invalid label value "${value}" for key "${key}": must be 63 characters or less, alphanumeric, '-', '_' or '.', starting and ending with an alphanumeric character`;
  }
  return undefined;
}

/**
 * Problems that make apimachinery's `LabelSelectorAsSelector` reject the selector (invalid keys or values, `In`/`NotIn`
 * without values, `Exists`/`DoesNotExist` with values). Empty when the selector is valid.
 *
 * @example
 * validateLabelSelector({ matchExpressions: [{ key: 'env', operator: 'In' }] });
 * // ["matchExpressions[0]: for 'In', 'NotIn' operators, values set can't be empty"]
 */
export function validateLabelSelector(selector: LabelSelector): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const problem = labelKeyProblem(key) ?? labelValueProblem(key, value);
    if (problem) problems.push(`matchLabels: ${problem}`);
  }
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const values = expr.values ?? [];
    const where = `matchExpressions[${i}]`;
    const keyProblem = labelKeyProblem(expr.key);
    if (keyProblem) problems.push(`${where}: ${keyProblem}`);
    if ((expr.operator === 'In' || expr.operator === 'NotIn') && values.length === 0) {
      problems.push(`${where}: for 'In', 'NotIn' operators, values set can't be empty`);
    }
    if ((expr.operator === 'Exists' || expr.operator === 'DoesNotExist') && values.length !== 0) {
      problems.push(`${where}: values set must be empty for exists and does not exist`);
    }
    for (const value of values) {
      const valueProblem = labelValueProblem(expr.key, value);
      if (valueProblem) problems.push(`${where}: ${valueProblem}`);
    }
  });
  return problems;
}

/** True when the selector has neither matchLabels nor matchExpressions. */
export function isEmptyLabelSelector(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

function assertValid(selector: LabelSelector): void {
  const problems = validateLabelSelector(selector);
  if (problems.length > 0) {
    throw new ValidationError(`invalid label selector: ${problems.join('; ')}`, { reason: 'Invalid' });
  }
}

/**
 * Whether `labels` satisfy `selector` (matchLabels and matchExpressions are ANDed). Kubernetes reads an empty selector
 * as "everything"; ClusterResourceSet reads it as "nothing" — choose with `options.empty` (default `'everything'`).
 * Throws a ValidationError for a selector apimachinery would reject.
 *
 * @example
 * matchesLabelSelector({ matchLabels: { cni: 'calico' } }, { cni: 'calico', env: 'dev' }); // true
 * matchesLabelSelector({}, { cni: 'calico' }, { empty: 'nothing' }); // false
 */
export function matchesLabelSelector(
  selector: LabelSelector | undefined,
  labels: LabelMap | undefined,
  options: { readonly empty?: EmptySelectorMeaning } = {},
): boolean {
  if (isEmptyLabelSelector(selector)) return (options.empty ?? 'everything') === 'everything';
  const sel = selector ?? {};
  assertValid(sel);
  const has = (key: string) => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    if (!has(key) || labels?.[key] !== value) return false;
  }
  for (const expr of sel.matchExpressions ?? []) {
    const present = has(expr.key);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
        if (!present || !values.includes(labels?.[expr.key] ?? '')) return false;
        break;
      case 'NotIn':
        if (present && values.includes(labels?.[expr.key] ?? '')) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Renders the selector as the API server's `labelSelector` query string, the way apimachinery's `Selector.String()`
 * does: requirements sorted by key, values sorted, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`. An empty selector
 * renders as `''`, which the API server reads as "everything" — callers wanting "nothing" must check
 * {@link isEmptyLabelSelector} first. Throws a ValidationError for an invalid selector.
 *
 * @example
 * formatLabelSelector({ matchLabels: { cni: 'calico' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] });
 * // 'cni=calico,env in (dev,prod)'
 */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  if (isEmptyLabelSelector(selector)) return '';
  const sel = selector ?? {};
  assertValid(sel);
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) parts.push({ key, text: `${key}=${value}` });
  for (const expr of sel.matchExpressions ?? []) {
    const values = [...(expr.values ?? [])].sort(compareStrings).join(',');
    const text =
      expr.operator === 'In'
        ? `${expr.key} in (${values})`
        : expr.operator === 'NotIn'
          ? `${expr.key} notin (${values})`
          : expr.operator === 'Exists'
            ? expr.key
            : `!${expr.key}`;
    parts.push({ key: expr.key, text });
  }
  // NOTE: a stable sort by key, like apimachinery's `sort.Sort(ByKey(...))` (matchLabels come first for equal keys).
  return parts
    .map((part, index) => ({ ...part, index }))
    .sort((a, b) => compareStrings(a.key, b.key) || a.index - b.index)
    .map((part) => part.text)
    .join(',');
}
