// Fuzzing of every parser that takes user input: ClusterClass variable schemas and patterns, CEL rules, Go templates,
// provider components YAML and kubeconfigs. Each case returns or throws our error type (never a TypeError or a
// crash), within a bounded time, and the heap does not run away. Small by default (a few hundred cases, seconds);
// FUZZ_RUNS=<cases per parser> for a long run, FUZZ_CASE_MS=<ms> to change the per-case bound (docs/testing.md, "Fuzzing user input").
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapiError } from '#shared/errors/index.ts';
import { compileRegexp } from '#shared/lang/go/regexp.ts';
import { renderTemplate } from '#shared/lang/gotemplate/index.ts';
import { validateClusterClassVariables, validateClusterVariables } from '#shared/topology/variables/index.ts';
import { parseComponentsYaml } from '#shared/providers/desired/parse-components-yaml.ts';
import { loadKubeConnection } from '#shared/kube/kubeconfig.ts';
import { classVariables, schema as variableSchema, valueFor } from '#test/support/oracles/variables-arbitraries.ts';
import { pattern, inputs } from '#test/support/oracles/regexp-arbitraries.ts';
import { template, data } from '#test/support/oracles/gotemplate-arbitraries.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? '50');
// A bound for runaway work (exponential backtracking, unbounded loops: seconds to minutes), not a speed target: a
// case that takes under 0.5 s on an idle machine took 3 s at load average 42 (2026-11-27), so the bound leaves room.
const CASE_MS = Number(process.env['FUZZ_CASE_MS'] ?? '10000');
const HEAP_GROWTH_MB = 512;
const settings = { numRuns: RUNS, endOnFailure: true };
const heapAtStart = process.memoryUsage().heapUsed;

/** Runs one case: it returns, or throws one of our errors, within CASE_MS. */
function bounded(what: string, run: () => unknown): void {
  const started = performance.now();
  try {
    run();
  } catch (err) {
    if (!(err instanceof CapiError))
      throw new Error(`${what} threw a ${(err as Error)?.name ?? typeof err}`, { cause: err });
  }
  const ms = performance.now() - started;
  assert.ok(ms < CASE_MS, `${what} took ${ms.toFixed(0)} ms`);
}

async function boundedAsync(what: string, run: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  try {
    await run();
  } catch (err) {
    if (!(err instanceof CapiError))
      throw new Error(`${what} threw a ${(err as Error)?.name ?? typeof err}`, { cause: err });
  }
  const ms = performance.now() - started;
  assert.ok(ms < CASE_MS, `${what} took ${ms.toFixed(0)} ms`);
}

/** Fragments that make rules which parse, mixed with noise: loops, nesting, big ranges, string growth. */
const celFragment = fc.constantFrom(
  'self',
  'self.all(x, ',
  'self.exists(y, ',
  'self.map(z, ',
  'self.filter(w, ',
  'x',
  'y',
  ')',
  '(',
  '.size()',
  ' + ',
  ' == ',
  ' && ',
  ' || ',
  ' ? ',
  ' : ',
  '[0]',
  '1',
  '"a"',
  'lists.range(1000000000)',
  'lists.range(1000)',
  '.replace("", "ab")',
  '.join(",")',
  'string(x)',
  '.matches("^(a+)+$")',
  'sets.contains(self, self)',
  '.distinct()',
  '.sortBy(v, v)',
  'self.transformList(i, v, v)',
  'true',
  '!',
  "'",
  '}',
);
/** Rules that compile and cost much on a list: loops in loops, big ranges, growing strings, set operations. */
const heavyRule = fc.constantFrom(
  'self.all(x, self.exists(y, y == x))',
  'self.all(x, self.all(y, self.all(z, true)))',
  'self.map(x, self.map(y, [x, y])).size() > 0',
  'lists.range(1000000).size() > 0',
  'lists.range(999999).all(i, i >= 0)',
  "self.map(x, string(x)).join(',').replace('', 'ab').size() > 0",
  'sets.equivalent(self, self)',
  'self.distinct().size() > 0',
  'self.sortBy(v, v).size() >= 0',
  'self.transformList(i, v, self.size()).size() > 0',
);
const celRule = fc.oneof(
  heavyRule,
  fc.array(celFragment, { maxLength: 12 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 40 }),
);
const celCase = fc.record({
  rule: celRule,
  value: fc.oneof(
    fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 300, size: 'max' }),
    fc.array(fc.string({ maxLength: 20 }), { maxLength: 300, size: 'max' }),
  ),
});

const ERROR_TYPES = [
  'Invalid',
  'Required',
  'Forbidden',
  'Duplicate',
  'NotSupported',
  'TooLong',
  'TooMany',
  'InternalError',
  'TypeInvalid',
];

