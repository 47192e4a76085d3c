// Parsing at the boundary: every object read from the API server or a user file goes through a zod schema once.
import type { z } from 'zod';
import { ValidationError, describeObject } from '#shared/errors/index.ts';

/** Renders a zod issue path the way Kubernetes names fields: `spec.topology.workers.machineDeployments[0].class`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (out ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** Identity of a raw object, read defensively (it has not been validated yet). */
export function rawIdentity(raw: unknown): {
  kind: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
} {
  const obj = (raw ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { kind: str(obj.kind), namespace: str(obj.metadata?.namespace), name: str(obj.metadata?.name) };
}

/**
 * `raw` with the metadata members that are JSON null removed, as Go's decoding reads null into an empty value: an
 * admission request can carry `metadata.annotations: null` (server-side apply removing the last annotation a manager
 * owned) and upstream's Go webhooks accept it.
 *
 * @example
 * computeWithoutNullMetadata({ metadata: { name: 'c1', annotations: null } }); // { metadata: { name: 'c1' } }
 */
export function computeWithoutNullMetadata(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const metadata = (raw as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return raw;
  const entries = Object.entries(metadata);
  if (!entries.some(([, v]) => v === null)) return raw;
  return { ...raw, metadata: Object.fromEntries(entries.filter(([, v]) => v !== null)) };
}

/**
 * Parses `raw` with `schema`; on failure throws a ValidationError naming the kind, namespace/name and every
 * offending field path.
 *
 * @example
 * const cluster = parseObject(Cluster, 'Cluster', raw); // throws 'invalid Cluster default/c1: spec.topology.version: ...'
 */
export function parseObject<S extends z.ZodType>(schema: S, expectedKind: string, raw: unknown): z.output<S> {
  const result = schema.safeParse(computeWithoutNullMetadata(raw));
  if (result.success) return result.data;
  const id = rawIdentity(raw);
  const kind = id.kind ?? expectedKind;
  const issues = result.error.issues.map((issue) => {
    const path = formatFieldPath(issue.path);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const first = result.error.issues[0];
  throw new ValidationError(`invalid ${describeObject(kind, id.namespace, id.name)}: ${issues.join('; ')}`, {
    kind,
    ...(id.namespace === undefined ? {} : { namespace: id.namespace }),
    ...(id.name === undefined ? {} : { name: id.name }),
    ...(first ? { fieldPath: formatFieldPath(first.path) } : {}),
    reason: 'Invalid',
  });
}

/**
 * Field paths present in `raw` but absent from `parsed` (what a schema stripped), so callers can say what they drop
 * instead of dropping it silently. Lists are compared item by item; values themselves are not compared.
 *
 * @example
 * computeDroppedFields({ spec: { a: 1, b: 2 } }, { spec: { a: 1 } }); // ['spec.b']
 */
export function computeDroppedFields(raw: unknown, parsed: unknown, path: readonly PropertyKey[] = []): string[] {
  if (Array.isArray(raw)) {
    if (!Array.isArray(parsed)) return [];
    return raw.flatMap((item, i) => computeDroppedFields(item, parsed[i], [...path, i]));
  }
  if (typeof raw !== 'object' || raw === null) return [];
  if (typeof parsed !== 'object' || parsed === null) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    if (!(key in parsed)) out.push(formatFieldPath([...path, key]));
    else out.push(...computeDroppedFields(value, (parsed as Record<string, unknown>)[key], [...path, key]));
  }
  return out;
}
