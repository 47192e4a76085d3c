import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import {
  computeChangedVariables,
  validateClusterClassesAreCompatible,
  validateKubernetesVersions,
  validateKubernetesVersionsOfClusters,
  validateRemovedClassesAreNotUsed,
  validateVariableChangesAgainstClusters,
} from '#shared/webhooks/rules/cluster-class-rules.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

const variables: ClusterClassVariable[] = [
  { name: 'cpu', required: true, schema: { openAPIV3Schema: { type: 'integer', minimum: 1 } } },
  {
    name: 'image',
    required: false,
    schema: { openAPIV3Schema: { type: 'object', properties: { tag: { type: 'string' }, repo: { type: 'string' } } } },
  },
];
const base = (fn: (cc: ClusterClass) => void = () => undefined) =>
  deepFreeze(new ClusterClassBuilder().variables(structuredClone(variables)).with(fn).build());

const c1 = deepFreeze(
  new ClusterBuilder('c1')
    .with((c) => {
      c.spec!.topology!.variables = [
        { name: 'cpu', value: 4 },
        { name: 'image', value: { tag: 'v1' } },
      ];
    })
    .build(),
);
const c2 = deepFreeze(
  new ClusterBuilder('c2')
    .with((c) => {
      c.spec!.topology!.variables = [{ name: 'cpu', value: 1 }];
      c.spec!.topology!.workers!.machineDeployments![0]!.variables = {
        overrides: [{ name: 'image', value: { tag: 'v22' } }],
      };
    })
    .build(),
);

const messages = (errors: Parameters<typeof formatFieldErrors>[0]) => formatFieldErrors(errors);

describe('validateClusterClassesAreCompatible', () => {
  const cases: [string, ClusterClass, string[]][] = [
    ['accepts an unchanged class', base(), []],
    [
      'accepts a changed bootstrap template kind',
      base((cc) => (cc.spec.workers!.machineDeployments![0]!.bootstrap.templateRef.kind = 'OtherConfigTemplate')),
      [],
    ],
    [
      'accepts a new template name and version of the same kind',
      base((cc) => {
        cc.spec.infrastructure.templateRef.name = 'v2';
        cc.spec.infrastructure.templateRef.apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta3';
      }),
      [],
    ],
    [
      // A Cluster rebased to a copy of its class in another namespace (upstream's ClusterClassChangesSpec).
      'accepts the same class in another namespace',
      base((cc) => (cc.metadata.namespace = 'other-namespace')),
      [],
    ],
    [
      'refuses a changed infrastructure cluster kind',
      base((cc) => (cc.spec.infrastructure.templateRef.kind = 'AWSClusterTemplate')),
      [
        'spec.infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerClusterTemplate" to "AWSClusterTemplate" to prevent incompatible changes in the Clusters',
      ],
    ],
    [
      'refuses a changed control plane group',
      base((cc) => (cc.spec.controlPlane.templateRef.apiVersion = 'other.io/v1')),
      [
        'spec.controlPlane.templateRef.apiVersion: Forbidden: apiVersion.group cannot be changed from "controlplane.cluster.x-k8s.io" to "other.io" to prevent incompatible changes in the Clusters',
      ],
    ],
    [
      'refuses a changed control plane machine infrastructure kind',
      base((cc) => (cc.spec.controlPlane.machineInfrastructure!.templateRef.kind = 'AWSMachineTemplate')),
      [
        'spec.controlPlane.machineInfrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerMachineTemplate" to "AWSMachineTemplate" to prevent incompatible changes in the Clusters',
      ],
    ],
    [
      'refuses a changed worker infrastructure kind',
      base((cc) => (cc.spec.workers!.machineDeployments![0]!.infrastructure.templateRef.kind = 'AWSMachineTemplate')),
      [
        'spec.workers.machineDeployments[0].infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerMachineTemplate" to "AWSMachineTemplate" to prevent incompatible changes in the Clusters',
      ],
    ],
  ];
  for (const [name, desired, expected] of cases) {
    test(name, () => assert.deepEqual(messages(validateClusterClassesAreCompatible(base(), desired)), expected));
  }
});

describe('validateRemovedClassesAreNotUsed', () => {
  const noWorkers = base((cc) => (cc.spec.workers!.machineDeployments = []));
  const cases: [string, readonly Cluster[], ClusterClass, string[]][] = [
    ['accepts removing a class no Cluster uses', [], noWorkers, []],
    ['accepts keeping a class in use', [c1], base(), []],
    [
      'refuses removing a class each using Cluster is named for',
      [c1, c2],
      noWorkers,
      [
        'spec.workers.machineDeployments: Forbidden: MachineDeploymentClass "default-worker" cannot be deleted because it is used by Cluster "c1"',
        'spec.workers.machineDeployments: Forbidden: MachineDeploymentClass "default-worker" cannot be deleted because it is used by Cluster "c2"',
      ],
    ],
  ];
  for (const [name, clusters, desired, expected] of cases) {
    test(name, () => assert.deepEqual(messages(validateRemovedClassesAreNotUsed(clusters, base(), desired)), expected));
  }
});

