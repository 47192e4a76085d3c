// fast-check arbitraries for Go (RE2) regular expressions: literals, classes, POSIX classes, Unicode classes, groups
// (named ones repeated), alternation, quantifiers, anchors and flags, plus some syntax Go rejects; input strings over
// the same alphabet; and replacement templates.
import fc from 'fast-check';

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
  'ſ',
  '\u212a',
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
    tie('re').map((r) => `(?<h>${r})`),
    fc.tuple(fc.constantFrom('i', 's', 'm', 'U', 'i-s', '-i', 'is'), tie('re')).map(([f, r]) => `(?${f}:${r})`),
    fc.constantFrom('(?i)', '(?-i)', '(?s)', '(?U)', '(?m)'),
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
    arbitrary: fc.tuple(fc.constantFrom('', '', '(?i)', '(?s)', '(?m)', '(?is)', '(?U)'), regex).map(([f, r]) => f + r),
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

/** Replacement templates for ReplaceAllString: group numbers and names, braces, `$$`, and malformed references. */
export const replacement = fc
  .array(
    fc.constantFrom('$0', '$1', '${1}', '$1x', '${1}x', '$g', '${g}', '$h', '$$', '$', '${', '$01', 'x', '-', 'é'),
    {
      maxLength: 3,
    },
  )
  .map((parts) => parts.join(''));
