// Compares the normalised snapshots of the two sides, field by field, and classifies each difference against the list
// of known (deliberate or diagnosed-but-unfixed) differences. A known difference is as narrow as its cause: the
// scenarios and steps where the cause acts, the object (role and kind), the exact path, the exact value on each side,
// and the state the cause needs (roles absent on both sides).
import type { NormalizedSnapshot } from './normalize.ts';

export type Difference = {
  /** The role of the object (`ControlPlane`, `MachineDeployment/md-0`, `Cluster`, ...). */
  readonly object: string;
  /** The object's kind (of whichever side has it; of the element for `Leftovers`), when it has one. */
  readonly kind?: string;
  /** JSON path inside the normalised object, e.g. `spec.template.metadata.labels["a"]`. */
  readonly path: string;
  readonly upstream: unknown;
  readonly capiServerless: unknown;
};

/**
 * An expected value: compared exactly (deep equality), except that a RegExp leaf must match the whole string at that
 * place (for generated-name tokens) and a function receives the step (for values that name the scenario).
 */
export type Expected = unknown;

/** What a rule sees of the step a difference is in. */
export type StepContext = {
  readonly scenario: string;
  readonly step: string;
  /** The roles (snapshot keys) each side has in this step, and `Leftovers/<kind>` for each kind it has left over. */
  readonly roles: { readonly upstream: ReadonlySet<string>; readonly capiServerless: ReadonlySet<string> };
};

/** A rule for one field (or object) of one role: most known differences. */
export type KnownFieldDifference = {
  /** Short stable id (`R1`), used in the report and in the rule-usage check of a full run. */
  readonly id: string;
  readonly reason: string;
  /** The scenarios where the cause acts, and in words which class of scenarios that is. */
  readonly scenarios: RegExp;
  readonly scenarioClass: string;
  /** The steps where the cause acts, and in words which class of steps that is. */
  readonly steps: RegExp;
  readonly stepClass: string;
  /** The role (whole-string match) and the kind of the object. */
  readonly object: RegExp;
  readonly kind: string;
  /** The path inside the object (whole-string match; `''` is the object itself). */
  readonly path: RegExp;
  /** The exact value on each side (`'<absent>'` for a missing value, `'present'` for an object one side lacks). */
  readonly upstream: Expected;
  readonly capiServerless: Expected;
  /** Roles that must be absent on both sides for the cause to act (e.g. no control plane exists). */
  readonly absentOnBothSides?: readonly string[];
  /** Roles that must be present on both sides for the cause to act (e.g. the control plane was created). */
  readonly presentOnBothSides?: readonly string[];
  /** Roles capi-serverless's side must not have (`Leftovers/<kind>`: no leftover of that kind). */
  readonly absentOnCapiServerless?: readonly string[];
};

/** A TopologyReconciled state as a trajectory rule names it: each string exact. */
export type TrajectoryState = { readonly status: string; readonly reason: string; readonly message: string };

/**
 * A documented timing difference of a step's TopologyReconciled trajectory (the `Trajectories` entry): in the named
 * scenarios and steps, a side may have the exact transient states listed for it (never its last state) where the
 * other side's polls (about one a second) missed them. With those dropped, the two sequences must be equal; then every
 * `topologyReconciled` difference of that step's `Trajectories` entry is this rule's, and nothing else is.
 */
export type KnownTrajectoryDifference = {
  readonly id: string;
  readonly reason: string;
  readonly scenarios: RegExp;
  readonly scenarioClass: string;
  readonly steps: RegExp;
  readonly stepClass: string;
  /** Which trajectory of the step (only TopologyReconciled has rules). */
  readonly trajectory: 'topologyReconciled';
  /** The states upstream's sequence may have that capi-serverless's lacks, and the other way round. */
  readonly upstreamMayHave: readonly TrajectoryState[];
  readonly capiServerlessMayHave: readonly TrajectoryState[];
  /**
   * Why a whole-corpus run where this rule matched nothing is not evidence that it is stale: its states last about
   * as long as a poll, so a run where no poll landed in them on either side has nothing for it to match. Such a rule is
   * reported with its count and does not fail the run; it still accepts nothing but its exact states.
   */
  readonly mayMatchNothing?: string;
};

export type KnownDifference = KnownFieldDifference | KnownTrajectoryDifference;

/** Whether a rule is about fields of a role (not a trajectory). */
export const isFieldRule = (k: KnownDifference): k is KnownFieldDifference => !('trajectory' in k);

export const absent = '<absent>';

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

const kindOf = (v: unknown): string | undefined =>
  v && typeof v === 'object' && typeof (v as { kind?: unknown }).kind === 'string'
    ? (v as { kind: string }).kind
    : undefined;

function diffValues(
  object: string,
  kind: string | undefined,
  path: string,
  a: unknown,
  b: unknown,
  out: Difference[],
): void {
  if (a === b) return;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects =
    a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (bothArrays) {
    const len = Math.max(a.length, b.length);
    for (let i = 0; i < len; i++) {
      const ai = i < a.length ? a[i] : absent;
      const bi = i < b.length ? b[i] : absent;
      // NOTE: the elements of `Leftovers` are whole objects: each has its own kind.
      const elementKind = path === '' && kind === undefined ? (kindOf(ai) ?? kindOf(bi)) : kind;
      diffValues(object, elementKind, pathOf(path, i), ai, bi, out);
    }
    return;
  }
  if (bothObjects) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort())
      diffValues(object, kind, pathOf(path, key), key in ra ? ra[key] : absent, key in rb ? rb[key] : absent, out);
    return;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  out.push({
    object,
    ...(kind === undefined ? {} : { kind }),
    path,
    upstream: a === undefined ? absent : a,
    capiServerless: b === undefined ? absent : b,
  });
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
    const kind = kindOf(a) ?? kindOf(b);
    if (a === absent || b === absent) {
      if (a !== b)
        out.push({
          object,
          ...(kind === undefined ? {} : { kind }),
          path: '',
          upstream: a === absent ? absent : 'present',
          capiServerless: b === absent ? absent : 'present',
        });
      continue;
    }
    diffValues(object, kind, '', a, b, out);
  }
  return out;
}

