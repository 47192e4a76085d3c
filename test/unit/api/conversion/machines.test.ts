// MachineHealthCheck, MachineDeployment, MachinePool, Machine and ClusterResourceSet(Binding) conversions, each case
// read off upstream v1.14's `api/core/v1beta1/conversion.go`, `api/addons/v1beta1/conversion.go` and
// `core/webhooks/conversion/*.go`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { convertFromHub, convertToHub, type Unstructured } from '#shared/api/conversion/index.ts';

const apiVersions: Record<string, string> = {
  'bootstrap.cluster.x-k8s.io/KubeadmConfigTemplate': 'bootstrap.cluster.x-k8s.io/v1beta2',
  'bootstrap.cluster.x-k8s.io/KubeadmConfig': 'bootstrap.cluster.x-k8s.io/v1beta2',
  'infrastructure.cluster.x-k8s.io/DockerMachine': 'infrastructure.cluster.x-k8s.io/v1beta1',
};
const apiVersionFor = (group: string, kind: string) => apiVersions[`${group}/${kind}`];

const meta = { name: 'o', namespace: 'ns' };
const obj = (group: string, version: string, kind: string, spec?: Unstructured, status?: Unstructured) => ({
  apiVersion: `${group}/${version}`,
  kind,
  metadata: meta,
  ...(spec ? { spec } : {}),
  ...(status ? { status } : {}),
});
function withoutConversionData(object: Unstructured): Unstructured {
  const metadata = { ...(object['metadata'] as Unstructured) };
  delete metadata['annotations'];
  return { ...object, metadata };
}

