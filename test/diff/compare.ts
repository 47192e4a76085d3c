// Compares the normalised snapshots of the two sides, field by field, and classifies each difference against the list
// of known (deliberate or diagnosed-but-unfixed) differences.
import type { NormalizedSnapshot } from './normalize.ts';

export type Difference = {
  /** The role of the object (`ControlPlane`, `MachineDeployment/md-0`, `Cluster`, ...). */
  readonly object: string;
  /** JSON path inside the normalised object, e.g. `spec.template.metadata.labels["a"]`. */
  readonly path: string;
  readonly upstream: unknown;
  readonly capiServerless: unknown;
};

export type KnownDifference = {
  readonly object: RegExp;
  readonly path: RegExp;
  /** Only in the scenarios whose name matches (a difference that follows from what those scenarios do). */
  readonly scenario?: RegExp;
  /** Only when upstream's value, as JSON, matches. */
  readonly upstream?: RegExp;
  readonly reason: string;
};

const absent = '<absent>';

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function diffValues(object: string, path: string, a: unknown, b: unknown, out: Difference[]): void {
  if (a === b) return;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects =
    a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (bothArrays) {
    const len = Math.max(a.length, b.length);
    for (let i = 0; i < len; i++)
      diffValues(object, pathOf(path, i), i < a.length ? a[i] : absent, i < b.length ? b[i] : absent, out);
    return;
  }
  if (bothObjects) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort())
      diffValues(object, pathOf(path, key), key in ra ? ra[key] : absent, key in rb ? rb[key] : absent, out);
    return;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  out.push({ object, path, upstream: a === undefined ? absent : a, capiServerless: b === undefined ? absent : b });
}

/**
 * Every field where the two sides disagree, object by object (an object present on one side only is one difference
 * at its root).
 *
 * @example
 * compareSnapshots(upstreamSnapshot, capiServerlessSnapshot) // [{ object: 'ControlPlane', path: 'spec.version', ... }]
 */
export function compareSnapshots(upstream: NormalizedSnapshot, capiServerless: NormalizedSnapshot): Difference[] {
  const out: Difference[] = [];
  for (const object of [...new Set([...Object.keys(upstream), ...Object.keys(capiServerless)])].sort()) {
    const a = object in upstream ? upstream[object] : absent;
    const b = object in capiServerless ? capiServerless[object] : absent;
    if (a === absent || b === absent) {
      if (a !== b)
        out.push({
          object,
          path: '',
          upstream: a === absent ? absent : 'present',
          capiServerless: b === absent ? absent : 'present',
        });
      continue;
    }
    diffValues(object, '', a, b, out);
  }
  return out;
}

/** The known difference a difference of scenario `scenario` matches, if any. */
export function findKnownDifference(
  d: Difference,
  known: readonly KnownDifference[],
  scenario: string,
): KnownDifference | undefined {
  return known.find(
    (k) =>
      k.object.test(d.object) &&
      k.path.test(d.path) &&
      (k.scenario === undefined || k.scenario.test(scenario)) &&
      (k.upstream === undefined || k.upstream.test(JSON.stringify(d.upstream))),
  );
}
