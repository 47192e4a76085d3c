// fast-check arbitraries for Go templates and their data: text, actions, pipelines, sprig and builtin calls with
// arguments of (mostly) the right kinds, if/range/with/define/block, variables, and JSON data like upstream's variables.
import fc from 'fast-check';

// ---- operands -------------------------------------------------------------------------------------------------
const strLit = fc
  .constantFrom(
    '',
    'a',
    'Hello World',
    'foo-bar',
    ' x ',
    'a,b,c',
    '1.2.3',
    'v1.29.0',
    '10',
    '3.5',
    'true',
    'é😀',
    '<&>',
    'a\\nb',
    '"q"',
    'aaa',
    'x/y.txt',
    '>= 1.28',
    '~1.2',
    '^1.x',
    '1.2.3 - 1.4',
    '!=1.2.3',
    '< 2.0.0-0',
    '1.2.3-rc.1+b5',
    'v1.2',
  )
  .map((s) => JSON.stringify(s));
const rawLit = fc.constantFrom('`raw`', '`a b`', '``');
const numLit = fc.constantFrom(
  '0',
  '1',
  '2',
  '3',
  '-1',
  '7',
  '10',
  '2.5',
  '-0.5',
  '1e2',
  '0x1F',
  '0o17',
  '0b101',
  "'a'",
  '1_000',
  '3.0',
);
const fieldPath = fc.constantFrom(
  '.',
  '.str',
  '.num',
  '.int',
  '.flag',
  '.list',
  '.obj',
  '.obj.k',
  '.obj.n.deep',
  '.nil',
  '.empty',
  '.missing',
  '.missing.x',
  '.list.x',
  '.str.x',
  '$',
  '$.obj',
  '.builtin.cluster.name',
  '.builtin.controlPlane.version',
);
const keyword = fc.constantFrom('true', 'false', 'nil');
const variable = fc.constantFrom('$x', '$v', '$i');

type Kind = 's' | 'n' | 'l' | 'm' | 'a' | 're' | 'f';
const sprigFuncs: Record<string, readonly Kind[]> = {
  upper: ['s'], lower: ['s'], title: ['s'], untitle: ['s'], trim: ['s'], trimAll: ['s', 's'], trimPrefix: ['s', 's'],
  trimSuffix: ['s', 's'], repeat: ['n', 's'], substr: ['n', 'n', 's'], nospace: ['s'], trunc: ['n', 's'],
  abbrev: ['n', 's'], abbrevboth: ['n', 'n', 's'], initials: ['s'], contains: ['s', 's'], hasPrefix: ['s', 's'],
  hasSuffix: ['s', 's'], quote: ['a'], squote: ['a'], cat: ['a', 'a'], indent: ['n', 's'], nindent: ['n', 's'],
  replace: ['s', 's', 's'], plural: ['s', 's', 'n'], swapcase: ['s'], toString: ['a'] as const, split: ['s', 's'],
  splitList: ['s', 's'], splitn: ['s', 'n', 's'], join: ['s', 'l'], sortAlpha: ['l'], b64enc: ['s'], b64dec: ['s'],
  b32enc: ['s'], b32dec: ['s'], sha1sum: ['s'], sha256sum: ['s'], adler32sum: ['s'], base: ['s'], dir: ['s'],
  ext: ['s'], clean: ['s'], isAbs: ['s'], regexMatch: ['re', 's'], regexFind: ['re', 's'],
  regexFindAll: ['re', 's', 'n'], regexReplaceAll: ['re', 's', 's'], regexReplaceAllLiteral: ['re', 's', 's'],
  regexSplit: ['re', 's', 'n'], regexQuoteMeta: ['s'], mustRegexMatch: ['re', 's'], semverCompare: ['s', 's'], semver: ['s'],
  add: ['n', 'n'], add1: ['n'], sub: ['n', 'n'], mul: ['n', 'n'], div: ['n', 'n'], mod: ['n', 'n'], max: ['n', 'n'],
  min: ['n', 'n'], floor: ['n'], ceil: ['n'], round: ['n', 'n'], int: ['a'], int64: ['a'], float64: ['a'],
  atoi: ['s'], addf: ['n', 'n'], subf: ['n', 'n'], mulf: ['n', 'n'], divf: ['n', 'n'], maxf: ['n', 'n'],
  minf: ['n', 'n'], seq: ['n', 'n'], until: ['n'], untilStep: ['n', 'n', 'n'], toDecimal: ['s'], biggest: ['n', 'n'],
  list: ['a', 'a'], first: ['l'], last: ['l'], rest: ['l'], initial: ['l'], reverse: ['l'], uniq: ['l'],
  compact: ['l'], append: ['l', 'a'], prepend: ['l', 'a'], has: ['a', 'l'], without: ['l', 'a'],
  chunk: ['n', 'l'], concat: ['l', 'l'], dict: ['s', 'a', 's', 'a'], get: ['m', 's'], hasKey: ['m', 's'],
  keys: ['m'], pick: ['m', 's'], omit: ['m', 's'], merge: ['m', 'm'], mergeOverwrite: ['m', 'm'],
  dig: ['s', 'a', 'm'], pluck: ['s', 'm'], empty: ['a'], default: ['a', 'a'], coalesce: ['a', 'a'],
  ternary: ['a', 'a', 'a'], toJson: ['a'], toPrettyJson: ['a'], toRawJson: ['a'], fromJson: ['s'],
  deepEqual: ['a', 'a'], kindOf: ['a'], typeOf: ['a'], kindIs: ['s', 'a'], typeIs: ['s', 'a'], deepCopy: ['a'],
  toStrings: ['l'], tuple: ['a', 'a'], all: ['a', 'a'], any: ['a', 'a'], mustFirst: ['l'], mustToJson: ['a'],
  fail: ['s'], set: ['m', 's', 'a'], unset: ['m', 's'], sha1: ['s'],
}; // prettier-ignore
const builtinFuncs: Record<string, readonly Kind[]> = {
  print: ['a', 'a'], printf: ['f', 'a'], println: ['a'], len: ['a'], index: ['a', 'n'], eq: ['a', 'a'],
  ne: ['a', 'a'], lt: ['a', 'a'], le: ['n', 'n'], gt: ['a', 'a'], ge: ['n', 'n'], and: ['a', 'a'], or: ['a', 'a'],
  not: ['a'], html: ['s'], js: ['s'], urlquery: ['s'], slice: ['s', 'n', 'n'],
}; // prettier-ignore

