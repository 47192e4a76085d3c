import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { computeClusterMetadataHash, computeMetadataHash } from '#shared/hash/compute-metadata-hash.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';

const topologyEntry = Object.freeze({ manager: 'capi-topology', operation: 'Apply', fieldsV1: { 'f:spec': {} } });
const otherEntry = Object.freeze({ manager: 'manager', operation: 'Update', fieldsV1: { 'f:status': {} } });
const labels = Object.freeze({ a: '1' });
const annotations = Object.freeze({ b: '2' });

describe('computeMetadataHash', () => {
  test('hashes an object with the topology’s apply entry as it did before the managed-fields mark existed', () => {
    const old = createHash('sha256')
      .update(computeStableJson({ labels, annotations }))
      .digest('base64url')
      .slice(0, 16);
    assert.equal(computeMetadataHash({ labels, annotations, managedFields: [topologyEntry] }), old);
  });
  test('changes when the topology’s apply entry is dropped (a purge of managedFields)', () =>
    assert.notEqual(
      computeMetadataHash({ labels, annotations }),
      computeMetadataHash({ labels, annotations, managedFields: [topologyEntry] }),
    ));
  test('does not change with other managers’ entries', () =>
    assert.equal(
      computeMetadataHash({ labels, managedFields: [topologyEntry] }),
      computeMetadataHash({ labels, managedFields: [otherEntry, topologyEntry] }),
    ));
  test('changes with a label', () =>
    assert.notEqual(
      computeMetadataHash({ labels, managedFields: [topologyEntry] }),
      computeMetadataHash({ labels: { a: '2' }, managedFields: [topologyEntry] }),
    ));
});

describe('computeClusterMetadataHash', () => {
  test('ignores labels and annotations (the Cluster pass’s facts)', () =>
    assert.equal(
      computeClusterMetadataHash({ labels, annotations, managedFields: [topologyEntry] } as object),
      computeClusterMetadataHash({ managedFields: [topologyEntry, otherEntry] }),
    ));
  test('changes when the topology’s apply entry is dropped', () =>
    assert.notEqual(
      computeClusterMetadataHash({ managedFields: [otherEntry] }),
      computeClusterMetadataHash({ managedFields: [topologyEntry] }),
    ));
});
