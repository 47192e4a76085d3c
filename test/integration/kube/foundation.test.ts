// The foundation against a real kube-apiserver: our CRDs accept and reject what upstream's do, our parser names the
// field, server-side apply shares labels between managers, dry-run persists nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { parseObject } from '#shared/api/parse.ts';
import { ValidationError } from '#shared/errors/index.ts';
import {
  applyObject,
  deleteObject,
  KubeConflictError,
  findObject,
  getObject,
  KubeInvalidError,
  KubeNotFoundError,
  listObjectMetadata,
  listObjects,
  type KubeObject,
} from '#shared/kube/index.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';

const ns = 'default';

function clusterWithTopology(name: string, overrides: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: ns, name },
    spec: {
      clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
      topology: {
        classRef: { name: 'quick-start' },
        version: 'v1.30.0',
        controlPlane: { replicas: 3, metadata: { labels: { tier: 'cp' } } },
        workers: {
          machineDeployments: [
            { class: 'default-worker', name: 'md-0', replicas: 2, deletion: { nodeDrainTimeoutSeconds: 600 } },
            { class: 'default-worker', name: 'md-1' },
          ],
        },
        variables: [
          { name: 'imageRepository', value: 'registry.k8s.io' },
          { name: 'etcd', value: { dataDir: '/var/lib/etcd', quota: 8 } },
        ],
        ...overrides,
      },
    },
  };
}