const formats = fc
  .constantFrom(
    '%v',
    '%s',
    '%d',
    '%q',
    '%5.2f',
    '%x',
    '%T',
    '%+v',
    '%#v',
    '%08.3f',
    '%-4s|',
    '%t',
    '%e',
    '%g',
    '%v-%v',
    '%%',
    '%!',
    '%[2]v',
  )
  .map((s) => JSON.stringify(s));
const regexLit = fc
  .constantFrom(
    'a',
    '^a',
    '[0-9]+',
    '(a|b)*',
    '\\\\d',
    'x*',
    '',
    '(',
    '.',
    '^v?([0-9]+)\\\\.',
    '(?i)A',
    '\\\\bfoo\\\\b',
    '$',
  )
  .map((s) => `"${s}"`);

const operandsOf = (kind: Kind, expr: fc.Arbitrary<string>): fc.Arbitrary<string> => {
  switch (kind) {
    case 's':
      return fc.oneof({ weight: 3, arbitrary: strLit }, rawLit, fc.constantFrom('.str', '.obj.k', '.empty'), expr);
    case 'n':
      return fc.oneof({ weight: 3, arbitrary: numLit }, fc.constantFrom('.num', '.int', '(len .list)'), expr);
    case 'l':
      return fc.oneof(
        fc.constantFrom('.list', '(list 1 "a" 2)', '(list "b" "a")', '(list)', '(splitList "," "x,y")'),
        expr,
      );
    case 'm':
      return fc.oneof(fc.constantFrom('.obj', '.obj.n', '(dict "a" 1)', '(dict)', '.'), expr);
    case 're':
      return regexLit;
    case 'f':
      return formats;
    case 'a':
      return fc.oneof(strLit, numLit, fieldPath, keyword, expr);
  }
};

