// Tests for shared/api/addons/v1beta2/cluster-resource-set.ts (the v1beta2 shapes the add-on pass works on).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { readFixture } from '#test/support/fixtures/addons.ts';

describe('ClusterResourceSet schemas', () => {
  test('parse the example ClusterResourceSet and binding', () => {
    const [crs, binding] = readFixture('crs-and-binding.yaml')
      .split(/^---$/m)
      .map((doc) => parse(doc) as unknown);
    const parsedCrs = parseObject(ClusterResourceSet, 'ClusterResourceSet', crs);
    assert.equal(parsedCrs.spec.strategy, 'Reconcile');
    assert.deepEqual(parsedCrs.spec.resources, [
      { name: 'db-secret', kind: 'Secret' },
      { name: 'calico-addon', kind: 'ConfigMap' },
    ]);
    const parsedBinding = parseObject(ClusterResourceSetBinding, 'ClusterResourceSetBinding', binding);
    assert.equal(
      parsedBinding.spec?.bindings?.[0]?.resources?.[1]?.hash,
      'sha256:c1d0dc7e51bb05945a2f99e6745dc4b1043f8a03f37ad21391fe92353a02066e',
    );
  });

  test('reject a resource kind other than Secret or ConfigMap, naming the field', () => {
    const raw = {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      metadata: { name: 'crs1', namespace: 'ns' },
      spec: { clusterSelector: { matchLabels: { a: 'b' } }, resources: [{ name: 'x', kind: 'Deployment' }] },
    };
    assert.throws(
      () => parseObject(ClusterResourceSet, 'ClusterResourceSet', raw),
      (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.match(err.message, /ClusterResourceSet ns\/crs1: spec\.resources\[0\]\.kind/);
        return true;
      },
    );
  });

  test('mark clusterSelector atomic as upstream CRDs do', () => {
    const selector = ClusterResourceSet.shape.spec.shape.clusterSelector;
    assert.equal(selector.meta()?.['x-kubernetes-map-type'], 'atomic');
  });
});
