import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import {
  computeDefaultedVersion,
  UnsafeAnnotations,
  validateClusterUpdate,
  validateTopologyVersionChange,
  validateTopologyVersionFormat,
  validateVersionInClusterClass,
} from '#shared/webhooks/rules/cluster-rules.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

describe('validateTopologyVersionChange', () => {
  const cases: [string, string, string, string[]][] = [
    ['accepts the same version', 'v1.29.0', 'v1.29.0', []],
    ['accepts a patch upgrade', 'v1.29.0', 'v1.29.3', []],
    ['accepts a one-minor upgrade', 'v1.29.3', 'v1.30.0', []],
    ['accepts a one-minor upgrade to a pre-release', 'v1.29.3', 'v1.30.0-rc.1', []],
    [
      'refuses a patch downgrade',
      'v1.29.3',
      'v1.29.2',
      ['spec.topology.version: Invalid value: "v1.29.2": version cannot be decreased from "1.29.3" to "1.29.2"'],
    ],
    [
      'refuses a downgrade of build metadata',
      'v1.29.0+build.2',
      'v1.29.0+build.1',
      [
        'spec.topology.version: Invalid value: "v1.29.0+build.1": version cannot be decreased from "1.29.0+build.2" to "1.29.0+build.1"',
      ],
    ],
    [
      'refuses skipping a minor version',
      'v1.29.0',
      'v1.31.0',
      ['spec.topology.version: Invalid value: "v1.31.0": version cannot be increased from "1.29.0" to "1.31.0"'],
    ],
    [
      'refuses a major upgrade',
      'v1.29.0',
      'v2.0.0',
      ['spec.topology.version: Invalid value: "v2.0.0": version cannot be increased from "1.29.0" to "2.0.0"'],
    ],
    [
      'refuses a version that does not parse',
      'v1.29.0',
      'latest',
      ['spec.topology.version: Invalid value: "latest": version must be a valid semantic version'],
    ],
  ];
  for (const [name, from, to, expected] of cases) {
    test(name, () => assert.deepEqual(formatFieldErrors(validateTopologyVersionChange(from, to)), expected));
  }
});

describe('validateTopologyVersionFormat and computeDefaultedVersion', () => {
  const cases: [string, string, boolean][] = [
    ['accepts v1.30.1', 'v1.30.1', true],
    ['accepts 1.30.1 without v', '1.30.1', true],
    ['accepts a build suffix', 'v1.30.1+k3s1', true],
    ['refuses a missing patch', 'v1.30', false],
    ['refuses a leading zero', 'v1.030.1', false],
  ];
  for (const [name, version, ok] of cases) {
    test(name, () => assert.equal(validateTopologyVersionFormat(version).length === 0, ok));
  }
  test('prefixes v only when missing', () => {
    assert.equal(computeDefaultedVersion('1.30.1'), 'v1.30.1');
    assert.equal(computeDefaultedVersion('v1.30.1'), 'v1.30.1');
  });
});

describe('validateClusterUpdate', () => {
  const withTopology = deepFreeze(new ClusterBuilder().build());
  const withoutTopology = deepFreeze(new ClusterBuilder().with((c) => delete c.spec!.topology).build());
  const edit = (fn: (c: Cluster) => void) => deepFreeze(new ClusterBuilder().with(fn).build());
  const cases: [string, Cluster, Cluster, string[]][] = [
    ['accepts an unchanged Cluster', withTopology, withTopology, []],
    [
      'refuses removing the topology',
      withTopology,
      withoutTopology,
      ['spec.topology: Forbidden: cannot be removed from an existing Cluster'],
    ],
    [
      'refuses adding a topology to an existing Cluster',
      withoutTopology,
      withTopology,
      ['spec.topology.classRef: Forbidden: classRef cannot be set on an existing Cluster'],
    ],
    [
      'accepts adding a topology with the unsafe class-name annotation',
      withoutTopology,
      edit((c) => (c.metadata.annotations = { [UnsafeAnnotations.updateClassName]: '' })),
      [],
    ],
    [
      'refuses a downgrade',
      withTopology,
      edit((c) => (c.spec!.topology!.version = 'v1.29.0')),
      ['spec.topology.version: Invalid value: "v1.29.0": version cannot be decreased from "1.30.0" to "1.29.0"'],
    ],
    [
      'accepts a downgrade with the unsafe version annotation',
      withTopology,
      edit((c) => {
        c.spec!.topology!.version = 'v1.29.0';
        c.metadata.annotations = { [UnsafeAnnotations.updateVersion]: 'true' };
      }),
      [],
    ],
  ];
  for (const [name, current, desired, expected] of cases) {
    test(name, () => assert.deepEqual(formatFieldErrors(validateClusterUpdate(current, desired)), expected));
  }
});

