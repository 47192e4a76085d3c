// Semantic versions as clusterctl reads provider versions (`v1.2.3`, `1.2.3-rc.1+build`), with semver 2 ordering.

export type Semver = {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly string[];
  readonly build: readonly string[];
};

const pattern =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/**
 * Parses `v1.2.3` (the `v` is optional) with optional pre-release and build metadata; undefined when invalid.
 *
 * @example
 * parseSemver('v1.9.0-rc.1'); // { major: 1, minor: 9, patch: 0, prerelease: ['rc', '1'], build: [] }
 */
export function parseSemver(text: string): Semver | undefined {
  const m = pattern.exec(text);
  if (!m) return undefined;
  const nums = [m[1], m[2], m[3]].map(Number);
  if (nums.some((n) => !Number.isSafeInteger(n))) return undefined;
  return {
    major: nums[0] ?? 0,
    minor: nums[1] ?? 0,
    patch: nums[2] ?? 0,
    prerelease: m[4] ? m[4].split('.') : [],
    build: m[5] ? m[5].split('.') : [],
  };
}

const numeric = (s: string) => /^\d+$/.test(s);

function compareIdentifiers(a: string, b: string): number {
  if (numeric(a) && numeric(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (numeric(a)) return -1;
  if (numeric(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Semver 2 precedence: -1, 0 or 1. Build metadata is ignored; a pre-release sorts before its release; pre-release
 * identifiers compare numerically when numeric, else in ASCII order, numeric before alphanumeric.
 *
 * @example
 * compareSemver(parseSemver('v1.0.0-rc.2')!, parseSemver('v1.0.0-rc.10')!); // -1
 */
export function compareSemver(a: Semver, b: Semver): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1;
  }
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifiers(a.prerelease[i] ?? '', b.prerelease[i] ?? '');
    if (c !== 0) return c;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** `v1.2.3[-pre][+build]`, the way clusterctl prints versions. */
export function formatSemver(v: Semver): string {
  const pre = v.prerelease.length ? `-${v.prerelease.join('.')}` : '';
  const build = v.build.length ? `+${v.build.join('.')}` : '';
  return `v${v.major}.${v.minor}.${v.patch}${pre}${build}`;
}

/**
 * The highest of `versions` (invalid ones are skipped), formatted `v…`, or undefined when none parses.
 *
 * @example
 * computeLatestVersion(['v1.8.5', 'v1.9.0-rc.0', 'v1.9.0']); // 'v1.9.0'
 */
export function computeLatestVersion(versions: readonly string[]): string | undefined {
  let best: Semver | undefined;
  for (const text of versions) {
    const v = parseSemver(text);
    if (v && (!best || compareSemver(v, best) > 0)) best = v;
  }
  return best ? formatSemver(best) : undefined;
}
