import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Provider, ProviderKind } from '#shared/api/operator.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import { validateProvider, validateProviderIsSingle } from '#shared/webhooks/rules/provider-rules.ts';
import { deepFreeze } from '#test/builders/topology.ts';

const provider = (kind: ProviderKind, namespace: string, name: string, spec: Record<string, unknown> = {}): Provider =>
  deepFreeze({
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
    kind,
    metadata: { namespace, name },
    spec,
  } as Provider);

describe('validateProvider', () => {
  const cases: [string, Provider, string[]][] = [
    ['accepts the core provider named cluster-api', provider('CoreProvider', 'capi-system', 'cluster-api'), []],
    [
      'refuses a core provider with another name',
      provider('CoreProvider', 'capi-system', 'core', { fetchConfig: { url: 'https://example.com/r' } }),
      ['metadata.name: Invalid value: "core": Incorrect CoreProvider name: core. It should be cluster-api'],
    ],
    [
      'refuses an unknown provider without a fetch source',
      provider('InfrastructureProvider', 'x', 'my-cloud'),
      [
        'spec.fetchConfig: Required value: Either Selector, OCI URL or provider URL must be provided for InfrastructureProvider x/my-cloud, which is not a predefined provider',
      ],
    ],
    [
      'accepts an unknown provider fetched from ConfigMaps',
      provider('InfrastructureProvider', 'x', 'my-cloud', { fetchConfig: { selector: { matchLabels: { p: 'x' } } } }),
      [],
    ],
    ['accepts a well-known provider without a fetch source', provider('InfrastructureProvider', 'x', 'aws'), []],
    [
      'refuses a version that is not semantic',
      provider('InfrastructureProvider', 'x', 'aws', { version: 'latest' }),
      ['spec.version: Invalid value: "latest": must be a semantic version'],
    ],
  ];
  for (const [name, p, expected] of cases) {
    test(name, () => assert.deepEqual(formatFieldErrors(validateProvider(p)), expected));
  }
});

describe('validateProviderIsSingle', () => {
  const core = provider('CoreProvider', 'capi-system', 'cluster-api');
  const cases: [string, Provider, Provider[], string[]][] = [
    ['accepts the first core provider', core, [], []],
    ['accepts an update of the same core provider', core, [core], []],
    [
      'refuses a second core provider',
      provider('CoreProvider', 'other', 'cluster-api'),
      [core],
      [
        'metadata.name: Forbidden: CoreProvider capi-system/cluster-api already exists in the cluster. Only one is allowed.',
      ],
    ],
    [
      'refuses a provider of one kind and name in a second namespace',
      provider('InfrastructureProvider', 'b', 'aws'),
      [provider('InfrastructureProvider', 'a', 'aws')],
      [
        'metadata.name: Forbidden: There is already a InfrastructureProvider a/aws in the cluster. Only one InfrastructureProvider named aws is allowed.',
      ],
    ],
    [
      'accepts providers of one kind with different names',
      provider('InfrastructureProvider', 'b', 'docker'),
      [provider('InfrastructureProvider', 'a', 'aws')],
      [],
    ],
  ];
  for (const [name, p, existing, expected] of cases) {
    test(name, () => assert.deepEqual(formatFieldErrors(validateProviderIsSingle(p, existing)), expected));
  }
});
