// Semantic versions, the one home for both ways upstream reads them: Cluster API's topology and webhooks use blang's
// semver.ParseTolerant and util/version.Compare (build tags compared); clusterctl and the operator read provider
// versions with apimachinery's version.ParseSemantic (strict `v1.2.3[-pre][+build]`). Ordering is semver 2.

export type Version = {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly pre: readonly string[];
  readonly build: readonly string[];
};

/**
 * blang's semver.ParseTolerant: `v1.30.1`, `1.30`, ` v1.30.1-rc.0+build.1 `; undefined when it is not a version.
 *
 * @example
 * parseVersionTolerant('v1.30'); // { major: 1, minor: 30, patch: 0, pre: [], build: [] }
 */
export function parseVersionTolerant(text: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(text.trim());
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2] ?? 0),
    patch: Number(m[3] ?? 0),
    pre: m[4] ? m[4].split('.') : [],
    build: m[5] ? m[5].split('.') : [],
  };
}

const SEMANTIC =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/**
 * apimachinery's version.ParseSemantic as clusterctl reads provider versions: exactly `v1.2.3` (the `v` optional, no
 * leading zeros) with optional pre-release and build metadata; undefined when invalid.
 *
 * @example
 * parseVersionSemantic('v1.9.0-rc.1'); // { major: 1, minor: 9, patch: 0, pre: ['rc', '1'], build: [] }
 */
export function parseVersionSemantic(text: string): Version | undefined {
  const m = SEMANTIC.exec(text);
  if (!m) return undefined;
  const nums = [m[1], m[2], m[3]].map(Number);
  if (nums.some((n) => !Number.isSafeInteger(n))) return undefined;
  return {
    major: nums[0] ?? 0,
    minor: nums[1] ?? 0,
    patch: nums[2] ?? 0,
    pre: m[4] ? m[4].split('.') : [],
    build: m[5] ? m[5].split('.') : [],
  };
}

function compareIdentifiers(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      // NOTE: Go reads numeric identifiers as uint64; BigInt keeps the order of those past 2^53.
      const d = BigInt(x) - BigInt(y);
      if (d !== 0n) return d < 0n ? -1 : 1;
    } else if (xn !== yn) return xn ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** -1, 0 or 1; pre-releases sort before releases; build metadata compared like pre-release identifiers. */
export function compareVersions(a: Version, b: Version, withBuildTags = true): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  if (a.pre.length || b.pre.length) {
    if (!a.pre.length) return 1;
    if (!b.pre.length) return -1;
    const c = compareIdentifiers(a.pre, b.pre);
    if (c !== 0) return c;
  }
  if (withBuildTags && (a.build.length || b.build.length)) {
    if (!a.build.length) return -1;
    if (!b.build.length) return 1;
    return compareIdentifiers(a.build, b.build);
  }
  return 0;
}

/** Upstream `version.Compare(a, b, WithBuildTags())`: like compareVersions, but 2 when builds differ in a string. */
export type BuildTagComparison = -1 | 0 | 1 | 2;

function compareBuildIdentifiers(a: readonly string[], b: readonly string[]): BuildTagComparison {
  const numeric = (id: string) => /^\d+$/.test(id);
  let i = 0;
  for (; i < a.length && i < b.length; i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (numeric(x) !== numeric(y)) return numeric(x) ? -1 : 1;
    if (numeric(x)) {
      const d = Math.sign(Number(x) - Number(y));
      if (d !== 0) return d as -1 | 1;
    } else if (x !== y) return 2;
  }
  if (i === a.length && i === b.length) return 0;
  return i === a.length ? -1 : 1;
}

/**
 * Upstream `version.Compare(a, b, version.WithBuildTags())`: semver precedence, then build identifiers (numeric ones
 * numerically; two different non-numeric ones cannot be ordered: 2).
 *
 * @example
 * compareWithBuildTags(parseVersionTolerant('v1.31.1+a')!, parseVersionTolerant('v1.31.1+b')!); // 2
 */
export function compareWithBuildTags(a: Version, b: Version): BuildTagComparison {
  const c = compareVersions(a, b, false);
  if (c !== 0) return c as -1 | 1;
  return compareBuildIdentifiers(a.build, b.build);
}

/**
 * A version as Go's `semver.Version.String()` prints it (no `v`).
 *
 * @example
 * formatVersion(parseVersionTolerant('v1.30.1+b.1')!); // '1.30.1+b.1'
 */
export function formatVersion(v: Version): string {
  const pre = v.pre.length > 0 ? `-${v.pre.join('.')}` : '';
  const build = v.build.length > 0 ? `+${v.build.join('.')}` : '';
  return `${v.major}.${v.minor}.${v.patch}${pre}${build}`;
}