// [sentence, kind, group, v1beta1 {spec,status}, v1beta2 {spec,status}]
const cases: [
  string,
  string,
  string,
  [(Unstructured | undefined)?, (Unstructured | undefined)?],
  [(Unstructured | undefined)?, (Unstructured | undefined)?],
][] = [
  [
    'MachineHealthCheck: flat health-check fields move into checks and remediation',
    'MachineHealthCheck',
    'cluster.x-k8s.io',
    [
      {
        clusterName: 'c1',
        selector: { matchLabels: { a: 'b' } },
        unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '5m0s' }],
        maxUnhealthy: '40%',
        nodeStartupTimeout: '10m0s',
        remediationTemplate: { apiVersion: 'x.io/v1', kind: 'RT', namespace: 'ns', name: 'rt' },
      },
    ],
    [
      {
        clusterName: 'c1',
        selector: { matchLabels: { a: 'b' } },
        checks: {
          nodeStartupTimeoutSeconds: 600,
          unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 300 }],
        },
        remediation: {
          triggerIf: { unhealthyLessThanOrEqualTo: '40%' },
          templateRef: { name: 'rt', kind: 'RT', apiVersion: 'x.io/v1' },
        },
      },
    ],
  ],
  [
    'MachineHealthCheck: status counters stay, legacy conditions move under deprecated.v1beta1',
    'MachineHealthCheck',
    'cluster.x-k8s.io',
    [
      undefined,
      {
        expectedMachines: 3,
        currentHealthy: 2,
        remediationsAllowed: 1,
        targets: ['m1'],
        conditions: [{ type: 'RemediationAllowed', status: 'True', lastTransitionTime: 't' }],
      },
    ],
    [
      undefined,
      {
        expectedMachines: 3,
        currentHealthy: 2,
        remediationsAllowed: 1,
        targets: ['m1'],
        deprecated: {
          v1beta1: { conditions: [{ type: 'RemediationAllowed', status: 'True', lastTransitionTime: 't' }] },
        },
      },
    ],
  ],
  [
    'MachineDeployment: strategy, rolloutAfter, machineNamingStrategy and minReadySeconds move; refs become contract-versioned',
    'MachineDeployment',
    'cluster.x-k8s.io',
    [
      {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.34.0',
            bootstrap: {
              configRef: {
                apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
                kind: 'KubeadmConfigTemplate',
                namespace: 'ns',
                name: 'b',
              },
            },
            infrastructureRef: {
              apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
              kind: 'DockerMachine',
              namespace: 'ns',
              name: 'i',
            },
            nodeDrainTimeout: '30s',
          },
        },
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: 1, deletePolicy: 'Newest' },
          remediation: { maxInFlight: 1 },
        },
        rolloutAfter: '2026-01-01T00:00:00Z',
        machineNamingStrategy: { template: '{{ .machineSet.name }}-{{ .random }}' },
        minReadySeconds: 10,
        paused: true,
      },
    ],
    [
      {
        clusterName: 'c1',
        replicas: 2,
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: {
            clusterName: 'c1',
            version: 'v1.34.0',
            bootstrap: {
              configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'b' },
            },
            infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerMachine', name: 'i' },
            deletion: { nodeDrainTimeoutSeconds: 30 },
            minReadySeconds: 10,
          },
        },
        paused: true,
        rollout: { after: '2026-01-01T00:00:00Z', strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
        deletion: { order: 'Newest' },
        remediation: { maxInFlight: 1 },
        machineNaming: { template: '{{ .machineSet.name }}-{{ .random }}' },
      },
    ],
  ],
  [
    'MachineDeployment: v1beta2 replica counters come from status.v1beta2, the old ones go under deprecated.v1beta1',
    'MachineDeployment',
    'cluster.x-k8s.io',
    [
      undefined,
      {
        replicas: 3,
        updatedReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 1,
        unavailableReplicas: 2,
        phase: 'ScalingUp',
        v1beta2: { readyReplicas: 3, availableReplicas: 3, upToDateReplicas: 2 },
      },
    ],
    [
      undefined,
      {
        replicas: 3,
        phase: 'ScalingUp',
        readyReplicas: 3,
        availableReplicas: 3,
        upToDateReplicas: 2,
        deprecated: { v1beta1: { availableReplicas: 1, unavailableReplicas: 2, updatedReplicas: 2, readyReplicas: 2 } },
      },
    ],
  ],
  [
    'ClusterResourceSet: the spec is the same; legacy conditions ↔ deprecated.v1beta1, status.v1beta2 ↔ status',
    'ClusterResourceSet',
    'addons.cluster.x-k8s.io',
    [
      {
        clusterSelector: { matchLabels: { cni: 'calico' } },
        resources: [{ name: 'cm', kind: 'ConfigMap' }],
        strategy: 'Reconcile',
      },
      {
        observedGeneration: 1,
        conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: 't' }],
        v1beta2: {
          conditions: [
            { type: 'ResourcesApplied', status: 'True', reason: 'Applied', message: '', lastTransitionTime: 't' },
          ],
        },
      },
    ],
    [
      {
        clusterSelector: { matchLabels: { cni: 'calico' } },
        resources: [{ name: 'cm', kind: 'ConfigMap' }],
        strategy: 'Reconcile',
      },
      {
        observedGeneration: 1,
        conditions: [
          { type: 'ResourcesApplied', status: 'True', reason: 'Applied', message: '', lastTransitionTime: 't' },
        ],
        deprecated: {
          v1beta1: { conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: 't' }] },
        },
      },
    ],
  ],
  [
    'ClusterResourceSetBinding: the spec is the same in both versions',
    'ClusterResourceSetBinding',
    'addons.cluster.x-k8s.io',
    [
      {
        clusterName: 'c1',
        bindings: [
          {
            clusterResourceSetName: 'crs',
            resources: [{ name: 'cm', kind: 'ConfigMap', hash: 'sha256:x', lastAppliedTime: 't', applied: true }],
          },
        ],
      },
    ],
    [
      {
        clusterName: 'c1',
        bindings: [
          {
            clusterResourceSetName: 'crs',
            resources: [{ name: 'cm', kind: 'ConfigMap', hash: 'sha256:x', lastAppliedTime: 't', applied: true }],
          },
        ],
      },
    ],
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

describe('v1beta1 → v1beta2', () => {
  for (const [name, kind, group, [spokeSpec, spokeStatus], [hubSpec, hubStatus]] of cases) {
    test(name, () =>
      assert.deepEqual(
        sortKeys(convertToHub(obj(group, 'v1beta1', kind, spokeSpec, spokeStatus))),
        sortKeys(obj(group, 'v1beta2', kind, hubSpec, hubStatus)),
      ),
    );
  }
});

describe('v1beta2 → v1beta1', () => {
  for (const [name, kind, group, [spokeSpec, spokeStatus], [hubSpec, hubStatus]] of cases) {
    test(name, () =>
      assert.deepEqual(
        sortKeys(withoutConversionData(convertFromHub(obj(group, 'v1beta2', kind, hubSpec, hubStatus), apiVersionFor))),
        sortKeys(obj(group, 'v1beta1', kind, spokeSpec, spokeStatus)),
      ),
    );
  }

  test('MachineHealthCheck: zero counters are written (v1beta1 has no omitempty on them)', () => {
    const down = convertFromHub(obj('cluster.x-k8s.io', 'v1beta2', 'MachineHealthCheck', undefined, {}), apiVersionFor);
    assert.deepEqual(down['status'], { expectedMachines: 0, currentHealthy: 0, remediationsAllowed: 0 });
  });

  test('Machine: phase Updating is written as Running and nodeRef gets apiVersion v1 and kind Node', () => {
    const down = convertFromHub(
      obj('cluster.x-k8s.io', 'v1beta2', 'Machine', undefined, { phase: 'Updating', nodeRef: { name: 'n1' } }),
      apiVersionFor,
    );
    assert.deepEqual(down['status'], {
      phase: 'Running',
      nodeRef: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
      bootstrapReady: false,
      infrastructureReady: false,
    });
  });

  test('ClusterResourceSetBinding: an unset applied is written as applied: false (v1beta1 has no omitempty)', () => {
    const down = convertFromHub(
      obj('addons.cluster.x-k8s.io', 'v1beta2', 'ClusterResourceSetBinding', {
        bindings: [{ clusterResourceSetName: 'crs', resources: [{ name: 'cm', kind: 'ConfigMap' }] }],
      }),
      apiVersionFor,
    );
    assert.deepEqual(down['spec'], {
      bindings: [{ clusterResourceSetName: 'crs', resources: [{ name: 'cm', kind: 'ConfigMap', applied: false }] }],
    });
  });

  test('ClusterResourceSet: no conversion-data annotation is written (upstream keeps none for addons)', () => {
    const down = convertFromHub(
      obj('addons.cluster.x-k8s.io', 'v1beta2', 'ClusterResourceSet', { strategy: 'ApplyOnce' }),
      apiVersionFor,
    );
    assert.deepEqual(down['metadata'], meta);
  });
});

describe('v1beta2 → v1beta1 → v1beta2 restores *int32 zeros and initialization from the annotation', () => {
  test('MachineHealthCheck counters explicitly 0', () => {
    const hub = obj('cluster.x-k8s.io', 'v1beta2', 'MachineHealthCheck', undefined, {
      expectedMachines: 0,
      currentHealthy: 0,
    });
    assert.deepEqual(convertToHub(convertFromHub(hub, apiVersionFor)), hub);
  });
  test('Machine initialization with an explicit false', () => {
    const hub = obj('cluster.x-k8s.io', 'v1beta2', 'Machine', undefined, {
      initialization: { bootstrapDataSecretCreated: true, infrastructureProvisioned: false },
    });
    assert.deepEqual(convertToHub(convertFromHub(hub, apiVersionFor)), hub);
  });
});
