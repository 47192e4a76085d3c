// Go lets a capture name appear twice (`(?P<n>a)(?P<n>b)`); RE2/J, and so re2js, refuses it. This gives each repeated
// name a stand-in of the same length, so the engine compiles what Go compiles and positions in error messages stay.

/** Where a capture name sits in a pattern: `pattern.slice(start, start + name.length) === name`. */
type NameAt = { readonly name: string; readonly start: number };

const validName = /^[A-Za-z0-9_]+$/;
const nameChars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

/** The end of a character class that opens at `pattern[i] === '['`, read as Go's parser reads it (roughly). */
function skipClass(pattern: string, i: number): number {
  let j = i + 1;
  if (pattern[j] === '^') j++;
  let first = true;
  while (j < pattern.length) {
    const c = pattern[j];
    if (c === ']' && !first) return j + 1;
    first = false;
    if (c === '\\') j += 2;
    else if (c === '[' && pattern[j + 1] === ':') {
      const close = pattern.indexOf(':]', j + 2);
      j = close < 0 ? j + 1 : close + 2;
    } else j++;
  }
  return j;
}

/** The names of `(?P<name>` and `(?<name>` groups, outside classes, escapes and `\Q…\E`. */
function captureNames(pattern: string): NameAt[] {
  const out: NameAt[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end < 0 ? pattern.length : end + 2;
      } else i += 2;
      continue;
    }
    if (c === '[') {
      i = skipClass(pattern, i);
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const open = pattern[i + 2] === 'P' && pattern[i + 3] === '<' ? i + 4 : pattern[i + 2] === '<' ? i + 3 : -1;
      const close = open < 0 ? -1 : pattern.indexOf('>', open);
      const name = close < 0 ? '' : pattern.slice(open, close);
      if (validName.test(name)) out.push({ name, start: open });
    }
    i++;
  }
  return out;
}

/** A name of `length` characters that is in neither set, if one is left. */
function freshName(length: number, taken: ReadonlySet<string>): string | undefined {
  const digits = Array.from({ length }, () => 0);
  for (;;) {
    const candidate = digits.map((d) => nameChars[d]).join('');
    if (!taken.has(candidate)) return candidate;
    let k = length - 1;
    while (k >= 0 && digits[k] === nameChars.length - 1) digits[k--] = 0;
    if (k < 0) return undefined;
    digits[k] = (digits[k] ?? 0) + 1;
  }
}

/** The pattern with each repeated capture name replaced, and the stand-ins mapped back to the names they replace. */
export type RenamedCaptures = { readonly pattern: string; readonly originalNames: ReadonlyMap<string, string> };

/**
 * Gives every capture name after its first use a fresh name of the same length (longer only if all are taken).
 *
 * @example
 * renameRepeatedCaptures('(?P<n>a)(?P<n>b)'); // { pattern: '(?P<n>a)(?P<a>b)', originalNames: Map { 'a' => 'n' } }
 */
export function renameRepeatedCaptures(pattern: string): RenamedCaptures {
  const names = captureNames(pattern);
  const taken = new Set(names.map((n) => n.name));
  const seen = new Set<string>();
  const originalNames = new Map<string, string>();
  let out = '';
  let last = 0;
  for (const { name, start } of names) {
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    const fresh = freshName(name.length, taken) ?? `${name}_${taken.size}`;
    taken.add(fresh);
    originalNames.set(fresh, name);
    out += pattern.slice(last, start) + fresh;
    last = start + name.length;
  }
  return { pattern: out + pattern.slice(last), originalNames };
}
