import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeInvalidStatus } from '#shared/webhooks/admission-status.ts';

const cluster = { group: 'cluster.x-k8s.io', kind: 'Cluster', name: 'c1' };

describe('computeInvalidStatus', () => {
  test('names the object, the field and the reason as apimachinery NewInvalid does for one error', () => {
    const status = computeInvalidStatus(cluster, [
      { type: 'Required', field: 'spec.topology.variables', detail: 'required variable "cpu" must be set' },
    ]);
    assert.deepEqual(status, {
      metadata: {},
      status: 'Failure',
      message:
        'Cluster.cluster.x-k8s.io "c1" is invalid: spec.topology.variables: Required value: required variable "cpu" must be set',
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'c1',
        group: 'cluster.x-k8s.io',
        kind: 'Cluster',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: required variable "cpu" must be set',
            field: 'spec.topology.variables',
          },
        ],
      },
    });
  });

  test('lists several errors in brackets and drops duplicates', () => {
    const forbidden = { type: 'Forbidden', field: 'spec.topology', detail: 'cannot be removed' } as const;
    const status = computeInvalidStatus(cluster, [
      forbidden,
      forbidden,
      { type: 'Invalid', field: 'spec.topology.version', badValue: 'v1', detail: 'bad' },
    ]);
    assert.equal(
      status.message,
      'Cluster.cluster.x-k8s.io "c1" is invalid: [spec.topology: Forbidden: cannot be removed, spec.topology.version: Invalid value: "v1": bad]',
    );
    assert.deepEqual(
      status.details?.causes?.map((c) => c.reason),
      ['FieldValueForbidden', 'FieldValueInvalid'],
    );
  });
});
