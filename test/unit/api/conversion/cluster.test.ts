// Cluster conversions, each case read off upstream v1.14's `core/webhooks/conversion/cluster.go` and
// `api/core/v1beta1/conversion.go` (Convert_v1beta1_Topology_To_v1beta2_Topology, ControlPlaneTopology,
// MachineDeploymentTopology, ClusterStatus).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConversionDataAnnotation,
  convertFromHub,
  convertToHub,
  type Unstructured,
} from '#shared/api/conversion/index.ts';

const apiVersions: Record<string, string> = {
  'infrastructure.cluster.x-k8s.io/DockerCluster': 'infrastructure.cluster.x-k8s.io/v1beta1',
  'controlplane.cluster.x-k8s.io/KubeadmControlPlane': 'controlplane.cluster.x-k8s.io/v1beta2',
};
const apiVersionFor = (group: string, kind: string) => apiVersions[`${group}/${kind}`];

const meta = { name: 'c1', namespace: 'ns' };
function v1beta1(spec: Unstructured, status?: Unstructured): Unstructured {
  return deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: meta,
    ...(Object.keys(spec).length > 0 ? { spec } : {}),
    ...(status ? { status } : {}),
  });
}
function v1beta2(spec: Unstructured, status?: Unstructured): Unstructured {
  return deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: meta,
    ...(Object.keys(spec).length > 0 ? { spec } : {}),
    ...(status ? { status } : {}),
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function withoutConversionData(object: Unstructured): Unstructured {
  const metadata = { ...(object['metadata'] as Unstructured) };
  const annotations = { ...(metadata['annotations'] as Unstructured) };
  delete annotations[ConversionDataAnnotation];
  if (Object.keys(annotations).length === 0) delete metadata['annotations'];
  else metadata['annotations'] = annotations;
  return { ...object, metadata };
}

// [sentence, v1beta1 spec, v1beta2 spec]: converted v1beta1 → v1beta2 and back.
const specCases: [string, Unstructured, Unstructured][] = [
  [
    'moves topology.class and classNamespace into topology.classRef',
    { topology: { class: 'quick-start', classNamespace: 'shared', version: 'v1.34.0' } },
    { topology: { classRef: { name: 'quick-start', namespace: 'shared' }, version: 'v1.34.0' } },
  ],
  [
    'turns infrastructureRef and controlPlaneRef into contract-versioned references (apiVersion → apiGroup, no namespace)',
    {
      infrastructureRef: {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'DockerCluster',
        namespace: 'ns',
        name: 'c1',
      },
      controlPlaneRef: {
        apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
        kind: 'KubeadmControlPlane',
        namespace: 'ns',
        name: 'c1-cp',
      },
    },
    {
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerCluster', name: 'c1' },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c1-cp' },
    },
  ],
  [
    'moves control-plane node timeouts into deletion.*Seconds',
    {
      topology: {
        class: 'cc',
        version: 'v1.34.0',
        controlPlane: {
          replicas: 3,
          nodeDrainTimeout: '5m0s',
          nodeVolumeDetachTimeout: '30s',
          nodeDeletionTimeout: '10s',
        },
      },
    },
    {
      topology: {
        classRef: { name: 'cc' },
        version: 'v1.34.0',
        controlPlane: {
          replicas: 3,
          deletion: {
            nodeDrainTimeoutSeconds: 300,
            nodeVolumeDetachTimeoutSeconds: 30,
            nodeDeletionTimeoutSeconds: 10,
          },
        },
      },
    },
  ],
  [
    'moves the control-plane machineHealthCheck into healthCheck with checks and remediation.triggerIf',
    {
      topology: {
        class: 'cc',
        version: 'v1.34.0',
        controlPlane: {
          machineHealthCheck: {
            enable: true,
            unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '5m0s' }],
            unhealthyMachineConditions: [{ type: 'Foo', status: 'False', timeout: '1m0s' }],
            nodeStartupTimeout: '10m0s',
            maxUnhealthy: '40%',
            unhealthyRange: '[1-3]',
            remediationTemplate: {
              apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
              kind: 'RemediationTemplate',
              namespace: 'ns',
              name: 'rt',
            },
          },
        },
      },
    },
    {
      topology: {
        classRef: { name: 'cc' },
        version: 'v1.34.0',
        controlPlane: {
          healthCheck: {
            enabled: true,
            checks: {
              nodeStartupTimeoutSeconds: 600,
              unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 300 }],
              unhealthyMachineConditions: [{ type: 'Foo', status: 'False', timeoutSeconds: 60 }],
            },
            remediation: {
              triggerIf: { unhealthyLessThanOrEqualTo: '40%', unhealthyInRange: '[1-3]' },
              templateRef: {
                name: 'rt',
                kind: 'RemediationTemplate',
                apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
              },
            },
          },
        },
      },
    },
  ],
  [
    'splits a MachineDeployment topology strategy into rollout.strategy, deletion.order and healthCheck.remediation.maxInFlight',
    {
      topology: {
        class: 'cc',
        version: 'v1.34.0',
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              name: 'md-0',
              replicas: 2,
              strategy: {
                type: 'RollingUpdate',
                rollingUpdate: { maxUnavailable: 0, maxSurge: 1, deletePolicy: 'Oldest' },
                remediation: { maxInFlight: 2 },
              },
              nodeDrainTimeout: '1m0s',
              minReadySeconds: 5,
              failureDomain: 'fd1',
            },
          ],
        },
      },
    },
    {
      topology: {
        classRef: { name: 'cc' },
        version: 'v1.34.0',
        workers: {
          machineDeployments: [
            {
              class: 'default-worker',
              name: 'md-0',
              replicas: 2,
              minReadySeconds: 5,
              failureDomain: 'fd1',
              healthCheck: { remediation: { maxInFlight: 2 } },
              deletion: { order: 'Oldest', nodeDrainTimeoutSeconds: 60 },
              rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } },
            },
          ],
        },
      },
    },
  ],
  [
    'moves MachinePool topology node timeouts into deletion.*Seconds',
    {
      topology: {
        class: 'cc',
        version: 'v1.34.0',
        workers: { machinePools: [{ class: 'mp', name: 'mp-0', nodeDeletionTimeout: '2m0s' }] },
      },
    },
    {
      topology: {
        classRef: { name: 'cc' },
        version: 'v1.34.0',
        workers: { machinePools: [{ class: 'mp', name: 'mp-0', deletion: { nodeDeletionTimeoutSeconds: 120 } }] },
      },
    },
  ],
  ['keeps paused: true as true', { paused: true }, { paused: true }],
  [
    'copies the fields both versions share (clusterNetwork, controlPlaneEndpoint, availabilityGates, variables)',
    {
      clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] }, serviceDomain: 'cluster.local', apiServerPort: 6443 },
      controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 },
      availabilityGates: [{ conditionType: 'Foo' }],
      topology: { class: 'cc', version: 'v1.34.0', variables: [{ name: 'x', value: { a: 1 } }] },
    },
    {
      clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] }, serviceDomain: 'cluster.local', apiServerPort: 6443 },
      controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 },
      availabilityGates: [{ conditionType: 'Foo' }],
      topology: { classRef: { name: 'cc' }, version: 'v1.34.0', variables: [{ name: 'x', value: { a: 1 } }] },
    },
  ],
];

