// sprig's semver and semverCompare, following Masterminds/semver v3 (NewVersion, NewConstraint, Check).
import { FuncError, fn } from './go-func.ts';
import type { GoFunc } from './go-func.ts';
import { compileRegexp } from '#shared/lang/go/regexp.ts';
import { GoInt, GoVersion, goInt } from './values.ts';
import type { GoValue } from './values.ts';

const semVerRegex = String.raw`v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const versionRegex = compileRegexp(`^${semVerRegex}$`);
const cvRegex = String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const ops = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const constraintRegex = compileRegexp(String.raw`^\s*(${ops})\s*(${cvRegex})\s*$`);
const constraintRangeRegex = compileRegexp(String.raw`\s*(${cvRegex})\s+-\s+(${cvRegex})\s*`);
const findConstraintRegex = compileRegexp(String.raw`(${ops})\s*(${cvRegex})`);
const validConstraintRegex = compileRegexp(
  String.raw`^(\s*(${ops})\s*(${cvRegex})\s*)((?:\s+|,\s*)(${ops})\s*(${cvRegex})\s*)*$`,
);

const UINT64_MAX = 2n ** 64n - 1n;
const containsOnly = (s: string, chars: RegExp): boolean => chars.test(s);

/** semver.NewVersion. */
export function newVersion(v: string): GoVersion {
  const m = versionRegex.findStringSubmatch(v);
  if (!m) throw new FuncError('invalid semantic version');
  const seg = (s: string | undefined): bigint => {
    if (s === undefined || s === '') return 0n;
    const n = BigInt(s.replace(/^\./, ''));
    if (n > UINT64_MAX)
      throw new FuncError(
        `Error parsing version segment: strconv.ParseUint: parsing "${s.replace(/^\./, '')}": value out of range`,
      );
    return n;
  };
  const pre = m[5] ?? '';
  const metadata = m[8] ?? '';
  const version = new GoVersion(seg(m[1]), seg(m[2]), seg(m[3]), pre, metadata, v);
  if (pre !== '') {
    for (const part of pre.split('.')) {
      if (containsOnly(part, /^[0-9]*$/)) {
        if (part.length > 1 && part.startsWith('0')) throw new FuncError('version segment starts with 0');
      } else if (!containsOnly(part, /^[A-Za-z0-9-]*$/)) throw new FuncError('invalid prerelease string');
    }
  }
  if (metadata !== '') {
    for (const part of metadata.split('.'))
      if (!containsOnly(part, /^[A-Za-z0-9-]*$/)) throw new FuncError('invalid metadata string');
  }
  return version;
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return o !== '' ? -1 : 1;
  if (o === '') return 1;
  const sNum = /^[0-9]+$/.test(s);
  const oNum = /^[0-9]+$/.test(o);
  if (!sNum && !oNum) return s > o ? 1 : -1;
  if (!oNum) return -1;
  if (!sNum) return 1;
  return BigInt(s) > BigInt(o) ? 1 : -1;
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split('.');
  const op = o.split('.');
  for (let i = 0; i < Math.max(sp.length, op.length); i++) {
    const d = comparePrePart(sp[i] ?? '', op[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** Version.Compare. */
export function compareVersions(v: GoVersion, o: GoVersion): number {
  const d = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch);
  if (d !== 0) return d;
  if (v.pre === '' && o.pre === '') return 0;
  if (v.pre === '') return 1;
  if (o.pre === '') return -1;
  return comparePrerelease(v.pre, o.pre);
}

type Constraint = { con: GoVersion; origfunc: string; minorDirty: boolean; patchDirty: boolean; dirty: boolean };

const isX = (x: string | undefined): boolean => x === 'x' || x === '*' || x === 'X';

function parseConstraint(c: string): Constraint {
  const m = constraintRegex.findStringSubmatch(c);
  if (!m) throw new FuncError(`improper constraint: ${c}`);
  const origfunc = m[1] ?? '';
  let ver = m[2] ?? '';
  let minorDirty = false;
  let patchDirty = false;
  let dirty = false;
  const [m3, m4, m5, m6] = [m[3] ?? '', m[4] ?? '', m[5] ?? '', m[6] ?? ''];
  if (isX(m3) || m3 === '') {
    ver = `0.0.0${m6}`;
    dirty = true;
  } else if (isX(m4.replace(/^\./, '')) || m4 === '') {
    minorDirty = true;
    dirty = true;
    ver = `${m3}.0.0${m6}`;
  } else if (isX(m5.replace(/^\./, '')) || m5 === '') {
    dirty = true;
    patchDirty = true;
    ver = `${m3}${m4}.0${m6}`;
  }
  let con: GoVersion;
  try {
    con = newVersion(ver);
  } catch {
    throw new FuncError('constraint Parser Error');
  }
  return { con, origfunc, minorDirty, patchDirty, dirty };
}

function check(v: GoVersion, c: Constraint): boolean {
  const lt = (a: GoVersion, b: GoVersion): boolean => compareVersions(a, b) < 0;
  const preBlocked = v.pre !== '' && c.con.pre === '';
  const tilde = (): boolean => {
    if (preBlocked || lt(v, c.con)) return false;
    if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
    if (v.major !== c.con.major) return false;
    return !(v.minor !== c.con.minor && !c.minorDirty);
  };
  switch (c.origfunc) {
    case '':
    case '=':
      if (preBlocked) return false;
      if (c.dirty) return tilde();
      return compareVersions(v, c.con) === 0;
    case '!=':
      if (c.dirty) {
        if (preBlocked) return false;
        if (c.con.major !== v.major) return true;
        if (c.con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (c.con.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) {
          if (v.pre !== '' || c.con.pre !== '') return comparePrerelease(v.pre, c.con.pre) !== 0;
          return false;
        }
      }
      return compareVersions(v, c.con) !== 0;
    case '>':
      if (preBlocked) return false;
      if (!c.dirty) return compareVersions(v, c.con) === 1;
      if (v.major > c.con.major) return true;
      if (v.major < c.con.major || c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return compareVersions(v, c.con) === 1;
    case '<':
      return !preBlocked && compareVersions(v, c.con) < 0;
    case '>=':
    case '=>':
      return !preBlocked && compareVersions(v, c.con) >= 0;
    case '<=':
    case '=<':
      if (preBlocked) return false;
      if (!c.dirty) return compareVersions(v, c.con) <= 0;
      if (v.major > c.con.major) return false;
      return !(v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty);
    case '~':
    case '~>':
      return tilde();
    case '^':
      if (preBlocked || lt(v, c.con)) return false;
      if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
      if (c.con.major === 0n && v.major > 0n) return false;
      if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
      if (c.con.minor === 0n && v.minor > 0n) return false;
      return c.con.patch === v.patch;
    default:
      throw new FuncError(`improper constraint: ${c.origfunc}`);
  }
}

function rewriteRange(i: string): string {
  let o = i;
  for (const m of constraintRangeRegex.findAllStringSubmatch(i, -1)) {
    o = o.replace(m[0] ?? '', `>= ${m[1] ?? ''}, <= ${m[11] ?? ''} `);
  }
  return o;
}

/** semver.NewConstraint(c).Check(version). */
export function semverCompare(constraint: string, version: string): boolean {
  const ors = rewriteRange(constraint)
    .split('||')
    .map((v) => {
      if (!validConstraintRegex.matchString(v)) throw new FuncError(`improper constraint: ${v}`);
      const found = findConstraintRegex.findAllString(v, -1);
      return (found.length === 0 ? [v] : found).map((s) => parseConstraint(s));
    });
  const v = newVersion(version);
  return ors.some((and) => and.every((c) => check(v, c)));
}

export const semverFuncs: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['semver', fn(['string'], ([v]) => newVersion(v as string))],
  ['semverCompare', fn(['string', 'string'], ([c, v]) => semverCompare(c as string, v as string))],
]);

const u64 = (n: bigint): GoInt => new GoInt('uint64', n);

/** The methods of *semver.Version a template can call, e.g. `{{ (semver .v).Minor }}`. */
export function versionMethods(v: GoVersion): ReadonlyMap<string, GoFunc> {
  const other = (o: GoValue): GoVersion => o as GoVersion;
  return new Map<string, GoFunc>([
    ['Major', fn([], () => u64(v.major))],
    ['Minor', fn([], () => u64(v.minor))],
    ['Patch', fn([], () => u64(v.patch))],
    ['Prerelease', fn([], () => v.pre)],
    ['Metadata', fn([], () => v.metadata)],
    ['Original', fn([], () => v.original)],
    ['String', fn([], () => v.toString())],
    ['Compare', fn(['version'], ([o]) => goInt(compareVersions(v, other(o))))],
    ['LessThan', fn(['version'], ([o]) => compareVersions(v, other(o)) < 0)],
    ['LessThanEqual', fn(['version'], ([o]) => compareVersions(v, other(o)) <= 0)],
    ['GreaterThan', fn(['version'], ([o]) => compareVersions(v, other(o)) > 0)],
    ['GreaterThanEqual', fn(['version'], ([o]) => compareVersions(v, other(o)) >= 0)],
    ['Equal', fn(['version'], ([o]) => compareVersions(v, other(o)) === 0)],
  ]);
}
