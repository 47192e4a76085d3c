import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clusterAllowedPaths,
  computeApplyIntent,
  computeFilteredObject,
  defaultAllowedPaths,
} from '#shared/topology/apply/apply-intent.ts';
import { computeApplyProof } from '#shared/topology/apply/apply-proofs.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
};

const desiredCluster = (annotations?: Record<string, string>): Unstructured =>
  deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: {
      namespace: 'bench',
      name: 'c-0001',
      labels: { 'cluster.x-k8s.io/cluster-name': 'c-0001', 'topology.cluster.x-k8s.io/owned': '', team: 'a' },
      ...(annotations ? { annotations } : {}),
    },
    spec: {
      topology: { classRef: { name: 'in-memory' }, version: 'v1.36.4' },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DevCluster', name: 'c-0001-x6jck' },
      controlPlaneRef: { apiGroup: 'controlplane.cluster.x-k8s.io', kind: 'KubeadmControlPlane', name: 'c-0001-l6vx4' },
    },
  }) as Unstructured;

const stored = deepFreeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { namespace: 'bench', name: 'c-0001', uid: 'uid-1', resourceVersion: '7', generation: 3 },
}) as Unstructured;

describe('computeApplyIntent', () => {
  const cases: { name: string; annotations?: Record<string, string> }[] = [
    { name: 'a Cluster without annotations' },
    { name: 'a Cluster with an empty annotation map', annotations: {} },
    {
      name: 'a Cluster with a pending-hooks annotation of the lifecycle hooks',
      annotations: { 'runtime.cluster.x-k8s.io/pending-hooks': 'AfterControlPlaneInitialized' },
    },
    { name: "a Cluster with a user's annotation", annotations: { 'example.com/owner': 'team-a' } },
  ];
  for (const { name, annotations } of cases) {
    test(`the Cluster's intent carries no annotation map for ${name} (upstream FilterIntent)`, () => {
      const intent = computeApplyIntent(desiredCluster(annotations), { allowedPaths: clusterAllowedPaths }, 'uid-1');
      assert.deepEqual(intent.metadata, {
        namespace: 'bench',
        name: 'c-0001',
        uid: 'uid-1',
        labels: { 'cluster.x-k8s.io/cluster-name': 'c-0001', 'topology.cluster.x-k8s.io/owned': '' },
      });
    });
  }

  test('keeps the upgrade-step annotation, the only one the topology owns on the Cluster', () => {
    const intent = computeApplyIntent(
      desiredCluster({ 'topology.internal.cluster.x-k8s.io/upgrade-step': 'v1.37.0', 'example.com/owner': 'a' }),
      { allowedPaths: clusterAllowedPaths },
      'uid-1',
    );
    assert.deepEqual(intent.metadata.annotations, { 'topology.internal.cluster.x-k8s.io/upgrade-step': 'v1.37.0' });
  });

  test("the Cluster's no-change proof does not depend on annotations the topology does not own", () => {
    const proofs = cases.map(({ annotations }) =>
      computeApplyProof(
        stored,
        computeApplyIntent(desiredCluster(annotations), { allowedPaths: clusterAllowedPaths }, 'uid-1'),
      ),
    );
    assert.equal(new Set(proofs).size, 1);
  });

  test('drops empty label and annotation maps of an object applied whole', () => {
    const object = deepFreeze({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'DevCluster',
      metadata: { namespace: 'bench', name: 'c-0001-x6jck', labels: {}, annotations: {} },
      spec: { backend: { inMemory: {} } },
    }) as Unstructured;
    const intent = computeApplyIntent(object, { allowedPaths: defaultAllowedPaths }, undefined);
    assert.deepEqual(intent.metadata, { namespace: 'bench', name: 'c-0001-x6jck' });
  });
});

describe('computeFilteredObject', () => {
  test('keeps an empty map the desired object has under an allowed path', () => {
    const object = deepFreeze({ spec: { backend: { inMemory: {} } }, status: { ready: true } });
    assert.deepEqual(computeFilteredObject(object, { allowedPaths: [['spec']] }), {
      spec: { backend: { inMemory: {} } },
    });
  });

  test('drops a map whose every field was filtered out', () => {
    const object = deepFreeze({ metadata: { annotations: { a: '1' }, name: 'x' }, spec: { a: { b: 1 } } });
    assert.deepEqual(
      computeFilteredObject(object, {
        allowedPaths: [
          ['metadata', 'name'],
          ['metadata', 'annotations', 'z'],
          ['spec', 'a', 'c'],
        ],
      }),
      { metadata: { name: 'x' } },
    );
  });

  test('leaves its input untouched', () => {
    const object = deepFreeze({ metadata: { annotations: { a: '1' } } });
    computeFilteredObject(object, { allowedPaths: [['metadata', 'annotations', 'z']] });
    assert.deepEqual(object, { metadata: { annotations: { a: '1' } } });
  });
});
