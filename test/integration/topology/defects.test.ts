// Defects found by trying the topology controller (issue 16), each proven on a real management cluster: owner
// references of templates several ClusterClasses share, what a pass that fails half-way leaves behind, and the
// conditions a ClusterClass with an invalid variable schema gets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reconcileClusterClass } from '#shared/topology/index.ts';
import { templates } from '#test/builders/topology.ts';
import {
  capi,
  mustGet,
  pass,
  put,
  setUpClass,
  testCluster,
  testClusterClass,
  topologyCondition,
  useTopologyCluster,
} from '#test/integration/topology/setup.ts';

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

  test('a ClusterClass with an invalid variable schema says which variable and field, and so do its Clusters', async () => {
    const ns = 'bad-schema';
    const cc = testClusterClass(ns);
    cc.spec!.variables = [
      ...(cc.spec!.variables ?? []),
      { name: 'region', required: false, schema: { openAPIV3Schema: { type: 'string', pattern: '([a-z' } } },
    ];
    await put(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const t of Object.values(templates)) {
      const template = t();
      await put(ctx, { ...template, metadata: { ...template.metadata, namespace: ns } });
    }
    await put(ctx, cc);
    const key = { namespace: ns, name: 'quick-start' };

    const outcome = await reconcileClusterClass(ctx.deps, key);

    assert.equal(outcome.result, 'Error', 'an Error outcome: retried with backoff, not in a hot loop');
    assert.match(outcome.error ?? '', /spec\.variables\[region\]\.schema\.openAPIV3Schema\.pattern/);
    const stored = await mustGet(ctx, capi, 'ClusterClass', key);
    const conditions = (stored['status'] as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
    const variables = conditions.find((c) => c['type'] === 'VariablesReconciled');
    assert.equal(variables?.['status'], 'False');
    assert.equal(variables?.['reason'], 'VariableDiscoveryFailed');
    assert.equal(variables?.['severity'], 'Error');
    assert.match(
      variables?.['message'] ?? '',
      /^VariableDiscovery failed: spec\.variables\[region\]\.schema\.openAPIV3Schema\.pattern: Invalid value: "\(\[a-z"/,
    );
    const again = await reconcileClusterClass(ctx.deps, key);
    assert.deepEqual(again.changed, [], 'a second pass writes nothing (the condition does not churn)');

    await put(ctx, testCluster(ns, 'c1'));
    const clusterOutcome = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(clusterOutcome.result, 'Error', 'the Cluster backs off too instead of requeueing every 10 s');
    const condition = await topologyCondition(ctx, { namespace: ns, name: 'c1' });
    assert.equal(condition?.['status'], 'False');
    assert.equal(condition?.['reason'], 'ClusterClassNotReconciled');
    assert.match(
      condition?.['message'] ?? '',
      /ClusterClass bad-schema\/quick-start: VariableDiscovery failed: spec\.variables\[region\]\.schema\.openAPIV3Schema\.pattern/,
    );

    await put(ctx, testClusterClass(ns));
    const fixed = await reconcileClusterClass(ctx.deps, key);
    assert.equal(fixed.result, 'Success', fixed.error);
    const recovered = await pass(ctx, { namespace: ns, name: 'c1' });
    assert.equal(recovered.result, 'Success', recovered.error);
  });
});
