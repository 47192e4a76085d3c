// Runtime settings from the environment: defaults, EKS settings and errors that name the variable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '#shared/errors/index.ts';
import { computeRuntimeConfig, kubeconfigSecretExtensionPort } from '#shared/runtime/config.ts';

describe('computeRuntimeConfig', () => {
  test('sweeps once an hour and reads the secret through the extension port by default', () => {
    const config = computeRuntimeConfig({});
    assert.equal(config.sweepIntervalMs, 60 * 60 * 1000);
    assert.equal(config.secretsExtensionPort, kubeconfigSecretExtensionPort);
    assert.equal(config.eks, undefined);
  });

  test('reads the EKS cluster name, endpoint and CA', () => {
    const config = computeRuntimeConfig({
      EKS_CLUSTER_NAME: 'mgmt',
      EKS_CLUSTER_ENDPOINT: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
      EKS_CLUSTER_CA_DATA: 'Y2E=',
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2999',
    });
    assert.deepEqual(config.eks, {
      clusterName: 'mgmt',
      endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
      caData: 'Y2E=',
    });
    assert.equal(config.secretsExtensionPort, 2999);
  });

  test('provider downloads: no allow-listed host and GitLab on gitlab.com unless configured', () => {
    assert.deepEqual(computeRuntimeConfig({}).providerFetch, { allowedHosts: [], gitlabHosts: ['gitlab.com'] });
    assert.deepEqual(
      computeRuntimeConfig({
        PROVIDER_FETCH_ALLOWED_HOSTS: ' registry.internal:5000, 10.0.0.7 ,',
        PROVIDER_GITLAB_HOSTS: 'gitlab.com,gitlab.example.com',
      }).providerFetch,
      { allowedHosts: ['registry.internal:5000', '10.0.0.7'], gitlabHosts: ['gitlab.com', 'gitlab.example.com'] },
    );
  });

  const invalid = [
    {
      name: 'rejects an EKS endpoint without a cluster name',
      env: { EKS_CLUSTER_ENDPOINT: 'https://x.example' },
      field: 'EKS_CLUSTER_NAME',
    },
    {
      name: 'rejects an EKS endpoint that is not a URL',
      env: { EKS_CLUSTER_NAME: 'm', EKS_CLUSTER_ENDPOINT: 'x' },
      field: 'EKS_CLUSTER_ENDPOINT',
    },
    {
      name: 'rejects a sweep interval that is not a number',
      env: { SWEEP_INTERVAL_MS: 'hourly' },
      field: 'SWEEP_INTERVAL_MS',
    },
  ];
  for (const c of invalid) {
    test(c.name, () => {
      assert.throws(
        () => computeRuntimeConfig(c.env),
        (err: unknown) => err instanceof ValidationError && err.message.includes(c.field),
      );
    });
  }
});
