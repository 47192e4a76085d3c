// Helpers that attach Kubernetes structural-schema markers to zod schemas, so CRDs generated from the zod
// schemas merge lists under server-side apply exactly the way upstream Cluster API's CRDs do.
import * as z from 'zod';

/** A list merged by server-side apply as a map keyed by `keys` (`x-kubernetes-list-type: map`). */
export function listMap<T extends z.ZodType>(item: T, keys: readonly [string, ...string[]]) {
  return z.array(item).meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys] });
}

/** A list merged as a set of scalars (`x-kubernetes-list-type: set`). */
export function listSet<T extends z.ZodType>(item: T) {
  return z.array(item).meta({ 'x-kubernetes-list-type': 'set' });
}

/** A list replaced as a whole by server-side apply (`x-kubernetes-list-type: atomic`, the default for lists). */
export function listAtomic<T extends z.ZodType>(item: T) {
  return z.array(item).meta({ 'x-kubernetes-list-type': 'atomic' });
}

/** An object replaced as a whole by server-side apply (`x-kubernetes-map-type: atomic`). */
export function atomicObject<T extends z.ZodType>(schema: T) {
  return schema.meta({ 'x-kubernetes-map-type': 'atomic' });
}

/** Arbitrary JSON kept as is (`x-kubernetes-preserve-unknown-fields: true`). */
export function preserveUnknown() {
  return z.unknown().meta({ 'x-kubernetes-preserve-unknown-fields': true });
}

/** An object with arbitrary fields kept as is (e.g. a template's `spec`). */
export function looseObject() {
  return z.record(z.string(), z.unknown()).meta({ 'x-kubernetes-preserve-unknown-fields': true, type: 'object' });
}

/** Kubernetes IntOrString (`x-kubernetes-int-or-string: true`). */
export function intOrString() {
  return z.union([z.number().int(), z.string()]).meta({ 'x-kubernetes-int-or-string': true });
}

/** A Kubernetes duration string such as `10m0s` or `30s`. */
export function duration() {
  return z
    .string()
    .regex(/^(-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+|0)$/, 'must be a duration such as "30s" or "10m0s"')
    .meta({ format: 'duration' });
}

/** An RFC 3339 timestamp, as Kubernetes writes `metav1.Time`. */
export function timestamp() {
  return z.string().meta({ format: 'date-time' });
}
