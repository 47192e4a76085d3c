import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseComponentsYaml } from '#shared/providers/desired/parse-components-yaml.ts';
import { ComponentsParseError } from '#shared/providers/desired/provider-components-error.ts';
import { componentsYaml } from '#test/support/fixtures/providers.ts';

describe('parseComponentsYaml', () => {
  test('parses every document of the fixture in order', () => {
    const objs = parseComponentsYaml(componentsYaml, 'fixture');
    assert.equal(objs.length, 13);
    assert.deepEqual(
      objs.slice(0, 3).map((o) => o.kind),
      ['Namespace', 'CustomResourceDefinition', 'ServiceAccount'],
    );
  });

  test('skips empty documents and comments', () => {
    assert.equal(parseComponentsYaml('---\n# nothing\n---\napiVersion: v1\nkind: ConfigMap\n---\n', 'x').length, 1);
  });

  test('flattens a List', () => {
    const objs = parseComponentsYaml(
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: a}\n',
      'x',
    );
    assert.deepEqual(
      objs.map((o) => o.metadata.name),
      ['a'],
    );
  });

  const errors: ReadonlyArray<{ name: string; text: string; want: RegExp }> = [
    {
      name: 'names the source and document of a YAML syntax error',
      text: 'apiVersion: v1\nkind: A\n---\na: [\n',
      want: /^failed to parse YAML from components\.yaml: document 2: /,
    },
    {
      name: 'refuses a document without kind',
      text: 'apiVersion: v1\nmetadata: {}\n',
      want: /document 1: Object 'Kind' is missing/,
    },
    {
      name: 'refuses a document without apiVersion',
      text: 'kind: Secret\n',
      want: /document 1: Object 'apiVersion' is missing in Secret/,
    },
    { name: 'refuses a scalar document', text: 'just text\n', want: /document 1: expected a mapping, got string/ },
  ];
  for (const c of errors) {
    test(c.name, () =>
      assert.throws(
        () => parseComponentsYaml(c.text, 'components.yaml'),
        (err: unknown) => err instanceof ComponentsParseError && c.want.test(err.message),
      ),
    );
  }
});