describe('chained upgrades in the Cluster webhook (upstream cluster_test.go cases)', () => {
  const at = (version: string, fn: (c: Cluster) => void = () => undefined) =>
    deepFreeze(
      new ClusterBuilder()
        .with((c) => {
          c.spec!.topology!.version = version;
          fn(c);
        })
        .build(),
    );
  const classWith = (spec: Partial<ClusterClass['spec']>) =>
    deepFreeze(new ClusterClassBuilder().with((cc) => Object.assign(cc.spec, spec)).build());
  const versions = classWith({ kubernetesVersions: ['v1.2.3', 'v1.3.1', 'v1.4.0'] });
  const cases: [string, Cluster, Cluster, ClusterClass | undefined, string[]][] = [
    [
      'refuses upgrading more than one minor without kubernetesVersions or an extension',
      at('v1.2.3'),
      at('v1.4.0'),
      classWith({}),
      ['spec.topology.version: Invalid value: "v1.4.0": version cannot be increased from "1.2.3" to "1.4.0"'],
    ],
    [
      'allows upgrading >1 minor version when kubernetes version are defined in CC',
      at('v1.2.3'),
      at('v1.4.0'),
      versions,
      [],
    ],
    [
      'allows upgrading >1 minor version when kubernetes version are defined in CC - with build tags',
      at('v1.2.3+ANCBG0'),
      at('v1.4.0+BXCBG0'),
      classWith({ kubernetesVersions: ['v1.2.3+ANCBG0', 'v1.3.1+QPAVG0', 'v1.4.0+BXCBG0'] }),
      [],
    ],
    [
      'allows upgrading >1 minor version when generateUpgradePlan extension is defined in CC',
      at('v1.2.3'),
      at('v1.4.0'),
      classWith({ upgrade: { external: { generateUpgradePlanExtension: 'foo' } } }),
      [],
    ],
    [
      'fails when upgrading but the AfterClusterUpgrade is still pending',
      at('v1.2.3'),
      at(
        'v1.3.1',
        (c) => (c.metadata.annotations = { 'runtime.cluster.x-k8s.io/pending-hooks': 'AfterClusterUpgrade' }),
      ),
      versions,
      [
        'spec.topology.version: Invalid value: "v1.3.1": version cannot be changed when the "AfterClusterUpgrade" hook is still blocking',
      ],
    ],
  ];
  for (const [name, current, desired, cc, expected] of cases)
    test(name, () => assert.deepEqual(formatFieldErrors(validateClusterUpdate(current, desired, cc)), expected));

  test('fails when kubernetes version are defined in CC and version does not match', () => {
    assert.deepEqual(formatFieldErrors(validateVersionInClusterClass(at('v1.3.2'), versions)), [
      'spec.topology.version: Invalid value: "v1.3.2": version must match one of the versions defined in the ClusterClass',
    ]);
    assert.deepEqual(validateVersionInClusterClass(at('v1.3.1'), versions), []);
    assert.deepEqual(validateVersionInClusterClass(at('v1.3.2'), classWith({})), [], 'any version without the list');
  });
});
