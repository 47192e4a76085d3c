// fast-check arbitraries for Go (RE2) regular expressions: literals, classes, POSIX classes, Unicode classes, groups,
// alternation, quantifiers, anchors and leading flags, plus some syntax Go rejects; and input strings over the same alphabet.
import fc from 'fast-check';

// NOTE: no ſ (U+017F) or Kelvin sign: under (?i) JavaScript's \b counts them as word characters and Go's does not
// (docs/differences.md).
const alphabet = [
  'a',
  'b',
  'A',
  'B',
  '0',
  '7',
  ' ',
  '-',
  '_',
  '.',
  '\n',
  'é',
  'ß',
  'K',
  'k',
  '😀',
  'Σ',
  'σ',
  'ς',
  '\u00a0',
  '\v',
];
const literal = fc.constantFrom(...alphabet.filter((c) => c !== '.'), '\\.', '\\-', '\\*', '\\\\', '\\n', '\\x41');
const classItem = fc.constantFrom(
  'a',
  'b-d',
  'A-Z',
  '0-9',
  '_',
  '-',
  '.',
  'é',
  '\\d',
  '\\s',
  '\\w',
  '[:alpha:]',
  '[:digit:]',
  '[:^space:]',
  '[:word:]',
  '\\pL',
  '\\p{Greek}',
);
const charClass = fc
  .tuple(fc.boolean(), fc.array(classItem, { minLength: 1, maxLength: 3 }))
  .map(([neg, items]) => `[${neg ? '^' : ''}${items.join('')}]`);
const escapeClass = fc.constantFrom(
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\pL',
  '\\PL',
  '\\p{Lu}',
  '\\pN',
  '\\p{Greek}',
  '.',
);
const anchor = fc.constantFrom('^', '$', '\\A', '\\z', '\\b', '\\B');
const quantifier = fc.constantFrom('*', '+', '?', '*?', '+?', '??', '{2}', '{1,2}', '{0,}', '{1,3}?');
const broken = fc.constantFrom(
  '(',
  ')',
  '[',
  '*',
  'a**',
  '\\',
  'x{1001}',
  '(?<n>a)',
  '(?=a)',
  '\\1',
  '[z-a]',
  '\\Q.*\\E',
  '\\C',
  '(?P<n>a)',
  'a{',
  '{,3}',
  ']',
  'a{2,1}',
);
// NOTE: flags in the middle of a pattern (`a(?i)b`, `(?i:a)`) are not generated: the variable validator rejects them
// with a clear error (docs/differences.md), which upstream accepts.

const regex: fc.Arbitrary<string> = fc.letrec<{ re: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    charClass,
    escapeClass,
    anchor,
    tie('re').map((r) => `(${r})`),
    tie('re').map((r) => `(?:${r})`),
    tie('re').map((r) => `(?P<g>${r})`),
  ),
  re: fc
    .array(
      fc.tuple(tie('atom'), fc.option(quantifier, { freq: 3 })).map(([a, q]) => a + (q ?? '')),
      { minLength: 1, maxLength: 4 },
    )
    .chain((parts) =>
      fc.oneof(fc.constant(parts.join('')), fc.constant(parts.slice(0, 2).join('') + '|' + parts.slice(2).join(''))),
    ),
})).re;

export const pattern = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom('', '', '(?i)', '(?s)', '(?m)', '(?is)'), regex).map(([f, r]) => f + r),
  },
  { weight: 1, arbitrary: fc.tuple(regex, broken, regex).map((parts) => parts.join('')) },
);
export const inputs = fc.array(
  fc.array(fc.constantFrom(...alphabet), { maxLength: 6 }).map((cs) => cs.join('')),
  {
    minLength: 1,
    maxLength: 4,
  },
);
