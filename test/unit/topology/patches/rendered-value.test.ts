import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRenderedValue, patchIsEnabled, RenderedValueError } from '#shared/topology/patches/index.ts';
import { readFixture } from '#test/support/fixtures/topology/patches.ts';

// Golden outputs from Go: sigs.k8s.io/yaml.Unmarshal into apiextensionsv1.JSON (see the fixture's yaml-golden/).
const golden = JSON.parse(readFixture('rendered-yaml-golden.json')) as {
  rendered: string;
  json?: string;
  error?: boolean;
}[];

describe('parseRenderedValue matches upstream (Go golden)', () => {
  for (const g of golden) {
    if (g.error === true) {
      test(`rejects ${JSON.stringify(g.rendered)} like Go`, () => {
        assert.throws(() => parseRenderedValue(g.rendered), RenderedValueError);
      });
    } else {
      test(`parses ${JSON.stringify(g.rendered)} to ${g.json ?? ''}`, () => {
        assert.deepEqual(parseRenderedValue(g.rendered), JSON.parse(g.json ?? 'null'));
      });
    }
  }
});

describe('patchIsEnabled', () => {
  const table: [string, string, boolean][] = [
    ['is enabled by a rendered true', '{{ .flag }}', true],
    ['is enabled by true with whitespace around it', '  {{ .flag }}\n', true],
    ['is enabled by YAML 1.1 yes', 'yes', true],
    ['is enabled by True', 'True', true],
    ['is disabled by false', '{{ not .flag }}', false],
    ['is disabled by a quoted "true"', '"true"', false],
    ['is disabled by an empty rendering', '{{ if not .flag }}true{{ end }}', false],
    ['is disabled by <no value> for a missing variable', '{{ .missing }}', false],
    ['is disabled by 1', '1', false],
  ];
  const variables = new Map<string, unknown>([['flag', true]]);
  for (const [name, enabledIf, expected] of table) {
    test(name, () => assert.equal(patchIsEnabled(enabledIf, variables), expected));
  }
  test('is enabled without enabledIf', () => assert.equal(patchIsEnabled(undefined, variables), true));
});
