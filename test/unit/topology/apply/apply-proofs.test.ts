import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeApplyProof, computeNoChangeRecord, createApplyProofs } from '#shared/topology/apply/apply-proofs.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const topologyEntry = { manager: 'capi-topology', operation: 'Apply', apiVersion: 'v1beta1', fieldsType: 'FieldsV1' };
const stored = (
  rv: string,
  uid = 'uid-1',
  meta: { generation?: number | undefined; labels?: Record<string, string>; managedFields?: object[] } = {},
): Unstructured =>
  Object.freeze({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'DockerCluster',
    metadata: {
      namespace: 'ns',
      name: 'c1-abcde',
      uid,
      resourceVersion: rv,
      ...('generation' in meta
        ? meta.generation === undefined
          ? {}
          : { generation: meta.generation }
        : { generation: 1 }),
      ...(meta.labels ? { labels: meta.labels } : {}),
      managedFields: meta.managedFields ?? [topologyEntry],
    },
    spec: { loadBalancer: { imageTag: 'v1' } },
  }) as Unstructured;

const intent = (imageTag: string, uid?: string): Unstructured =>
  Object.freeze({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'DockerCluster',
    metadata: { namespace: 'ns', name: 'c1-abcde', ...(uid ? { uid } : {}) },
    spec: { loadBalancer: { imageTag } },
  }) as Unstructured;

function recordedBy(object: Unstructured, applied: Unstructured) {
  const first = createApplyProofs(undefined);
  first.record(object, applied);
  return first.recorded();
}

describe('createApplyProofs', () => {
  test('an object with the recorded uid and resourceVersion and the same intent is proven unchanged', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.isProven(stored('10'), intent('v1', 'uid-1')), true);
  });

  test('a status write (new resourceVersion, same generation and metadata) is still proven', () => {
    // NOTE: upstream's managers write status through the status subresource: their entry names it.
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    const statusEntry = {
      manager: 'manager',
      operation: 'Update',
      subresource: 'status',
      time: '2026-11-26T22:00:00Z',
    };
    assert.equal(
      proofs.isProven(stored('11', 'uid-1', { managedFields: [topologyEntry, statusEntry] }), intent('v1', 'uid-1')),
      true,
    );
  });

  test('a spec write (new generation) is not proven', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.isProven(stored('11', 'uid-1', { generation: 2 }), intent('v1', 'uid-1')), false);
  });

  test('a metadata write (a label, or another manager taking a field of the main resource) is not proven', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.isProven(stored('11', 'uid-1', { labels: { team: 'a' } }), intent('v1', 'uid-1')), false);
    const taken = { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-26T22:00:00Z' };
    assert.equal(
      proofs.isProven(stored('11', 'uid-1', { managedFields: [topologyEntry, taken] }), intent('v1', 'uid-1')),
      false,
    );
  });

  test('an object without a generation is proven by its resourceVersion only', () => {
    const proofs = createApplyProofs(recordedBy(stored('10', 'uid-1', { generation: undefined }), intent('v1')));
    assert.equal(proofs.isProven(stored('10', 'uid-1', { generation: undefined }), intent('v1', 'uid-1')), true);
    assert.equal(proofs.isProven(stored('11', 'uid-1', { generation: undefined }), intent('v1', 'uid-1')), false);
  });

  test('a re-created object (another uid) is not proven', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.isProven(stored('10', 'uid-2'), intent('v1', 'uid-2')), false);
  });

  test('a changed intent (the desired state moved) is not proven', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.isProven(stored('10'), intent('v2', 'uid-1')), false);
  });

  test('key order of the intent does not matter', () => {
    const reordered = {
      spec: { loadBalancer: { imageTag: 'v1' } },
      metadata: { name: 'c1-abcde', namespace: 'ns' },
      kind: 'DockerCluster',
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    } as Unstructured;
    assert.equal(computeApplyProof(stored('10'), reordered), computeApplyProof(stored('10'), intent('v1')));
  });

  test('without a previous record nothing is proven and every optional kind must be read', () => {
    const proofs = createApplyProofs(undefined);
    assert.equal(proofs.isProven(stored('10'), intent('v1', 'uid-1')), false);
    assert.equal(proofs.mayHaveApplied('MachinePool'), true);
  });

  test('with a record, only the kinds it holds may exist', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    assert.equal(proofs.mayHaveApplied('DockerCluster'), true);
    assert.equal(proofs.mayHaveApplied('MachinePool'), false);
  });

  test('the new record holds only what this pass recorded, sorted by key', () => {
    const proofs = createApplyProofs(recordedBy(stored('10'), intent('v1')));
    const md = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachineDeployment',
      metadata: { namespace: 'ns', name: 'c1-md-a', uid: 'u', resourceVersion: '3' },
    } as Unstructured;
    proofs.record(md, md);
    proofs.record(stored('12'), intent('v1'));
    assert.deepEqual(Object.keys(proofs.recorded()), ['DockerCluster ns/c1-abcde', 'MachineDeployment ns/c1-md-a']);
    assert.equal(proofs.recorded()['DockerCluster ns/c1-abcde'], computeApplyProof(stored('12'), intent('v1')));
  });

  test('a noted object (kept, not applied) gets an empty entry, which names it but proves nothing', () => {
    const first = createApplyProofs(undefined);
    first.note(stored('10'));
    assert.deepEqual(first.recorded(), { 'DockerCluster ns/c1-abcde': '' });
    assert.deepEqual(first.generations(), {}, 'a noted object has no generation of the pass');
    const next = createApplyProofs(first.recorded());
    assert.equal(next.isProven(stored('10'), intent('v1', 'uid-1')), false);
    assert.equal(next.mayHaveApplied('DockerCluster'), true);
  });

  test('noting an object the pass recorded keeps its proof', () => {
    const proofs = createApplyProofs(undefined);
    proofs.record(stored('10'), intent('v1'));
    proofs.note(stored('10'));
    assert.deepEqual(proofs.recorded(), recordedBy(stored('10'), intent('v1')));
  });

  test('a forgotten (deleted) object is neither recorded nor noted afterwards', () => {
    const proofs = createApplyProofs(undefined);
    proofs.record(stored('10'), intent('v1'));
    proofs.forget(stored('10'));
    proofs.note(stored('10'));
    assert.deepEqual(proofs.recorded(), {});
    assert.deepEqual(proofs.generations(), {});
    assert.deepEqual(proofs.metadataHashes(), {});
  });

  test('an object without uid or resourceVersion is not recorded', () => {
    const proofs = createApplyProofs(undefined);
    proofs.record(intent('v1'), intent('v1'));
    assert.deepEqual(proofs.recorded(), {});
  });
});

describe('computeNoChangeRecord', () => {
  test('names the Cluster and hashes the entries, so equal records compare equal', () => {
    const cluster = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { uid: 'c', resourceVersion: '7' },
    };
    const a = computeNoChangeRecord(cluster as Unstructured, { 'X ns/a': '1', 'Y ns/b': '2' });
    const b = computeNoChangeRecord(cluster as Unstructured, { 'Y ns/b': '2', 'X ns/a': '1' });
    assert.equal(a.objectUid, 'c');
    assert.equal(a.resourceVersion, '7');
    assert.equal(a.intentHash, b.intentHash);
    assert.notEqual(a.intentHash, computeNoChangeRecord(cluster as Unstructured, { 'X ns/a': '1' }).intentHash);
  });
});