export const template = fc.letrec<{ expr: string; pipeline: string; body: string; item: string }>((tie) => {
  const call = (funcs: Record<string, readonly Kind[]>) =>
    fc.constantFrom(...Object.keys(funcs)).chain((name) => {
      const kinds = funcs[name] ?? [];
      return fc
        .tuple(
          fc.integer({ min: 0, max: 8 }), // drop or add an argument now and then, to see arity errors agree
          ...kinds.map((k) =>
            fc.oneof({ weight: 6, arbitrary: operandsOf(k, tie('expr')) }, operandsOf('a', tie('expr'))),
          ),
        )
        .map(([arity, ...args]) => {
          const used = arity === 0 ? args.slice(0, -1) : arity === 1 ? [...args, '1'] : args;
          // NOTE: sprig's keys and values follow Go's random map order; sorted, keys can be compared.
          return [name, ...used].join(' ') + (name === 'keys' ? ' | sortAlpha' : '');
        });
    });
  const funcCall = fc.oneof({ weight: 3, arbitrary: call(sprigFuncs) }, call(builtinFuncs));
  return {
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fieldPath,
      strLit,
      numLit,
      keyword,
      variable,
      funcCall.map((c) => `(${c})`),
      fc
        .tuple(fc.constantFrom('.obj', '(dict "a" (dict "b" 2))', '.list'), fc.constantFrom('.k', '.a', '.a.b', '.n'))
        .map(([a, b]) => `(${a})${b}`),
    ),
    pipeline: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('expr'),
      funcCall,
      fc.tuple(tie('expr'), funcCall).map(([a, c]) => `${a} | ${c}`),
      fc
        .tuple(
          funcCall,
          fc.constantFrom('upper', 'quote', 'len', 'toJson', 'default "d"', 'printf "%v"', 'add1', 'trunc 3'),
        )
        .map(([a, c]) => `${a} | ${c}`),
    ),
    item: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 3, arbitrary: fc.constantFrom('a', ' ', '\n', '-', 'x: ', '}', '{', '  y') },
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom('{{', '{{- ', '{{ '), tie('pipeline'), fc.constantFrom('}}', ' -}}', ' }}'))
          .map(([o, p, c]) => o + p + c),
      },
      fc.tuple(variable, fc.constantFrom(':=', '='), tie('pipeline')).map(([v, op, p]) => `{{ ${v} ${op} ${p} }}`),
      fc
        .tuple(tie('pipeline'), tie('body'), fc.option(tie('pipeline')), fc.option(tie('body')))
        .map(
          ([c, t, ei, e]) =>
            `{{if ${c}}}${t}${ei === null ? '' : `{{else if ${ei}}}`}${e === null ? '' : `{{else}}${e}`}{{end}}`,
        ),
      fc
        .tuple(
          fc.constantFrom('', '$v := ', '$i, $v := '),
          tie('pipeline'),
          tie('body'),
          fc.option(tie('body')),
          fc.constantFrom('', '{{break}}', '{{continue}}'),
        )
        .map(([decl, p, b, e, ctl]) => `{{range ${decl}${p}}}${b}${ctl}${e === null ? '' : `{{else}}${e}`}{{end}}`),
      fc
        .tuple(tie('pipeline'), tie('body'), fc.option(tie('body')))
        .map(([p, b, e]) => `{{with ${p}}}${b}${e === null ? '' : `{{else}}${e}`}{{end}}`),
      fc
        .tuple(tie('body'), fc.constantFrom('.', '.obj', ''))
        .map(([b, arg]) => `{{define "t"}}${b}{{end}}{{template "t" ${arg}}}`),
      fc.tuple(tie('body'), fc.constantFrom('.', '.list')).map(([b, arg]) => `{{block "b" ${arg}}}${b}{{end}}`),
      fc.constantFrom(
        '{{/* c */}}',
        '{{- /* c */ -}}',
        '{{',
        '}}',
        '{{end}}',
        '{{else}}',
        '{{ .a b }}',
        '{{ ( }}',
        '{{ $undefined }}',
        '{{ nosuchfunc }}',
      ),
    ),
    body: fc.array(tie('item'), { maxLength: 3 }).map((items) => items.join('')),
  };
}).body;

// ---- data (JSON, as upstream decodes variables) ---------------------------------------------------------------
const scalar = fc.oneof(
  fc.constantFrom('', 'a', 'Hello', 'x,y', '1.29.0', 'v1.30.1', '42', 'true', '  pad ', 'é'),
  fc.integer({ min: -5, max: 20 }),
  fc.constantFrom(0.5, -2.25, 1e21, 1e-7, 123456789, 3.0, 1.5e6),
  fc.boolean(),
  fc.constant(null),
);
export const data = fc.record(
  {
    str: fc.constantFrom('Hello World', 'a-b', '', 'v1.29.3', 'x'),
    num: fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom(2.5, -0.5, 1e21, 1e-7)),
    int: fc.integer({ min: 0, max: 9 }),
    flag: fc.boolean(),
    list: fc.array(scalar, { maxLength: 4 }),
    obj: fc.record(
      { k: scalar, n: fc.record({ deep: scalar }, { requiredKeys: [] }), z: fc.array(scalar, { maxLength: 2 }) },
      { requiredKeys: [] },
    ),
    nil: fc.constant(null),
    empty: fc.constantFrom('', 0, false),
    builtin: fc.constant({
      cluster: { name: 'c1', namespace: 'ns' },
      controlPlane: { version: 'v1.30.0', replicas: 3 },
    }),
  },
  { requiredKeys: ['str', 'num', 'list', 'obj'] },
);