describe('validateVariableChangesAgainstClusters', () => {
  const cases: [string, ClusterClass, RegExp[]][] = [
    ['accepts an unchanged class without looking at values', base(), []],
    [
      'accepts a schema change every value passes',
      base((cc) => (cc.spec!.variables![0]!.schema.openAPIV3Schema.maximum = 8)),
      [],
    ],
    [
      'refuses a schema change a cluster-wide value fails, naming the Cluster and the value',
      base((cc) => (cc.spec!.variables![0]!.schema.openAPIV3Schema.minimum = 2)),
      [
        /^spec\.variables\[0\]\.schema: Forbidden: variable "cpu" schema change is incompatible with Cluster "c2": spec\.topology\.variables\[cpu\]\.value: Invalid value: "1": should be greater than or equal to 2$/,
      ],
    ],
    [
      'refuses a schema change an override fails',
      base((cc) => (cc.spec!.variables![1]!.schema.openAPIV3Schema.properties!['tag']!.maxLength = 2)),
      [
        /variable "image" schema change is incompatible with Cluster "c2": spec\.topology\.workers\.machineDeployments\[md-0\]\.variables\.overrides\[image\]\.value\.tag/,
      ],
    ],
    [
      'accepts a schema change whose new default fills what the value lacks',
      base((cc) => {
        const schema = cc.spec!.variables![1]!.schema.openAPIV3Schema;
        schema.required = ['repo'];
        schema.properties!['repo'] = { type: 'string', default: 'registry.k8s.io' };
      }),
      [],
    ],
    [
      'refuses removing a variable, listing the Clusters using it',
      base((cc) => (cc.spec!.variables = cc.spec!.variables!.filter((v) => v.name !== 'image'))),
      [/^spec\.variables: Forbidden: variable "image" cannot be removed because it is used by Cluster\(s\) "c1,c2"$/],
    ],
    [
      'refuses a variable becoming required without a default while a Cluster does not set it',
      base((cc) => (cc.spec!.variables![1]!.required = true)),
      [
        /^spec\.variables\[1\]\.required: Forbidden: variable "image" cannot become required without a default because Cluster\(s\) "c2" do not set it$/,
      ],
    ],
    [
      'accepts a new required variable with a default',
      base((cc) =>
        cc.spec!.variables!.push({
          name: 'zone',
          required: true,
          schema: { openAPIV3Schema: { type: 'string', default: 'a' } },
        }),
      ),
      [],
    ],
  ];
  for (const [name, desired, expected] of cases) {
    test(name, () => {
      const got = messages(validateVariableChangesAgainstClusters([c1, c2], base(), desired));
      assert.equal(got.length, expected.length, got.join('\n'));
      expected.forEach((re, i) => assert.match(got[i] ?? '', re));
    });
  }

  test('computes no change for an identical class', () => {
    assert.equal(computeChangedVariables(base(), base()).size, 0);
  });
});

describe('spec.kubernetesVersions (upstream validateKubernetesVersions and validateKubernetesVersionsOfClusters)', () => {
  const cases: [string, string[], string[]][] = [
    [
      'accepts ascending versions one minor apart, patches and builds included',
      ['v1.31.0', 'v1.31.1', 'v1.32.0+a', 'v1.32.0+b', 'v1.33.0'],
      [],
    ],
    [
      'refuses a version that is not semantic',
      ['v1.31.0', 'foo'],
      ['spec.kubernetesVersion[1]: Invalid value: "foo": version must be a valid semantic version'],
    ],
    [
      'refuses a version not greater than the one before',
      ['v1.31.1', 'v1.31.0'],
      ['spec.kubernetesVersion[1]: Invalid value: "v1.31.0": version must be greater than v1.31.1'],
    ],
    [
      'refuses a gap of a minor',
      ['v1.31.0', 'v1.33.0'],
      [
        'spec.kubernetesVersion[1]: Invalid value: "v1.33.0": expecting a version with minor 31 or 32, found version 1.33.0',
      ],
    ],
  ];
  for (const [name, versions, expected] of cases)
    test(name, () => assert.deepEqual(formatFieldErrors(validateKubernetesVersions(versions)), expected));

  test('a class that lists versions must list the version of every Cluster using it', () => {
    const cc = base((c) => (c.spec.kubernetesVersions = ['v1.31.0', 'v1.32.0']));
    const at = (name: string, version: string) =>
      deepFreeze(new ClusterBuilder(name).with((c) => (c.spec!.topology!.version = version)).build());
    assert.deepEqual(
      formatFieldErrors(validateKubernetesVersionsOfClusters([at('a', 'v1.32.0'), at('b', 'v1.30.0')], cc)),
      [
        'spec.kubernetesVersions: Forbidden: Kubernetes Version v1.30.0 is used by Cluster "b" but not set in ClusterClass',
      ],
    );
    assert.deepEqual(validateKubernetesVersionsOfClusters([at('b', 'v1.30.0')], base()), [], 'no list, no rule');
  });
});
