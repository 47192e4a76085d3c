// ClusterClass conversions, each case read off upstream v1.14's `api/core/v1beta1/conversion.go`
// (ControlPlaneClass, MachineDeploymentClass, MachinePoolClass, ClusterClassSpec, ExternalPatchDefinition,
// ClusterClassVariable) and `core/webhooks/conversion/clusterclass.go`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConversionDataAnnotation,
  convertFromHub,
  convertToHub,
  type Unstructured,
} from '#shared/api/conversion/index.ts';

const noApiVersions = () => undefined;
const meta = { name: 'quick-start', namespace: 'ns' };
const wrap = (apiVersion: string, spec: Unstructured, status?: Unstructured): Unstructured => ({
  apiVersion,
  kind: 'ClusterClass',
  metadata: meta,
  spec,
  ...(status ? { status } : {}),
});
const v1beta1 = (spec: Unstructured, status?: Unstructured) => wrap('cluster.x-k8s.io/v1beta1', spec, status);
const v1beta2 = (spec: Unstructured, status?: Unstructured) => wrap('cluster.x-k8s.io/v1beta2', spec, status);

function ref(kind: string, name: string, apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta2'): Unstructured {
  return { ref: { apiVersion, kind, namespace: 'ns', name } };
}
function templateRef(kind: string, name: string, apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta2') {
  return { kind, name, apiVersion };
}
function withoutConversionData(object: Unstructured): Unstructured {
  const metadata = { ...(object['metadata'] as Unstructured) };
  delete metadata['annotations'];
  return { ...object, metadata };
}

// NOTE: a v1beta1 ClusterClass always carries controlPlane.ref and infrastructure.ref (non-pointer fields).
const baseV1beta1 = {
  infrastructure: ref('DockerClusterTemplate', 'infra'),
  controlPlane: ref('KubeadmControlPlaneTemplate', 'cp', 'controlplane.cluster.x-k8s.io/v1beta2'),
};
const baseV1beta2 = {
  infrastructure: { templateRef: templateRef('DockerClusterTemplate', 'infra') },
  controlPlane: {
    templateRef: templateRef('KubeadmControlPlaneTemplate', 'cp', 'controlplane.cluster.x-k8s.io/v1beta2'),
  },
};

