import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'yaml';
import { ResourceParseError } from '#shared/addons/desired/resource-data.ts';
import { computeResourceObjects, isJSONList, splitYamlDocuments } from '#shared/addons/desired/resource-objects.ts';
import { configMap, deepFreeze, readFixture, secret } from '#test/support/fixtures/addons.ts';

const summary = (objects: ReturnType<typeof computeResourceObjects>) =>
  objects.map((o) => {
    const meta = o.object['metadata'] as { name?: string; namespace?: string };
    return `${o.source.key}#${o.source.documentIndex} ${String(o.object['kind'])} ${meta.namespace}/${meta.name}${o.namespaceDefaulted ? ' (defaulted)' : ''}`;
  });

describe('computeResourceObjects', () => {
  const calico = parse(readFixture('calico-addon.yaml')) as { data: Record<string, string> };

  const cases: { name: string; content: ReturnType<typeof configMap>; want: string[] }[] = [
    {
      name: 'reads keys in sorted order, splits multi-document YAML, skips empty documents and puts Namespaces first',
      content: configMap('calico-addon', calico.data),
      want: [
        'calico1.yaml#1 Namespace default/mysecrets (defaulted)',
        'calico1.yaml#0 Secret mysecrets/calico-secret1',
        'calico1.yaml#3 Secret default/calico-secret2 (defaulted)',
        'calico2.yaml#0 ConfigMap myconfigmaps/calico-configmap',
      ],
    },
    {
      name: 'gives the items of a JSON list in order',
      content: configMap('json', {
        'list.json':
          '  \n[{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"a","namespace":"x"}},{"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"b","namespace":"x"}}]',
      }),
      want: ['list.json#0 ServiceAccount x/a', 'list.json#1 Role x/b'],
    },
    {
      name: 'reads a JSON object as one document',
      content: configMap('json', {
        'obj.json': '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"j","namespace":"x"}}',
      }),
      want: ['obj.json#0 ConfigMap x/j'],
    },
    {
      name: 'decodes Secret values from base64 before parsing',
      content: secret('db', {
        'db.yaml': 'kind: Secret\napiVersion: v1\nmetadata:\n  name: mysql-access\n  namespace: system\n',
      }),
      want: ['db.yaml#0 Secret system/mysql-access'],
    },
    {
      name: 'keeps a leading --- and CRLF line endings working',
      content: configMap('crlf', {
        'a.yaml':
          '---\r\nkind: A\r\nmetadata:\r\n  name: a\r\n  namespace: x\r\n--- # next\r\nkind: B\r\nmetadata:\r\n  name: b\r\n  namespace: x\r\n',
      }),
      want: ['a.yaml#0 A x/a', 'a.yaml#1 B x/b'],
    },
    {
      name: 'treats a blank namespace like a missing one',
      content: configMap('blank', { 'a.yaml': 'kind: A\nmetadata:\n  name: a\n  namespace: ""\n' }),
      want: ['a.yaml#0 A default/a (defaulted)'],
    },
    {
      name: 'gives nothing for a value holding only comments',
      content: configMap('empty', { 'a.yaml': '# nothing to see\n' }),
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(summary(computeResourceObjects(c.content)), c.want);
    });
  }

  test('does not touch the manifest beyond the defaulted namespace', () => {
    const [only] = computeResourceObjects(
      configMap('one', {
        'a.yaml': 'kind: A\napiVersion: v1\nmetadata:\n  name: a\n  labels: {x: "1"}\nspec:\n  replicas: 3\n',
      }),
    );
    assert.deepEqual(only?.object, {
      kind: 'A',
      apiVersion: 'v1',
      metadata: { name: 'a', labels: { x: '1' }, namespace: 'default' },
      spec: { replicas: 3 },
    });
  });

  test('reads YAML 1.1 as go-yaml v2 does (y/n/on/yes are booleans, 010 is octal) but keeps timestamps as strings', () => {
    const [only] = computeResourceObjects(
      configMap('y', {
        'a.yaml':
          'kind: A\nmetadata: {name: a, namespace: x}\nspec: {on: yes, n: 1, flag: y, when: 2001-12-14, mode: 010}\n',
      }),
    );
    assert.deepEqual(only?.object['spec'], { true: true, false: 1, flag: true, when: '2001-12-14', mode: 8 });
  });

  const errors: {
    name: string;
    content: ReturnType<typeof configMap>;
    message: RegExp;
    key: string | undefined;
    documentIndex: number | undefined;
  }[] = [
    {
      name: 'names the ConfigMap, key and document of invalid YAML',
      content: configMap('broken', {
        'good.yaml': 'kind: A\nmetadata: {name: a}\n',
        'bad.yaml': 'kind: A\nmetadata: {name: a}\n---\nkind: [unclosed\n',
      }),
      message: /^failed to parse ConfigMap ns\/broken key "bad\.yaml" document 2: invalid YAML: /,
      key: 'bad.yaml',
      documentIndex: 1,
    },
    {
      name: 'rejects a document that is a list rather than an object',
      content: configMap('list', { 'a.yaml': '- a\n- b\n' }),
      message: /key "a\.yaml" document 1: invalid YAML: cannot unmarshal a list into an object/,
      key: 'a.yaml',
      documentIndex: 0,
    },
    {
      name: 'rejects text after a --- separator as upstream does',
      content: configMap('sep', { 'a.yaml': 'kind: A\n--- foo\nkind: B\n' }),
      message: /key "a\.yaml": failed to read yaml: invalid Yaml document separator: foo$/,
      key: 'a.yaml',
      documentIndex: undefined,
    },
    {
      name: 'rejects an unparsable JSON list instead of silently applying nothing',
      content: configMap('json', { 'a.json': '[{"kind": "A"},' }),
      message: /key "a\.json": invalid JSON list: /,
      key: 'a.json',
      documentIndex: undefined,
    },
    {
      name: 'rejects an unresolved alias as invalid YAML (found by the property test)',
      content: configMap('alias', { 'a.yaml': '*!' }),
      message: /key "a\.yaml" document 1: invalid YAML: Unresolved alias/,
      key: 'a.yaml',
      documentIndex: 0,
    },
    {
      name: 'rejects .inf, which JSON cannot carry',
      content: configMap('inf', { 'a.yaml': 'kind: A\nspec: {limit: .inf}\n' }),
      message: /invalid YAML: unsupported value Infinity at \.spec\.limit/,
      key: 'a.yaml',
      documentIndex: 0,
    },
    {
      name: 'rejects a ConfigMap without data, as upstream does',
      content: configMap('nodata', undefined),
      message: /^failed to parse ConfigMap ns\/nodata: failed to get data field from resource$/,
      key: undefined,
      documentIndex: undefined,
    },
    {
      name: 'rejects a Secret value that is not base64',
      content: deepFreeze({
        kind: 'Secret',
        namespace: 'ns',
        name: 's',
        type: 'addons.cluster.x-k8s.io/resource-set',
        data: { 'a.yaml': 'not base64!' },
      }),
      message: /^failed to parse Secret ns\/s key "a\.yaml": value is not valid base64$/,
      key: 'a.yaml',
      documentIndex: undefined,
    },
  ];
  for (const c of errors) {
    test(c.name, () => {
      assert.throws(
        () => computeResourceObjects(c.content),
        (err: unknown) => {
          assert.ok(err instanceof ResourceParseError, `got ${String(err)}`);
          assert.match(err.message, c.message);
          assert.equal(err.key, c.key);
          assert.equal(err.documentIndex, c.documentIndex);
          assert.equal(err.objectName, c.content.name);
          assert.equal(err.kind, c.content.kind);
          return true;
        },
      );
    });
  }

  test('property: only ResourceParseError escapes and computing twice gives the same objects', () => {
    const value = fc.oneof(
      fc.string(),
      fc
        .array(
          fc.constantFrom(
            'kind: A',
            'metadata:',
            '  name: a',
            '---',
            '--- x',
            '- item',
            '[',
            '{"kind":"B"}',
            'a: [1',
            '  ',
            '# c',
            'on: yes',
            '*a',
            'x: &a {k: 1}',
            '<<: *a',
            '!!binary aGk=',
            'k: !!set {a}',
            'n: .inf',
          ),
          { maxLength: 8 },
        )
        .map((lines) => lines.join('\n')),
      fc.json(),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a.yaml', 'b.json', 'c'), value, { maxKeys: 3 }), (data) => {
        const content = configMap('prop', data);
        let first: unknown;
        try {
          first = computeResourceObjects(content);
        } catch (err) {
          assert.ok(err instanceof ResourceParseError, `untyped error: ${String(err)}`);
          assert.throws(() => computeResourceObjects(content), ResourceParseError);
          return;
        }
        assert.deepEqual(computeResourceObjects(content), first);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('splitYamlDocuments', () => {
  const cases: { name: string; text: string; want: ReturnType<typeof splitYamlDocuments> }[] = [
    { name: 'splits on --- lines', text: 'a: 1\n---\nb: 2\n', want: { documents: ['a: 1\n', 'b: 2\n'] } },
    { name: 'keeps a leading --- in the first document', text: '---\na: 1\n', want: { documents: ['---\na: 1\n'] } },
    { name: 'terminates the last line', text: 'a: 1', want: { documents: ['a: 1\n'] } },
    {
      name: 'allows a comment after the separator',
      text: 'a: 1\n--- # two\nb: 2',
      want: { documents: ['a: 1\n', 'b: 2\n'] },
    },
    {
      name: 'does not split on an indented ---',
      text: 'a: |\n  ---\n  x\n',
      want: { documents: ['a: |\n  ---\n  x\n'] },
    },
    {
      name: 'reports text after the separator',
      text: 'a: 1\n---- \nb: 2',
      want: { error: 'invalid Yaml document separator: -' },
    },
    { name: 'gives nothing for an empty value', text: '', want: { documents: [] } },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(splitYamlDocuments(c.text), c.want));
});

describe('isJSONList', () => {
  const cases: { name: string; text: string; want: boolean }[] = [
    { name: 'sees a list after leading whitespace', text: ' \n\t[{}]', want: true },
    { name: 'does not see a JSON object as a list', text: '{"a": []}', want: false },
    { name: 'only looks at the first 32 bytes, like upstream', text: `${' '.repeat(32)}[]`, want: false },
    { name: 'sees a list starting at byte 31', text: `${' '.repeat(31)}[]`, want: true },
  ];
  for (const c of cases) test(c.name, () => assert.equal(isJSONList(c.text), c.want));
});
