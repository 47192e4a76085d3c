import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  KubeConflictError,
  type KubeError,
  KubeForbiddenError,
  KubeInvalidError,
  KubeNotFoundError,
  KubeUnavailableError,
  mapKubeError,
} from '#shared/kube/errors.ts';

describe('mapKubeError', () => {
  const target = { verb: 'apply', kind: 'MachineDeployment', namespace: 'default', name: 'md-a' };
  const cases: [string, number, unknown, new (...args: never[]) => KubeError][] = [
    ['404 is NotFound', 404, { message: 'not found' }, KubeNotFoundError],
    ['409 is Conflict', 409, { message: 'conflict' }, KubeConflictError],
    [
      '422 is Invalid',
      422,
      { message: 'invalid', details: { causes: [{ field: 'spec.replicas', message: 'bad' }] } },
      KubeInvalidError,
    ],
    [
      'a 500 for an apply body that does not fit the schema is Invalid',
      500,
      { message: 'failed to create typed patch object (x): .spec: expected map' },
      KubeInvalidError,
    ],
    ['403 is Forbidden', 403, { message: 'forbidden' }, KubeForbiddenError],
    ['503 is Unavailable', 503, { message: 'unavailable' }, KubeUnavailableError],
    ['a connection failure is Unavailable', 0, 'connect ECONNREFUSED', KubeUnavailableError],
  ];
  for (const [name, code, body, type] of cases) {
    test(name, () => {
      const err = mapKubeError(code, body, target);
      assert.ok(err instanceof type, `${err.constructor.name}`);
      assert.match(err.message, /^failed to apply MachineDeployment default\/md-a: /);
      assert.equal(err.kind, 'MachineDeployment');
    });
  }

  test('keeps the server message and the first cause field, never headers', () => {
    const err = mapKubeError(
      422,
      {
        message: 'MachineDeployment.cluster.x-k8s.io "md-a" is invalid',
        reason: 'Invalid',
        details: { causes: [{ field: 'spec.replicas', message: 'bad' }] },
      },
      target,
    );
    assert.equal(err.serverMessage, 'MachineDeployment.cluster.x-k8s.io "md-a" is invalid');
    assert.equal(err.fieldPath, 'spec.replicas');
    assert.equal(err.reason, 'Invalid');
    assert.doesNotMatch(err.message, /authorization|content-type/i);
  });
});
