// The Kubernetes CEL semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, version 1 as the base
// environment enables it) over a re-implementation of github.com/blang/semver/v4's Parse and Compare.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { quote } from '#shared/lang/go/strconv.ts';

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = 2n ** 64n - 1n;

type PreRelease = { readonly num?: bigint; readonly str?: string };

/** A parsed semantic version (blang/semver's Version); build metadata does not take part in comparisons. */
export class Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly PreRelease[];

  constructor(major: bigint, minor: bigint, patch: bigint, pre: readonly PreRelease[]) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.pre = pre;
  }

  compare(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a > b ? 1 : -1;
    }
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    for (let i = 0; i < this.pre.length && i < o.pre.length; i++) {
      const c = comparePre(this.pre[i] as PreRelease, o.pre[i] as PreRelease);
      if (c !== 0) return c;
    }
    if (this.pre.length === o.pre.length) return 0;
    return this.pre.length < o.pre.length ? -1 : 1;
  }
}

function comparePre(a: PreRelease, b: PreRelease): number {
  if (a.num !== undefined && b.num === undefined) return -1;
  if (a.num === undefined && b.num !== undefined) return 1;
  const [x, y] = a.num !== undefined ? [a.num, b.num as bigint] : [a.str as string, b.str as string];
  return x === y ? 0 : x > y ? 1 : -1;
}

const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

/** strconv.ParseUint(s, 10, 64), with Go's error text. */
function parseUint(s: string): bigint {
  if (!/^[0-9]+$/.test(s)) throw new CelFunctionError(`strconv.ParseUint: parsing ${quote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new CelFunctionError(`strconv.ParseUint: parsing ${quote(s)}: value out of range`);
  return v;
}

function versionNumber(s: string, name: string): bigint {
  if (!NUMBERS.test(s)) throw new CelFunctionError(`Invalid character(s) found in ${name} number ${quote(s)}`);
  if (hasLeadingZeroes(s))
    throw new CelFunctionError(
      `${name[0]?.toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${quote(s)}`,
    );
  return parseUint(s);
}

function preRelease(s: string): PreRelease {
  if (s.length === 0) throw new CelFunctionError('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s))
      throw new CelFunctionError(`Numeric PreRelease version must not contain leading zeroes ${quote(s)}`);
    return { num: parseUint(s) };
  }
  if (ALPHANUM.test(s)) return { str: s };
  throw new CelFunctionError(`Invalid character(s) found in prerelease ${quote(s)}`);
}

/** Go's strings.SplitN(s, sep, n) for n > 0. */
function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** blang/semver's Parse; throws its error. */
function parseSemver(s: string): Semver {
  if (s.length === 0) throw new CelFunctionError('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new CelFunctionError('No Major.Minor.Patch elements found');
  const major = versionNumber(parts[0] ?? '', 'major');
  const minor = versionNumber(parts[1] ?? '', 'minor');
  let patchStr = parts[2] ?? '';
  let build: string[] = [];
  let prerelease: string[] = [];
  const buildIndex = patchStr.indexOf('+');
  if (buildIndex !== -1) {
    build = patchStr.slice(buildIndex + 1).split('.');
    patchStr = patchStr.slice(0, buildIndex);
  }
  const preIndex = patchStr.indexOf('-');
  if (preIndex !== -1) {
    prerelease = patchStr.slice(preIndex + 1).split('.');
    patchStr = patchStr.slice(0, preIndex);
  }
  const patch = versionNumber(patchStr, 'patch');
  const pre = prerelease.map(preRelease);
  for (const b of build) {
    if (b.length === 0) throw new CelFunctionError('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new CelFunctionError(`Invalid character(s) found in build meta data ${quote(b)}`);
  }
  return new Semver(major, minor, patch, pre);
}

/** The library's normalizeAndParse: an optional `v`, leading zeroes dropped, missing minor/patch as 0. */
function normalizeAndParse(input: string): Semver {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed.length === 0 || !/[0-9]/.test(trimmed[0] ?? '') ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? ''))
      throw new CelFunctionError('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function semverOf(s: string, normalize: boolean): Semver {
  return normalize ? normalizeAndParse(s) : parseSemver(s);
}

function isSemver(s: string, normalize: boolean): boolean {
  try {
    semverOf(s, normalize);
    return true;
  } catch {
    return false;
  }
}

/** Go's types.Int(uint64): wraps above the int64 maximum. */
const asInt = (v: bigint) => BigInt.asIntN(64, v);

/**
 * Registers Kubernetes' semver library: `semver` and `isSemver` (with the normalize flag), `isGreaterThan`,
 * `isLessThan`, `compareTo`, `major`, `minor`, `patch`, and `==`.
 *
 * @example
 * registerSemverLibrary(env).evaluate("semver('v1.2', true).minor()"); // 2n
 */
export function registerSemverLibrary(env: Environment): Environment {
  return env
    .registerType('Semver', Semver)
    .registerFunction('semver(string): Semver', (s: string) => semverOf(s, false))
    .registerFunction('semver(string, bool): Semver', semverOf)
    .registerFunction('isSemver(string): bool', (s: string) => isSemver(s, false))
    .registerFunction('isSemver(string, bool): bool', isSemver)
    .registerFunction('Semver.isGreaterThan(Semver): bool', (a: Semver, b: Semver) => a.compare(b) === 1)
    .registerFunction('Semver.isLessThan(Semver): bool', (a: Semver, b: Semver) => a.compare(b) === -1)
    .registerFunction('Semver.compareTo(Semver): int', (a: Semver, b: Semver) => BigInt(a.compare(b)))
    .registerFunction('Semver.major(): int', (v: Semver) => asInt(v.major))
    .registerFunction('Semver.minor(): int', (v: Semver) => asInt(v.minor))
    .registerFunction('Semver.patch(): int', (v: Semver) => asInt(v.patch))
    .registerOperator('Semver == Semver', (a: Semver, b: Semver) => a.compare(b) === 0);
}