describe('foundation on a real kube-apiserver', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster();
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('a Cluster with a topology created by server-side apply reads back parsed', async () => {
    await applyObject(mgmt.kube, clusterWithTopology('c1'), { fieldManager: 'user' });
    const raw = await getObject(mgmt.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: ns,
      name: 'c1',
    });
    const cluster = parseObject(Cluster, 'Cluster', raw);
    assert.equal(cluster.spec?.topology?.classRef.name, 'quick-start');
    assert.equal(cluster.spec?.topology?.controlPlane?.replicas, 3);
    assert.deepEqual(
      cluster.spec?.topology?.workers?.machineDeployments?.map((md) => [
        md.name,
        md.replicas,
        md.deletion?.nodeDrainTimeoutSeconds,
      ]),
      [
        ['md-0', 2, 600],
        ['md-1', undefined, undefined],
      ],
    );
    assert.deepEqual(cluster.spec?.topology?.variables?.[1]?.value, { dataDir: '/var/lib/etcd', quota: 8 });
    assert.ok(cluster.metadata.uid, 'server assigned a uid');
  });

  test('the API server rejects an invalid topology and names the field', async () => {
    const bad = clusterWithTopology('bad', { controlPlane: { replicas: 'three' } });
    await assert.rejects(
      () => applyObject(mgmt.kube, bad, { fieldManager: 'user' }),
      (err: unknown) => {
        assert.ok(err instanceof KubeInvalidError, `expected KubeInvalidError, got ${String(err)}`);
        assert.match(err.message, /^failed to apply Cluster default\/bad: /);
        assert.match(err.serverMessage, /spec\.topology\.controlPlane\.replicas/);
        return true;
      },
    );
    assert.equal(
      await findObject(mgmt.kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: ns,
        name: 'bad',
      }),
      undefined,
    );
  });

  test('our parser rejects the same object with kind, name and field path', () => {
    const bad = clusterWithTopology('bad', { controlPlane: { replicas: 'three' } });
    assert.throws(
      () => parseObject(Cluster, 'Cluster', bad),
      (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.equal(err.fieldPath, 'spec.topology.controlPlane.replicas');
        assert.match(err.message, /^invalid Cluster default\/bad: spec\.topology\.controlPlane\.replicas: /);
        return true;
      },
    );
  });

  test('machineDeployments merge by name under server-side apply, as on a real management cluster', async () => {
    // A second manager adds md-2 only; md-0 and md-1 from the first manager stay.
    await applyObject(
      mgmt.kube,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { namespace: ns, name: 'c1' },
        spec: {
          topology: {
            classRef: { name: 'quick-start' },
            version: 'v1.30.0',
            workers: { machineDeployments: [{ class: 'default-worker', name: 'md-2' }] },
          },
        },
      },
      { fieldManager: 'other', force: true },
    );
    const cluster = parseObject(
      Cluster,
      'Cluster',
      await getObject(mgmt.kube, {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: ns,
        name: 'c1',
      }),
    );
    assert.deepEqual(
      cluster.spec?.topology?.workers?.machineDeployments?.map((md) => md.name),
      ['md-0', 'md-1', 'md-2'],
    );
  });

  test('two field managers co-own metadata.labels: re-applying A without its label removes it, B keeps its own', async () => {
    const cm = (labels: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ns, name: 'shared-labels', labels },
      data: { k: 'v' },
    });
    await applyObject(mgmt.kube, cm({ a: '1', b: '1' }), { fieldManager: 'manager-a' });
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'shared-labels', labels: { c: '1' } } },
      { fieldManager: 'manager-b' },
    );
    await applyObject(mgmt.kube, cm({ a: '1' }), { fieldManager: 'manager-a' });
    const got = await getObject(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'shared-labels',
    });
    assert.deepEqual(got.metadata.labels, { a: '1', c: '1' });
    assert.deepEqual((got['data'] as Record<string, string>)['k'], 'v');
  });

  test('dry-run apply returns the defaulted object and persists nothing', async () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: ns, name: 'dry' },
      spec: {
        selector: { matchLabels: { app: 'dry' } },
        template: { metadata: { labels: { app: 'dry' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    };
    const before = mgmt.log.mutating().length;
    const result = await applyObject(mgmt.kube, deployment, { fieldManager: 'user', dryRun: true });
    const spec = result['spec'] as {
      revisionHistoryLimit?: number;
      progressDeadlineSeconds?: number;
      strategy?: { type?: string };
    };
    assert.equal(spec.revisionHistoryLimit, 10, 'defaulted by the API server');
    assert.equal(spec.strategy?.type, 'RollingUpdate');
    assert.ok(result.metadata.uid, 'dry-run returns server-set metadata');
    assert.equal(mgmt.log.mutating().length, before, 'a dry-run is not counted as mutating');
    await assert.rejects(
      () => getObject(mgmt.kube, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'dry' }),
      KubeNotFoundError,
    );
  });

  test('list filters by label selector and delete honours the uid precondition', async () => {
    for (const [name, team] of [
      ['l1', 'x'],
      ['l2', 'y'],
      ['l3', 'x'],
    ] as const) {
      await applyObject(
        mgmt.kube,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name, labels: { team } } },
        { fieldManager: 'user' },
      );
    }
    const listed = await listObjects(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      labelSelector: 'team=x',
    });
    assert.deepEqual(listed.items.map((i) => i.metadata.name).sort(), ['l1', 'l3']);
    assert.equal(listed.items[0]?.kind, 'ConfigMap');
    await assert.rejects(
      () =>
        deleteObject(
          mgmt.kube,
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'l1' },
          { uid: 'not-the-uid' },
        ),
      (err: unknown) =>
        err instanceof KubeConflictError &&
        /^failed to delete ConfigMap default\/l1: .*the UID in the precondition \(not-the-uid\)/.test(err.message),
    );
    assert.equal(
      await deleteObject(
        mgmt.kube,
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'l1' },
        { uid: listed.items.find((i) => i.metadata.name === 'l1')?.metadata.uid },
      ),
      true,
    );
    assert.equal(
      await deleteObject(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'l1' }),
      false,
    );
  });

  test('a metadata list pages through every object of a kind and keeps identity and generation only', async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paged' } },
      {
        fieldManager: 'user',
      },
    );
    for (const name of names)
      await applyObject(
        mgmt.kube,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'paged', name },
          data: { big: 'x'.repeat(4096) },
        },
        { fieldManager: 'user' },
      );
    const full = await listObjects(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'paged' });
    const listed = await listObjectMetadata(mgmt.kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'paged' }, 2);
    // NOTE: the namespace's kube-root-ca.crt may or may not be there yet (a controller writes it): pages of 2.
    assert.equal(listed.pages, Math.ceil(full.items.length / 2));
    assert.ok(listed.pages >= 3);
    assert.deepEqual(listed.items.map((i) => i.name).sort(), full.items.map((o) => o.metadata.name).sort());
    for (const item of listed.items) {
      const o = full.items.find((f) => f.metadata.name === item.name);
      assert.deepEqual(item, { namespace: 'paged', name: item.name, uid: o?.metadata.uid, generation: 0 });
    }
  });
});