describe('Cluster v1beta1 → v1beta2', () => {
  for (const [name, spoke, hub] of specCases) {
    test(name, () => assert.deepEqual(convertToHub(v1beta1(spoke)), v1beta2(hub)));
  }

  test('drops topology.rolloutAfter, which v1beta2 no longer has', () => {
    const hub = convertToHub(
      v1beta1({ topology: { class: 'cc', version: 'v1', rolloutAfter: '2026-01-01T00:00:00Z' } }),
    );
    assert.deepEqual(hub['spec'], { topology: { classRef: { name: 'cc' }, version: 'v1' } });
  });

  test('moves legacy conditions and failure fields under status.deprecated.v1beta1 and lifts status.v1beta2', () => {
    const condition = { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const metav1Condition = { ...condition, reason: 'Ready', message: '', observedGeneration: 1 };
    const hub = convertToHub(
      v1beta1(
        {},
        {
          phase: 'Provisioned',
          observedGeneration: 2,
          infrastructureReady: true,
          controlPlaneReady: false,
          failureReason: 'InvalidConfiguration',
          failureMessage: 'boom',
          conditions: [condition],
          failureDomains: { b: { controlPlane: true }, a: { attributes: { zone: 'a' } } },
          v1beta2: { conditions: [metav1Condition], controlPlane: { replicas: 3 }, workers: { replicas: 2 } },
        },
      ),
    );
    assert.deepEqual(hub['status'], {
      phase: 'Provisioned',
      observedGeneration: 2,
      conditions: [metav1Condition],
      controlPlane: { replicas: 3 },
      workers: { replicas: 2 },
      deprecated: {
        v1beta1: { conditions: [condition], failureReason: 'InvalidConfiguration', failureMessage: 'boom' },
      },
      initialization: { infrastructureProvisioned: true },
      failureDomains: [
        { name: 'a', controlPlane: false, attributes: { zone: 'a' } },
        { name: 'b', controlPlane: true },
      ],
    });
  });

  test('returns a v1beta2 Cluster unchanged', () => {
    const hub = v1beta2({ topology: { classRef: { name: 'cc' }, version: 'v1' } });
    assert.equal(convertToHub(hub), hub);
  });

  test('names the object in the error when a reference has a malformed apiVersion', () => {
    assert.throws(
      () => convertToHub(v1beta1({ infrastructureRef: { apiVersion: 'a/b/c', kind: 'K', name: 'n' } })),
      /failed to convert Cluster ns\/c1: failed to convert object: failed to parse apiVersion/,
    );
  });
});

describe('Cluster v1beta2 → v1beta1', () => {
  for (const [name, spoke, hub] of specCases) {
    test(name, () => {
      const down = convertFromHub(v1beta2(hub), apiVersionFor);
      const want = structuredClone(spoke) as { topology?: { controlPlane?: { machineHealthCheck?: Unstructured } } };
      // NOTE: upstream writes the refs' namespace and the remediation template's namespace as the Cluster's own.
      assert.deepEqual(withoutConversionData(down), v1beta1(want as Unstructured));
    });
  }

  test('asks the getter for the apiVersion of each reference (upstream reads the CRD contract label)', () => {
    const down = convertFromHub(
      v1beta2({
        infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerCluster', name: 'c1' },
      }),
      apiVersionFor,
    );
    assert.deepEqual((down['spec'] as Unstructured)['infrastructureRef'], {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'DockerCluster',
      namespace: 'ns',
      name: 'c1',
    });
  });

  test('fails with the group and kind when no apiVersion is known for a reference', () => {
    assert.throws(
      () =>
        convertFromHub(v1beta2({ infrastructureRef: { apiGroup: 'x.io', kind: 'Nope', name: 'c1' } }), apiVersionFor),
      /failed to convert Cluster ns\/c1: .*no apiVersion known for Nope\.x\.io/,
    );
  });

  test('drops an apiServerPort of 0', () => {
    const down = convertFromHub(v1beta2({ clusterNetwork: { apiServerPort: 0, serviceDomain: 'd' } }), apiVersionFor);
    assert.deepEqual((down['spec'] as Unstructured)['clusterNetwork'], { serviceDomain: 'd' });
  });

  test('stores the hub without metadata in the cluster.x-k8s.io/conversion-data annotation', () => {
    const hub = v1beta2({ paused: false, topology: { classRef: { name: 'cc' }, version: 'v1' } });
    const down = convertFromHub(hub, apiVersionFor);
    const annotations = (down['metadata'] as Unstructured)['annotations'] as Record<string, string>;
    const { metadata: _metadata, ...withoutMetadata } = hub;
    assert.deepEqual(JSON.parse(annotations[ConversionDataAnnotation] ?? 'null'), withoutMetadata);
  });

  test('writes status.initialization as infrastructureReady/controlPlaneReady, false included', () => {
    const down = convertFromHub(v1beta2({}, { initialization: { infrastructureProvisioned: true } }), apiVersionFor);
    assert.deepEqual(down['status'], { infrastructureReady: true, controlPlaneReady: false });
  });

  test('writes metav1 conditions under status.v1beta2 and legacy ones back in status.conditions', () => {
    const legacy = { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const current = { ...legacy, reason: 'Ready', observedGeneration: 1 };
    const down = convertFromHub(
      v1beta2({}, { conditions: [current], deprecated: { v1beta1: { conditions: [legacy], failureMessage: 'm' } } }),
      apiVersionFor,
    );
    assert.deepEqual(down['status'], {
      conditions: [legacy],
      failureMessage: 'm',
      v1beta2: { conditions: [current] },
      infrastructureReady: false,
      controlPlaneReady: false,
    });
  });
});

describe('Cluster v1beta2 → v1beta1 → v1beta2 through the conversion-data annotation', () => {
  const cases: [string, Unstructured, Unstructured | undefined][] = [
    ['restores an explicit paused: false', { paused: false }, undefined],
    [
      'restores explicit false initialization flags',
      {},
      { initialization: { controlPlaneInitialized: false, infrastructureProvisioned: true } },
    ],
  ];
  for (const [name, spec, status] of cases) {
    test(name, () => {
      const hub = v1beta2(spec, status);
      assert.deepEqual(convertToHub(convertFromHub(hub, apiVersionFor)), hub);
    });
  }

  test('without the annotation, a v1beta1 paused: false stays unset', () => {
    const down = withoutConversionData(convertFromHub(v1beta2({ paused: false }), apiVersionFor));
    assert.equal(convertToHub(down)['spec'], undefined);
  });
});
