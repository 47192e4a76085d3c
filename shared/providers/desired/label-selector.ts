// Kubernetes label selector strings (`app=x,tier!=db,env in (a,b),!legacy`), as `labels.Parse` reads them.

export type LabelRequirement = {
  readonly key: string;
  readonly operator: 'exists' | 'notExists' | 'equals' | 'notEquals' | 'in' | 'notIn' | 'gt' | 'lt';
  readonly values: readonly string[];
};

const keyPattern =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of text) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function checkKey(key: string): string {
  if (!keyPattern.test(key)) throw new Error(`invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (value.length > 63 || !valuePattern.test(value)) throw new Error(`invalid label value "${value}"`);
  return value;
}

/**
 * Parses a label selector string; throws an Error describing the first invalid requirement. An empty string selects
 * everything.
 *
 * @example
 * parseLabelSelector('app=capi,env in (dev, prod)');
 */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  if (selector.trim() === '') return [];
  return splitTopLevel(selector).map((raw): LabelRequirement => {
    const part = raw.trim();
    let m = /^!\s*(\S+)$/.exec(part);
    if (m) return { key: checkKey(m[1] ?? ''), operator: 'notExists', values: [] };
    m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (m) {
      const values = (m[3] ?? '').split(',').map((v) => checkValue(v.trim()));
      return { key: checkKey(m[1] ?? ''), operator: m[2] === 'in' ? 'in' : 'notIn', values };
    }
    m = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(\S*)$/.exec(part);
    if (m) {
      const op = m[2] ?? '';
      const value = m[3] ?? '';
      if (op === '<' || op === '>') {
        if (!/^-?\d+$/.test(value))
          throw new Error(`for 'Gt', 'Lt' operators, the value must be an integer: "${part}"`);
        return { key: checkKey(m[1] ?? ''), operator: op === '<' ? 'lt' : 'gt', values: [value] };
      }
      return { key: checkKey(m[1] ?? ''), operator: op === '!=' ? 'notEquals' : 'equals', values: [checkValue(value)] };
    }
    if (/^\S+$/.test(part)) return { key: checkKey(part), operator: 'exists', values: [] };
    throw new Error(`unable to parse requirement "${part}"`);
  });
}

/** True when `labels` satisfy every requirement. */
export function computeLabelSelectorMatch(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const value = has ? labels[r.key] : undefined;
    switch (r.operator) {
      case 'exists':
        return has;
      case 'notExists':
        return !has;
      case 'equals':
      case 'in':
        return has && r.values.includes(value ?? '');
      case 'notEquals':
      case 'notIn':
        return !has || !r.values.includes(value ?? '');
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(value ?? '')) return false;
        const n = Number(value);
        const bound = Number(r.values[0]);
        return r.operator === 'gt' ? n > bound : n < bound;
      }
    }
  });
}