/** Whether `value` is `expected`: deep equality, a RegExp leaf matching a whole string, a function of the step. */
export function matchesExpected(expected: Expected, value: unknown, ctx: StepContext): boolean {
  if (typeof expected === 'function')
    return matchesExpected((expected as (c: StepContext) => unknown)(ctx), value, ctx);
  if (expected instanceof RegExp) return typeof value === 'string' && wholeMatch(expected, value);
  if (Array.isArray(expected))
    return (
      Array.isArray(value) &&
      value.length === expected.length &&
      expected.every((e, i) => matchesExpected(e, value[i], ctx))
    );
  if (expected && typeof expected === 'object') {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    const e = expected as Record<string, unknown>;
    const v = value as Record<string, unknown>;
    const keys = Object.keys(e);
    return keys.length === Object.keys(v).length && keys.every((k) => k in v && matchesExpected(e[k], v[k], ctx));
  }
  return expected === value;
}

function wholeMatch(re: RegExp, text: string): boolean {
  const m = new RegExp(re.source, re.flags.replace('g', '')).exec(text);
  return m !== null && m.index === 0 && m[0].length === text.length;
}

/**
 * The known difference a difference of the step `ctx` matches, if any: every field of the rule must hold.
 *
 * @example
 * findKnownDifference(d, knownDifferences, { scenario: 'd01-base-variables', step: 'create', roles })?.id // 'R1'
 */
export function findKnownDifference(
  d: Difference,
  known: readonly KnownDifference[],
  ctx: StepContext,
): KnownFieldDifference | undefined {
  return known
    .filter(isFieldRule)
    .find(
      (k) =>
        wholeMatch(k.scenarios, ctx.scenario) &&
        wholeMatch(k.steps, ctx.step) &&
        wholeMatch(k.object, d.object) &&
        d.kind === k.kind &&
        wholeMatch(k.path, d.path) &&
        matchesExpected(k.upstream, d.upstream, ctx) &&
        matchesExpected(k.capiServerless, d.capiServerless, ctx) &&
        (k.absentOnBothSides ?? []).every((r) => !ctx.roles.upstream.has(r) && !ctx.roles.capiServerless.has(r)) &&
        (k.presentOnBothSides ?? []).every((r) => ctx.roles.upstream.has(r) && ctx.roles.capiServerless.has(r)) &&
        (k.absentOnCapiServerless ?? []).every((r) => !ctx.roles.capiServerless.has(r)),
    );
}

const sameState = (a: TrajectoryState, b: TrajectoryState) =>
  a.status === b.status && a.reason === b.reason && a.message === b.message;

/** The sequence without the listed states where they are transient (not last), consecutive repeats collapsed. */
function dropTransient(states: readonly TrajectoryState[], drop: readonly TrajectoryState[]): TrajectoryState[] {
  const kept = states.filter((s, i) => i === states.length - 1 || !drop.some((x) => sameState(x, s)));
  return kept.filter((s, i) => i === 0 || !sameState(s, kept[i - 1]!));
}

/**
 * The trajectory rule that explains why the two sides' TopologyReconciled sequences of a step differ, if any: its
 * scenarios and steps match, and with each side's listed transient states dropped the sequences are equal.
 *
 * @example
 * findKnownTrajectoryDifference([deferred, md1, done], [deferred, md1, md2, done], knownDifferences, ctx)?.id // 'T1'
 */
export function findKnownTrajectoryDifference(
  upstream: readonly TrajectoryState[],
  capiServerless: readonly TrajectoryState[],
  known: readonly KnownDifference[],
  ctx: Pick<StepContext, 'scenario' | 'step'>,
): KnownTrajectoryDifference | undefined {
  const equal = (a: readonly TrajectoryState[], b: readonly TrajectoryState[]) =>
    a.length === b.length && a.every((s, i) => sameState(s, b[i]!));
  if (equal(upstream, capiServerless)) return undefined;
  return known
    .filter((k): k is KnownTrajectoryDifference => !isFieldRule(k))
    .find(
      (k) =>
        wholeMatch(k.scenarios, ctx.scenario) &&
        wholeMatch(k.steps, ctx.step) &&
        equal(dropTransient(upstream, k.upstreamMayHave), dropTransient(capiServerless, k.capiServerlessMayHave)),
    );
}

function rolesOf(snapshot: NormalizedSnapshot): Set<string> {
  const leftovers = Array.isArray(snapshot['Leftovers']) ? (snapshot['Leftovers'] as unknown[]) : [];
  return new Set([...Object.keys(snapshot), ...leftovers.map((o) => `Leftovers/${kindOf(o) ?? ''}`)]);
}

/** The step context of two snapshots (the roles each side has, and the kinds it has left over). */
export function computeStepContext(
  scenario: string,
  step: string,
  upstream: NormalizedSnapshot,
  capiServerless: NormalizedSnapshot,
): StepContext {
  return { scenario, step, roles: { upstream: rolesOf(upstream), capiServerless: rolesOf(capiServerless) } };
}
