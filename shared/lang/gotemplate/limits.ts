// Bounds on executing a template, which Go's text/template does not have: a ClusterClass patch template runs in the
// webhook and in every topology pass, so one that builds a huge list or string, or loops for long, is stopped with
// an error naming the action instead of pinning the pass. The limits are far above what a real patch needs.
import { FuncError } from './go-func.ts';
import { GoMap, GoSlice } from './values.ts';
import type { GoValue } from './values.ts';

export const TEMPLATE_LIMITS = {
  /** Actions, function calls and range iterations one execution may run (a deterministic stand-in for time). */
  maxSteps: 250_000,
  /** Characters of output, and of any one value a function returns (Kubernetes' request size limit, 3 MiB). */
  maxLength: 3 * 1024 * 1024,
  /** Elements of a list built by `until`, `untilStep` or `seq`, and iterations of a `range` over an integer. */
  maxListLength: 100_000,
} as const;

/** Refuses, before it is built, a list of `count` elements over the limit (a FuncError: `error calling <fn>: …`). */
export function checkListLength(count: number): void {
  if (count > TEMPLATE_LIMITS.maxListLength)
    throw new FuncError(`a list of ${count} elements exceeds the template limit of ${TEMPLATE_LIMITS.maxListLength}`);
}

/** Refuses, before it is built, a string of `length` characters over the limit. */
export function checkStringLength(length: number): void {
  if (length > TEMPLATE_LIMITS.maxLength)
    throw new FuncError(`a string of ${length} characters exceeds the template limit of ${TEMPLATE_LIMITS.maxLength}`);
}

/** Sizes of lists, which no function changes once built (maps can change: `set`, `unset`, `merge`). */
const listSizes = new WeakMap<GoSlice, number>();

/**
 * A value's size when written out: characters of strings and one per element, summed through lists and maps (a list
 * that holds another twice counts it twice, as printing it would). Counting stops just past the limit, so it costs at
 * most that many visits; lists' sizes are memoized.
 *
 * @example
 * valueSize(new GoSlice('string', ['ab', 'c'])); // 6
 */
export function valueSize(value: GoValue): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof GoSlice) {
    const known = listSizes.get(value);
    if (known !== undefined) return known;
    let size = 1;
    for (const item of value.items) {
      size += 1 + valueSize(item);
      if (size > TEMPLATE_LIMITS.maxLength) break;
    }
    listSizes.set(value, size);
    return size;
  }
  if (value instanceof GoMap) {
    let size = 1;
    for (const [key, item] of value.entries) {
      size += 1 + key.length + valueSize(item);
      if (size > TEMPLATE_LIMITS.maxLength) break;
    }
    return size;
  }
  return 1;
}
