import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeInputsHash, computeStableJson } from '#shared/providers/desired/compute-inputs-hash.ts';
import type { ProviderComponentsInput } from '#shared/providers/desired/compute-provider-components.ts';
import { componentsYaml, deepFreeze, provider } from '#test/support/fixtures/providers.ts';

const base: ProviderComponentsInput = deepFreeze({
  provider: provider({ manager: { verbosity: 2 } }),
  version: 'v1.9.0',
  componentsYaml,
  configVariables: { A: '1', B: '2' },
});

describe('computeInputsHash', () => {
  test('is a sha256 digest', () => assert.match(computeInputsHash(base), /^sha256:[0-9a-f]{64}$/));

  const same: ReadonlyArray<{ name: string; input: ProviderComponentsInput }> = [
    { name: 'ignores the order of config variables', input: { ...base, configVariables: { B: '2', A: '1' } } },
    {
      name: 'ignores spec.paused',
      input: { ...base, provider: provider({ manager: { verbosity: 2 }, paused: true }) },
    },
    {
      name: 'ignores status and resourceVersion',
      input: {
        ...base,
        provider: {
          ...base.provider,
          metadata: { ...base.provider.metadata, resourceVersion: '9' },
          status: { installedVersion: 'v1.8.0' },
        },
      },
    },
  ];
  for (const c of same) test(c.name, () => assert.equal(computeInputsHash(c.input), computeInputsHash(base)));

  const different: ReadonlyArray<{ name: string; input: ProviderComponentsInput }> = [
    { name: 'changes with the version', input: { ...base, version: 'v1.9.1' } },
    { name: 'changes with the components text', input: { ...base, componentsYaml: `${componentsYaml}\n` } },
    { name: 'changes with a config variable', input: { ...base, configVariables: { A: '1', B: '3' } } },
    { name: 'changes with the manager spec', input: { ...base, provider: provider({ manager: { verbosity: 3 } }) } },
    { name: 'changes with additional manifests', input: { ...base, additionalManifestsYaml: 'kind: X' } },
    { name: 'changes with image overrides', input: { ...base, imageOverrides: { all: { tag: 'v2' } } } },
  ];
  for (const c of different) test(c.name, () => assert.notEqual(computeInputsHash(c.input), computeInputsHash(base)));
});

describe('computeStableJson', () => {
  test('sorts keys at every level and drops undefined members', () => {
    assert.equal(computeStableJson({ b: 1, a: [{ d: 2, c: undefined }], e: undefined }), '{"a":[{"d":2}],"b":1}');
  });
});