const specCases: [string, Unstructured, Unstructured][] = [
  ['turns infrastructure.ref and controlPlane.ref into templateRefs (no namespace)', baseV1beta1, baseV1beta2],
  [
    'moves infrastructureNamingStrategy into infrastructure.naming',
    { ...baseV1beta1, infrastructureNamingStrategy: { template: '{{ .cluster.name }}-infra' } },
    {
      ...baseV1beta2,
      infrastructure: { ...baseV1beta2.infrastructure, naming: { template: '{{ .cluster.name }}-infra' } },
    },
  ],
  [
    'moves the control plane machineInfrastructure ref, namingStrategy, timeouts and machineHealthCheck',
    {
      ...baseV1beta1,
      controlPlane: {
        ...baseV1beta1.controlPlane,
        metadata: { labels: { a: 'b' } },
        machineInfrastructure: ref('DockerMachineTemplate', 'cp-machines'),
        namingStrategy: { template: '{{ .cluster.name }}-cp' },
        nodeDrainTimeout: '1m0s',
        machineHealthCheck: {
          maxUnhealthy: 1,
          unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '0s' }],
        },
        readinessGates: [{ conditionType: 'X' }],
      },
    },
    {
      ...baseV1beta2,
      controlPlane: {
        ...baseV1beta2.controlPlane,
        metadata: { labels: { a: 'b' } },
        machineInfrastructure: { templateRef: templateRef('DockerMachineTemplate', 'cp-machines') },
        naming: { template: '{{ .cluster.name }}-cp' },
        deletion: { nodeDrainTimeoutSeconds: 60 },
        healthCheck: {
          checks: { unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 0 }] },
          remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 } },
        },
        readinessGates: [{ conditionType: 'X' }],
      },
    },
  ],
  [
    'lifts a MachineDeploymentClass template into metadata, bootstrap.templateRef and infrastructure.templateRef',
    {
      ...baseV1beta1,
      workers: {
        machineDeployments: [
          {
            class: 'default-worker',
            template: {
              metadata: { labels: { role: 'worker', 'node-role.example.com/worker': '' } },
              bootstrap: ref('KubeadmConfigTemplate', 'boot', 'bootstrap.cluster.x-k8s.io/v1beta2'),
              infrastructure: ref('DockerMachineTemplate', 'machines'),
            },
            namingStrategy: { template: '{{ .machineDeployment.topologyName }}' },
            strategy: { type: 'OnDelete', remediation: { maxInFlight: '50%' } },
            machineHealthCheck: { nodeStartupTimeout: '10m0s' },
            nodeVolumeDetachTimeout: '5s',
            minReadySeconds: 3,
          },
        ],
      },
    },
    {
      ...baseV1beta2,
      workers: {
        machineDeployments: [
          {
            class: 'default-worker',
            minReadySeconds: 3,
            metadata: { labels: { role: 'worker', 'node-role.example.com/worker': '' } },
            bootstrap: {
              templateRef: templateRef('KubeadmConfigTemplate', 'boot', 'bootstrap.cluster.x-k8s.io/v1beta2'),
            },
            infrastructure: { templateRef: templateRef('DockerMachineTemplate', 'machines') },
            healthCheck: { checks: { nodeStartupTimeoutSeconds: 600 }, remediation: { maxInFlight: '50%' } },
            naming: { template: '{{ .machineDeployment.topologyName }}' },
            deletion: { nodeVolumeDetachTimeoutSeconds: 5 },
            rollout: { strategy: { type: 'OnDelete' } },
          },
        ],
      },
    },
  ],
  [
    'lifts a MachinePoolClass template the same way',
    {
      ...baseV1beta1,
      workers: {
        machinePools: [
          {
            class: 'mp',
            template: {
              metadata: {},
              bootstrap: ref('KubeadmConfigTemplate', 'boot', 'bootstrap.cluster.x-k8s.io/v1beta2'),
              infrastructure: ref('DockerMachinePoolTemplate', 'pool'),
            },
            failureDomains: ['a'],
          },
        ],
      },
    },
    {
      ...baseV1beta2,
      workers: {
        machinePools: [
          {
            class: 'mp',
            failureDomains: ['a'],
            bootstrap: {
              templateRef: templateRef('KubeadmConfigTemplate', 'boot', 'bootstrap.cluster.x-k8s.io/v1beta2'),
            },
            infrastructure: { templateRef: templateRef('DockerMachinePoolTemplate', 'pool') },
          },
        ],
      },
    },
  ],
  [
    'renames external patch extensions (generateExtension → generatePatchesExtension, validateExtension → validateTopologyExtension)',
    {
      ...baseV1beta1,
      patches: [
        {
          name: 'ext',
          external: {
            generateExtension: 'gen.ext',
            validateExtension: 'val.ext',
            discoverVariablesExtension: 'dv.ext',
          },
        },
      ],
    },
    {
      ...baseV1beta2,
      patches: [
        {
          name: 'ext',
          external: {
            discoverVariablesExtension: 'dv.ext',
            generatePatchesExtension: 'gen.ext',
            validateTopologyExtension: 'val.ext',
          },
        },
      ],
    },
  ],
  [
    'moves a variable metadata into deprecatedV1Beta1Metadata',
    {
      ...baseV1beta1,
      variables: [
        {
          name: 'v',
          required: true,
          metadata: { labels: { a: 'b' } },
          schema: { openAPIV3Schema: { type: 'string' } },
        },
      ],
    },
    {
      ...baseV1beta2,
      variables: [
        {
          name: 'v',
          required: true,
          schema: { openAPIV3Schema: { type: 'string' } },
          deprecatedV1Beta1Metadata: { labels: { a: 'b' } },
        },
      ],
    },
  ],
  [
    'keeps patch selectors, matchResources true flags and JSON patches',
    {
      ...baseV1beta1,
      patches: [
        {
          name: 'p',
          definitions: [
            {
              selector: {
                apiVersion: 'a/v1',
                kind: 'K',
                matchResources: { controlPlane: true, machineDeploymentClass: { names: ['default-worker'] } },
              },
              jsonPatches: [{ op: 'add', path: '/spec/x', valueFrom: { variable: 'v' } }],
            },
          ],
        },
      ],
    },
    {
      ...baseV1beta2,
      patches: [
        {
          name: 'p',
          definitions: [
            {
              selector: {
                apiVersion: 'a/v1',
                kind: 'K',
                matchResources: { controlPlane: true, machineDeploymentClass: { names: ['default-worker'] } },
              },
              jsonPatches: [{ op: 'add', path: '/spec/x', valueFrom: { variable: 'v' } }],
            },
          ],
        },
      ],
    },
  ],
];

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Unstructured)[k])]),
    );
  }
  return value;
}

describe('ClusterClass v1beta1 → v1beta2', () => {
  for (const [name, spoke, hub] of specCases) {
    test(name, () => assert.deepEqual(sortKeys(convertToHub(v1beta1(spoke))), sortKeys(v1beta2(hub))));
  }
});

describe('ClusterClass v1beta2 → v1beta1', () => {
  for (const [name, spoke, hub] of specCases) {
    test(name, () => {
      const down = withoutConversionData(convertFromHub(v1beta2(hub), noApiVersions));
      assert.deepEqual(sortKeys(down), sortKeys(v1beta1(spoke)));
    });
  }
});

describe('ClusterClass booleans v1beta1 cannot express, restored from the conversion-data annotation', () => {
  const cases: [string, Unstructured][] = [
    [
      'an explicit matchResources.infrastructureCluster: false',
      {
        ...baseV1beta2,
        patches: [
          {
            name: 'p',
            definitions: [
              {
                selector: { apiVersion: 'a/v1', kind: 'K', matchResources: { infrastructureCluster: false } },
                jsonPatches: [],
              },
            ],
          },
        ],
      },
    ],
    [
      'an explicit schema uniqueItems: false, nested in properties',
      {
        ...baseV1beta2,
        variables: [
          {
            name: 'v',
            required: false,
            schema: { openAPIV3Schema: { type: 'object', properties: { l: { type: 'array', uniqueItems: false } } } },
          },
        ],
      },
    ],
  ];
  for (const [name, spec] of cases) {
    test(`restores ${name}`, () => {
      const hub = v1beta2(spec);
      const down = convertFromHub(hub, noApiVersions);
      assert.ok(((down['metadata'] as Unstructured)['annotations'] as Unstructured)[ConversionDataAnnotation]);
      assert.deepEqual(sortKeys(convertToHub(down)), sortKeys(hub));
    });
  }
});
