import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeMetadataContract,
  computeReleaseSeries,
  parseMetadataYaml,
} from '#shared/providers/desired/compute-metadata-contract.ts';
import {
  ComponentsParseError,
  InvalidVersionError,
  ReleaseSeriesNotFoundError,
  UnsupportedContractError,
} from '#shared/providers/desired/provider-components-error.ts';
import { deepFreeze, metadataYaml } from '#test/support/fixtures/providers.ts';

const metadata = deepFreeze(parseMetadataYaml(metadataYaml, 'metadata.yaml'));
const who = { kind: 'InfrastructureProvider', namespace: 'capd-ops', name: 'docker' };

describe('computeMetadataContract', () => {
  const cases: ReadonlyArray<{ name: string; version: string; want: string }> = [
    { name: 'finds the contract of a release', version: 'v1.9.0', want: 'v1beta1' },
    { name: 'finds the contract of a patch release', version: 'v1.8.12', want: 'v1beta1' },
    { name: 'finds the contract of a pre-release', version: 'v1.9.0-rc.1', want: 'v1beta1' },
    { name: 'accepts a version without the v prefix', version: '1.9.3', want: 'v1beta1' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(computeMetadataContract(metadata, c.version, who), c.want));

  test('refuses a version outside every release series, naming provider and version', () => {
    assert.throws(
      () => computeMetadataContract(metadata, 'v1.10.0', who),
      (err: unknown) =>
        err instanceof ReleaseSeriesNotFoundError &&
        err.reason === 'CAPIVersionIncompatibility' &&
        err.message ===
          'invalid provider metadata: version v1.10.0 for the provider docker does not match any release series (InfrastructureProvider capd-ops/docker)',
    );
  });

  test('refuses a release series with an unsupported contract', () => {
    assert.throws(
      () => computeMetadataContract(metadata, 'v0.4.7', who),
      (err: unknown) =>
        err instanceof UnsupportedContractError &&
        err.message.startsWith(
          'CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider docker. ',
        ) &&
        /v0\.4\.7.*"v1alpha4"/.test(err.message),
    );
  });

  test('accepts a contract the caller supports', () => {
    assert.equal(computeMetadataContract(metadata, 'v0.4.7', who, ['v1alpha4']), 'v1alpha4');
  });

  test('refuses a version that is not semantic', () => {
    assert.throws(
      () => computeMetadataContract(metadata, 'latest', who),
      (err: unknown) => err instanceof InvalidVersionError && err.fieldPath === 'spec.version',
    );
  });

  test('returns undefined release series for an unparsable version', () => {
    assert.equal(computeReleaseSeries(metadata, 'v1'), undefined);
  });
});

describe('parseMetadataYaml', () => {
  test('reads the release series', () => {
    assert.deepEqual(metadata.releaseSeries?.[1], { major: 1, minor: 8, contract: 'v1beta1' });
  });

  test('names the source when the kind is wrong', () => {
    assert.throws(
      () => parseMetadataYaml('apiVersion: v1\nkind: ConfigMap\n', 'metadata.yaml of docker'),
      (err: unknown) => err instanceof ComponentsParseError && /metadata\.yaml of docker/.test(err.message),
    );
  });
});
