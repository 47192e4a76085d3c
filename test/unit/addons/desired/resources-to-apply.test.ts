import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterResourceSetBinding, ResourceRef } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import type { FetchedResource } from '#shared/addons/desired/resources-to-apply.ts';
import { computeResourcesToApply, resourceRefKey } from '#shared/addons/desired/resources-to-apply.ts';
import { computeResourceHash } from '#shared/addons/desired/resource-hash.ts';
import { binding, configMap, crs, deepFreeze, secret } from '#test/support/fixtures/addons.ts';

const cmRef: ResourceRef = { name: 'cni', kind: 'ConfigMap' };
const secretRef: ResourceRef = { name: 'db', kind: 'Secret' };
const cni = configMap('cni', {
  'cni.yaml': 'kind: DaemonSet\napiVersion: apps/v1\nmetadata: {name: cni, namespace: kube-system}\n',
});
const cniHash = computeResourceHash(cni);
const db = secret('db', { 'db.yaml': 'kind: Secret\napiVersion: v1\nmetadata: {name: db, namespace: x}\n' });

const found = (content: typeof cni): FetchedResource => ({ status: 'found', content });
const fetched = (entries: [ResourceRef, FetchedResource][]) =>
  deepFreeze(new Map(entries.map(([ref, f]) => [resourceRefKey(ref), f])));
const bindingWith = (
  resources: NonNullable<NonNullable<ClusterResourceSetBinding['spec']>['bindings']>[number]['resources'],
) => binding({ clusterName: 'c1', bindings: [{ clusterResourceSetName: 'crs1', resources }] });

describe('computeResourcesToApply', () => {
  const cases: {
    name: string;
    strategy: 'ApplyOnce' | 'Reconcile' | undefined;
    current: ClusterResourceSetBinding | undefined;
    want: string;
  }[] = [
    {
      name: 'applies a resource never applied (no binding yet)',
      strategy: 'ApplyOnce',
      current: undefined,
      want: 'apply NotApplied',
    },
    {
      name: 'defaults an unset strategy to ApplyOnce',
      strategy: undefined,
      current: bindingWith([{ ...cmRef, applied: true, hash: 'sha256:old' }]),
      want: 'skip AlreadyApplied',
    },
    {
      name: 'skips an ApplyOnce resource already applied even when its hash changed',
      strategy: 'ApplyOnce',
      current: bindingWith([{ ...cmRef, applied: true, hash: 'sha256:old' }]),
      want: 'skip AlreadyApplied',
    },
    {
      name: 'retries an ApplyOnce resource whose last apply failed',
      strategy: 'ApplyOnce',
      current: bindingWith([{ ...cmRef, applied: false, hash: cniHash }]),
      want: 'apply NotApplied',
    },
    {
      name: 'skips a Reconcile resource applied with the same hash',
      strategy: 'Reconcile',
      current: bindingWith([{ ...cmRef, applied: true, hash: cniHash }]),
      want: 'skip Unchanged',
    },
    {
      name: 're-applies all objects of a Reconcile resource whose hash changed',
      strategy: 'Reconcile',
      current: bindingWith([{ ...cmRef, applied: true, hash: 'sha256:old' }]),
      want: 'apply Changed',
    },
    {
      name: 'retries a Reconcile resource whose last apply failed with the same hash',
      strategy: 'Reconcile',
      current: bindingWith([{ ...cmRef, applied: false, hash: cniHash }]),
      want: 'apply NotApplied',
    },
    {
      name: 'applies a Reconcile resource missing from the binding',
      strategy: 'Reconcile',
      current: bindingWith([]),
      want: 'apply NotApplied',
    },
    {
      name: "ignores another ClusterResourceSet's entry for the same resource",
      strategy: 'ApplyOnce',
      current: binding({ bindings: [{ clusterResourceSetName: 'other', resources: [{ ...cmRef, applied: true }] }] }),
      want: 'apply NotApplied',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const plan = computeResourcesToApply(crs('crs1', [cmRef], c.strategy), c.current, fetched([[cmRef, found(cni)]]));
      const [only] = plan.resources;
      assert.equal(plan.proceed, true);
      assert.equal(plan.strategy, c.strategy ?? 'ApplyOnce');
      assert.ok(only && (only.action === 'apply' || only.action === 'skip'));
      assert.equal(`${only.action} ${only.reason}`, c.want);
      assert.equal(only.hash, cniHash);
      if (only.action === 'apply')
        assert.deepEqual(
          only.objects.map((o) => o.object['kind']),
          ['DaemonSet'],
        );
    });
  }

  test('reports a missing resource as notFound and still proceeds with the others', () => {
    const plan = computeResourcesToApply(
      crs('crs1', [secretRef, cmRef]),
      undefined,
      fetched([
        [secretRef, { status: 'notFound' }],
        [cmRef, found(cni)],
      ]),
    );
    assert.equal(plan.proceed, true);
    assert.deepEqual(
      plan.resources.map((r) => r.action),
      ['notFound', 'apply'],
    );
  });

  test('counts a resource absent from the map as notFound', () => {
    const plan = computeResourcesToApply(crs('crs1', [cmRef]), undefined, fetched([]));
    assert.deepEqual(
      plan.resources.map((r) => r.action),
      ['notFound'],
    );
  });

  test('stops the pass for a Secret of the wrong type, as upstream does', () => {
    const opaque = secret('db', { 'db.yaml': 'kind: A\n' }, 'Opaque');
    const plan = computeResourcesToApply(
      crs('crs1', [cmRef, secretRef]),
      undefined,
      fetched([
        [cmRef, found(cni)],
        [secretRef, found(opaque)],
      ]),
    );
    assert.equal(plan.proceed, false);
    const wrong = plan.resources[1];
    assert.ok(wrong?.action === 'wrongSecretType');
    assert.match(wrong.error.message, /Secret ns\/db has type "Opaque"/);
  });

  test('stops the pass when a resource could not be read', () => {
    const plan = computeResourcesToApply(
      crs('crs1', [cmRef]),
      undefined,
      fetched([[cmRef, { status: 'error', message: 'forbidden' }]]),
    );
    assert.equal(plan.proceed, false);
    assert.deepEqual(plan.resources, [{ ref: cmRef, action: 'retrievalFailed', message: 'forbidden' }]);
  });

  test('marks unreadable data invalid even when already applied, and applies the other resources', () => {
    const broken = configMap('cni', { 'cni.yaml': 'kind: [\n' });
    const plan = computeResourcesToApply(
      crs('crs1', [cmRef, secretRef]),
      bindingWith([{ ...cmRef, applied: true, hash: cniHash }]),
      fetched([
        [cmRef, found(broken)],
        [secretRef, found(db)],
      ]),
    );
    assert.equal(plan.proceed, true);
    const [invalid, apply] = plan.resources;
    assert.ok(invalid?.action === 'invalid');
    assert.match(invalid.error.message, /ConfigMap ns\/cni key "cni\.yaml" document 1/);
    assert.equal(apply?.action, 'apply');
  });

  test('gives the same plan when computed twice', () => {
    const args = [
      crs('crs1', [cmRef, secretRef], 'Reconcile'),
      undefined,
      fetched([
        [cmRef, found(cni)],
        [secretRef, found(db)],
      ]),
    ] as const;
    assert.deepEqual(computeResourcesToApply(...args), computeResourcesToApply(...args));
  });
});
