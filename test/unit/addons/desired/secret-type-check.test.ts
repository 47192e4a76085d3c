import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WrongSecretTypeError, computeSecretTypeCheck } from '#shared/addons/desired/secret-type-check.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

describe('computeSecretTypeCheck', () => {
  test('accepts a Secret of type addons.cluster.x-k8s.io/resource-set', () => {
    assert.equal(
      computeSecretTypeCheck(deepFreeze({ namespace: 'ns', name: 'db', type: 'addons.cluster.x-k8s.io/resource-set' })),
      undefined,
    );
  });

  const rejected: { name: string; type: string | undefined; shown: string }[] = [
    { name: 'rejects an Opaque Secret, naming it and its type', type: 'Opaque', shown: '"Opaque"' },
    { name: 'rejects a Secret without a type', type: undefined, shown: '""' },
  ];
  for (const c of rejected) {
    test(c.name, () => {
      const err = computeSecretTypeCheck(deepFreeze({ namespace: 'ns', name: 'db', type: c.type }));
      assert.ok(err instanceof WrongSecretTypeError);
      assert.equal(
        err.message,
        `unsupported secret type: Secret ns/db has type ${c.shown}, a ClusterResourceSet only reads Secrets of type "addons.cluster.x-k8s.io/resource-set"`,
      );
      assert.equal(err.reason, 'WrongSecretType');
      assert.equal(err.objectName, 'db');
      assert.equal(err.namespace, 'ns');
    });
  }
});