describe('fuzzing user input', () => {
  after(() => {
    const grownMb = (process.memoryUsage().heapUsed - heapAtStart) / 2 ** 20;
    assert.ok(grownMb < HEAP_GROWTH_MB, `heap grew ${grownMb.toFixed(0)} MiB`);
  });

  test('ClusterClass variable schemas: field errors, never a throw', () => {
    fc.assert(
      fc.property(classVariables, (vars) => {
        bounded('validateClusterClassVariables', () => {
          const errors = validateClusterClassVariables(vars as never);
          for (const e of errors) assert.ok(ERROR_TYPES.includes(e.type), e.type);
        });
      }),
      settings,
    );
  });

  test('Cluster variable values against generated schemas: field errors, never a throw', () => {
    fc.assert(
      fc.property(
        variableSchema.chain((s) => fc.tuple(fc.constant(s), fc.oneof(valueFor(s), fc.jsonValue()))),
        ([s, v]) => {
          const definitions = [
            { name: 'v', definitions: [{ from: 'inline', required: false, schema: { openAPIV3Schema: s } }] },
          ];
          bounded('validateClusterVariables', () =>
            validateClusterVariables([{ name: 'v', value: v as never }], definitions as never),
          );
        },
      ),
      settings,
    );
  });

  test('patterns (Go RE2 syntax): compile and match, or a RegexpSyntaxError', () => {
    fc.assert(
      fc.property(fc.oneof(pattern, fc.string({ maxLength: 30 })), inputs, (p, texts) => {
        bounded('compileRegexp', () => {
          const re = compileRegexp(p);
          for (const t of texts) re.matchString(t);
        });
      }),
      settings,
    );
  });

  test('CEL rules: compiled at ClusterClass validation and run over values, field errors within the cost limit', () => {
    fc.assert(
      fc.property(celCase, ({ rule, value }) => {
        const itemType = typeof value[0] === 'string' ? 'string' : 'integer';
        const s = { type: 'array', items: { type: itemType }, 'x-kubernetes-validations': [{ rule }] } as const;
        bounded('CEL at ClusterClass validation', () =>
          validateClusterClassVariables([{ name: 'v', required: false, schema: { openAPIV3Schema: s } }] as never),
        );
        const definitions = [
          { name: 'v', definitions: [{ from: 'inline', required: false, schema: { openAPIV3Schema: s } }] },
        ];
        bounded('CEL over a value', () =>
          validateClusterVariables([{ name: 'v', value: value as never }], definitions as never),
        );
      }),
      settings,
    );
  });

  test('Go templates: rendered, or a template error, within the template limits', () => {
    const hostile = fc.constantFrom(
      '{{ range until 100000000 }}x{{ end }}',
      '{{ range $i := until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}',
      '{{ repeat 100000000 "x" }}',
      '{{ $s := "ab" }}{{ range until 30 }}{{ $s = cat $s $s }}{{ end }}{{ $s }}',
      '{{ $l := list 1 }}{{ range until 30 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}',
      '{{ regexReplaceAll "" (repeat 3000 "x") (repeat 3000 "y") }}',
      '{{ printf "%*d" 100000000 1 }}',
    );
    fc.assert(
      fc.property(fc.oneof(template, hostile, fc.string({ maxLength: 40 })), data, (t, d) => {
        bounded('renderTemplate', () => renderTemplate('tpl', t, d));
      }),
      settings,
    );
  });

  test('provider components YAML: objects, or a ComponentsParseError', () => {
    const doc = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({
          apiVersion: fc.oneof(fc.constant('v1'), fc.jsonValue()),
          kind: fc.oneof(fc.constant('List'), fc.jsonValue()),
          items: fc.jsonValue(),
        })
        .map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '&a [*a, *a, *a, *a]',
        'a: &x [1]\nb: [*x, *x, *x]',
        '--- !!binary x',
        'a: !!js/function f',
        '? [a]\n: b',
      ),
    );
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 5 }), (docs) => {
        bounded('parseComponentsYaml', () => parseComponentsYaml(docs.join('\n---\n'), 'components.yaml'));
      }),
      settings,
    );
  });

  test('kubeconfigs: a connection, or a KubeconfigError', async () => {
    const name = fc.constantFrom('a', 'b', '');
    const structured = fc
      .record({
        'current-context': name,
        contexts: fc.array(fc.record({ name, context: fc.record({ cluster: name, user: name }) }), { maxLength: 2 }),
        clusters: fc.array(
          fc.record({
            name,
            cluster: fc.record(
              {
                server: fc.oneof(fc.constant('https://127.0.0.1:6443'), fc.string({ maxLength: 20 })),
                'certificate-authority-data': fc.base64String({ maxLength: 20 }),
              },
              { requiredKeys: ['server'] },
            ),
          }),
          { maxLength: 2 },
        ),
        users: fc.array(
          fc.record({ name, user: fc.record({ token: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }) }),
          { maxLength: 2 },
        ),
      })
      .map((k) => JSON.stringify(k));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          structured,
          fc.string({ maxLength: 80 }),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        async (text) => {
          await boundedAsync('loadKubeConnection', () => loadKubeConnection({ kubeconfig: text }, { env: {} }));
        },
      ),
      settings,
    );
  });
});
