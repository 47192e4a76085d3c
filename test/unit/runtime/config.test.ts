// Runtime settings from the environment: defaults, EKS settings and errors that name the variable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { chartFile } from '../../../infra/chart/chart-files.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { computeRuntimeConfig, flowQueueCapacity, kubeconfigSecretExtensionPort } from '#shared/runtime/config.ts';

describe('computeRuntimeConfig', () => {
  test('sweeps once an hour and reads the secret through the extension port by default', () => {
    const config = computeRuntimeConfig({});
    assert.equal(config.sweepIntervalMs, 60 * 60 * 1000);
    assert.equal(config.secretsExtensionPort, kubeconfigSecretExtensionPort);
    assert.equal(config.eks, undefined);
  });

  test('one-time schedules only with both the schedule group and the scheduler role', () => {
    assert.equal(computeRuntimeConfig({}).wakeUps, undefined);
    assert.deepEqual(
      computeRuntimeConfig({ SCHEDULE_GROUP_NAME: 'g', SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/r' })
        .wakeUps,
      { groupName: 'g', roleArn: 'arn:aws:iam::123456789012:role/r' },
    );
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

  test('ExtensionConfig discovery: capi-serverless by default, upstream when asked, nothing else', () => {
    assert.equal(computeRuntimeConfig({}).extensionConfigDiscovery, 'capi-serverless');
    assert.equal(computeRuntimeConfig({ EXTENSION_CONFIG_DISCOVERY: 'upstream' }).extensionConfigDiscovery, 'upstream');
    assert.throws(() => computeRuntimeConfig({ EXTENSION_CONFIG_DISCOVERY: 'both' }), /EXTENSION_CONFIG_DISCOVERY/);
  });

  test("the flow queue capacity is the shipped priority level's handSize × queueLengthLimit", () => {
    const manifest = chartFile('flow-control.yaml');
    const level = parseAllDocuments(readFileSync(manifest, 'utf8'))
      .map(
        (d) => d.toJS() as { kind: string; spec: { limited: { limitResponse: { queuing: Record<string, number> } } } },
      )
      .find((o) => o.kind === 'PriorityLevelConfiguration');
    const queuing = level?.spec.limited.limitResponse.queuing;
    assert.equal(flowQueueCapacity, (queuing?.['handSize'] ?? 0) * (queuing?.['queueLengthLimit'] ?? 0));
  });

  const concurrency: [string, Record<string, string>, number][] = [
    ['caps a controller at the flow queue capacity over the passes per invocation (50)', {}, 50],
    ['derives the cap from TICK_CONCURRENCY', { TICK_CONCURRENCY: '8' }, 25],
    ['never derives a cap below one', { TICK_CONCURRENCY: '500' }, 1],
    ['takes CONTROLLER_CONCURRENCY as set', { CONTROLLER_CONCURRENCY: '12' }, 12],
  ];
  for (const [name, env, expected] of concurrency) {
    test(name, () => assert.equal(computeRuntimeConfig(env).controllerConcurrency, expected));
  }

  const invalid = [
    {
      name: 'rejects a controller concurrency of zero',
      env: { CONTROLLER_CONCURRENCY: '0' },
      field: 'CONTROLLER_CONCURRENCY',
    },
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
      name: 'rejects a schedule group without the role Scheduler invokes the function with',
      env: { SCHEDULE_GROUP_NAME: 'wake-ups' },
      field: 'SCHEDULER_ROLE_ARN',
    },
    {
      name: 'rejects a scheduler role without the schedule group',
      env: { SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/r' },
      field: 'SCHEDULE_GROUP_NAME',
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
