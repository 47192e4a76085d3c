import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import {
  computeFeatureGateConflict,
  type ExtensionConfigDiscovery,
} from '#shared/providers/desired/compute-feature-gate-conflict.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';

function deployment(name: string, args: string[]): ComponentObject {
  return Object.freeze({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'capi-system' },
    spec: { template: { spec: { containers: [{ name: 'manager', args }] } } },
  });
}
const core = (gates: string) => [deployment('capi-controller-manager', ['--leader-elect', `--feature-gates=${gates}`])];

describe('computeFeatureGateConflict', () => {
  const cases: [string, ProviderKind, readonly ComponentObject[], ExtensionConfigDiscovery, string | undefined][] = [
    [
      'no conflict with the default gates',
      'CoreProvider',
      core('MachinePool=true,ClusterTopology=false'),
      'capi-serverless',
      undefined,
    ],
    [
      'InPlaceUpdates without RuntimeSDK cannot start the core manager',
      'CoreProvider',
      core('ClusterTopology=false,RuntimeSDK=false,InPlaceUpdates=true'),
      'capi-serverless',
      'InPlaceUpdatesRequiresRuntimeSDK',
    ],
    [
      'InPlaceUpdates with RuntimeSDK not named is off too (upstream default)',
      'CoreProvider',
      core('InPlaceUpdates=true'),
      'upstream',
      'InPlaceUpdatesRequiresRuntimeSDK',
    ],
    [
      'RuntimeSDK on while capi-serverless discovers: two writers',
      'CoreProvider',
      core('RuntimeSDK=true,InPlaceUpdates=true'),
      'capi-serverless',
      'TwoExtensionConfigWriters',
    ],
    [
      'RuntimeSDK on with discovery left to upstream: fine',
      'CoreProvider',
      core('RuntimeSDK=true,InPlaceUpdates=true'),
      'upstream',
      undefined,
    ],
    [
      'discovery left to upstream with RuntimeSDK off: no writer',
      'CoreProvider',
      core('RuntimeSDK=false'),
      'upstream',
      'NoExtensionConfigWriter',
    ],
    [
      'other providers are not checked',
      'ControlPlaneProvider',
      core('InPlaceUpdates=true'),
      'capi-serverless',
      undefined,
    ],
    ['components without a manager Deployment are not checked', 'CoreProvider', [], 'upstream', undefined],
  ];
  for (const [name, kind, objects, discovery, want] of cases) {
    test(name, () => {
      assert.equal(computeFeatureGateConflict(kind, objects, discovery)?.reason, want);
    });
  }

  test('reads the manager container of the -controller-manager Deployment', () => {
    const objects = [
      deployment('other', ['--feature-gates=InPlaceUpdates=true']),
      deployment('capi-controller-manager', ['--feature-gates=RuntimeSDK=true,InPlaceUpdates=true']),
    ];
    assert.equal(computeFeatureGateConflict('CoreProvider', objects, 'upstream'), undefined);
  });
});
