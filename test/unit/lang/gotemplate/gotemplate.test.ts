import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  TemplateExecError,
  TemplateParseError,
  executeTemplate,
  parseTemplate,
  renderTemplate,
  unsupportedSprigFuncs,
} from '#shared/lang/gotemplate/index.ts';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const builtin = deepFreeze({
  builtin: {
    cluster: { name: 'c1', topology: { version: 'v1.30.1' } },
    machineDeployment: { topologyName: 'md-0', replicas: 3 },
  },
  labels: { b: '2', a: '1' },
});

describe('renderTemplate', () => {
  const cases: { name: string; text: string; want: string; options?: Parameters<typeof renderTemplate>[3] }[] = [
    {
      name: 'renders a naming template with builtins only',
      text: '{{ .builtin.cluster.name }}-{{ .builtin.machineDeployment.topologyName }}',
      want: 'c1-md-0',
      options: { functions: 'builtin', missingKey: 'error' },
    },
    {
      name: 'prints a JSON number the way Go prints float64',
      text: '{{ .builtin.machineDeployment.replicas }}',
      want: '3',
    },
    {
      name: 'ranges over a map in sorted key order',
      text: '{{ range $k, $v := .labels }}{{ $k }}={{ $v }} {{ end }}',
      want: 'a=1 b=2 ',
    },
    {
      name: 'compares a semver constraint',
      text: '{{ semverCompare ">=1.29" .builtin.cluster.topology.version }}',
      want: 'true',
    },
    { name: 'prints a missing key as <no value>', text: '{{ .nope }}', want: '<no value>' },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(renderTemplate('tpl', c.text, builtin, c.options), c.want));
  }

  test('does not mutate its input even when the template calls set', () => {
    const data = deepFreeze({ m: { a: 1 } });
    assert.equal(renderTemplate('tpl', '{{ $_ := set .m "b" 2 }}{{ .m }}', data), 'map[a:1 b:2]');
    assert.deepEqual(data, { m: { a: 1 } });
  });
});

describe('errors', () => {
  test('a parse error carries the line and column', () => {
    assert.throws(
      () => parseTemplate('enabledIf', 'line one\n{{ if }}'),
      (err: unknown) =>
        err instanceof TemplateParseError &&
        err.line === 2 &&
        err.templateName === 'enabledIf' &&
        err.message.startsWith('template: enabledIf:2:'),
    );
  });

  test('an exec error names the template and the action', () => {
    assert.throws(
      () => renderTemplate('names', '{{ .cluster.name }}', {}, { functions: 'builtin', missingKey: 'error' }),
      (err: unknown) =>
        err instanceof TemplateExecError &&
        err.templateName === 'names' &&
        /map has no entry for key "cluster"/.test(err.message),
    );
  });

  test('a sprig function the evaluator does not implement fails naming it', () => {
    for (const name of unsupportedSprigFuncs) {
      assert.throws(
        () => renderTemplate('tpl', `{{ ${name} }}`, {}),
        (err: unknown) => err instanceof TemplateExecError && err.message.includes(`"${name}" is not supported`),
        name,
      );
    }
  });

  test('functions that need the clock or randomness are not defined at all', () => {
    for (const name of ['now', 'randAlpha', 'uuidv4', 'env']) {
      assert.throws(() => parseTemplate('tpl', `{{ ${name} }}`), TemplateParseError, name);
    }
  });
});

describe('properties', () => {
  const atoms = [
    '.a',
    '.b',
    '.l',
    '.m',
    '.missing',
    '$',
    '1',
    '2.5',
    '"s"',
    'true',
    'nil',
    '(list 1 "x")',
    '(dict "k" .a)',
  ];
  const funcs = [
    'len',
    'not',
    'upper',
    'quote',
    'toJson',
    'first',
    'default "d"',
    'eq .a',
    'lt 1',
    'index .l',
    'printf "%v %d"',
    'add 1',
    'toString',
    'and .b',
    'or .b',
    'empty',
  ];
  const pipeline = fc
    .tuple(fc.constantFrom(...atoms), fc.array(fc.constantFrom(...funcs), { maxLength: 3 }))
    .map(([a, fs]) => [a, ...fs].join(' | '));
  const action = fc.oneof(
    pipeline.map((p) => `{{ ${p} }}`),
    pipeline.map((p) => `{{ if ${p} }}y{{ else }}n{{ end }}`),
    pipeline.map((p) => `{{ range $i, $e := ${p} }}{{ $i }}{{ $e }}{{ end }}`),
    pipeline.map((p) => `{{ with ${p} }}{{ . }}{{ end }}`),
    fc.constantFrom('{{- " " -}}', '{{/* c */}}', 'text', '{{', '}}', '{{ end }}', '{{ $x := 1 }}{{ $x }}'),
  );
  const template = fc.array(action, { maxLength: 4 }).map((parts) => parts.join(''));
  const data = fc.record({
    a: fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null)),
    b: fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    l: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
    m: fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 3 }),
  });

  test('only typed errors escape, and rendering twice gives the same output', () => {
    fc.assert(
      fc.property(template, data, (text, input) => {
        const frozen = deepFreeze(input);
        let tpl;
        try {
          tpl = parseTemplate('prop', text);
        } catch (err) {
          assert.ok(err instanceof TemplateParseError, `unexpected ${String(err)}`);
          return;
        }
        const run = (): string | Error => {
          try {
            return executeTemplate(tpl, frozen);
          } catch (err) {
            assert.ok(err instanceof TemplateExecError, `unexpected ${String(err)} for ${text}`);
            return err;
          }
        };
        const first = run();
        const second = run();
        if (typeof first === 'string') assert.equal(second, first);
        else assert.ok(second instanceof TemplateExecError && second.message === first.message);
      }),
      { numRuns: 500 },
    );
  });
});
