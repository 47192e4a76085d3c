import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '#shared/kube/index.ts';
import { computeStatusFingerprint } from '#functions/forwarder/compute-status-fingerprint.ts';

const kcp = (metadata: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
  Object.freeze({
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    metadata: { name: 'cp', generation: 2, resourceVersion: '10', ...metadata },
    status: { observedGeneration: 2, version: 'v1.36.4', replicas: 1, readyReplicas: 1, ...status },
  });

describe('computeStatusFingerprint', () => {
  const base = computeStatusFingerprint(kcp({}, {}));
  const changes: [string, KubeObject][] = [
    ['changes with the generation', kcp({ generation: 3 }, {})],
    ['changes with the observed generation', kcp({}, { observedGeneration: 1 })],
    ['changes with the status version', kcp({}, { version: 'v1.37.0' })],
    ['changes with the replicas', kcp({}, { replicas: 2 })],
    ['changes with the ready replicas', kcp({}, { readyReplicas: 0 })],
    ['changes with the up-to-date replicas', kcp({}, { upToDateReplicas: 0 })],
    ['changes with the initialization', kcp({}, { initialization: { controlPlaneInitialized: true } })],
    ['changes with v1beta1 updated replicas', kcp({}, { deprecated: { v1beta1: { updatedReplicas: 1 } } })],
    ['changes with the deletion', kcp({ deletionTimestamp: '2026-11-25T00:00:00Z' }, {})],
  ];
  for (const [name, obj] of changes) test(name, () => assert.notEqual(computeStatusFingerprint(obj), base));

  const same: [string, KubeObject][] = [
    ['ignores the resourceVersion', kcp({ resourceVersion: '11' }, {})],
    ['ignores conditions', kcp({}, { conditions: [{ type: 'Available', status: 'True' }] })],
    ['ignores labels and annotations', kcp({ labels: { a: 'b' }, annotations: { c: 'd' } }, {})],
  ];
  for (const [name, obj] of same) test(name, () => assert.equal(computeStatusFingerprint(obj), base));

  test('an object without status has a fingerprint', () => {
    assert.equal(typeof computeStatusFingerprint({ apiVersion: 'v1', kind: 'X', metadata: {} }), 'string');
  });
});
