// kube-controller-manager in the harness: owner references act (an owner deleted → its dependents are collected, for
// built-in and custom kinds, background and foreground) and a deleted namespace is emptied and finalized.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyObject, deleteObject, findObject, type KubeObject, type ObjectRef } from '#shared/kube/index.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';

const fieldManager = 'test';

async function waitGone(kube: TestCluster['kube'], ref: ObjectRef, timeoutMs = 30_000): Promise<number> {
  const start = Date.now();
  while ((await findObject(kube, ref)) !== undefined) {
    if (Date.now() - start > timeoutMs) assert.fail(`${ref.kind} ${ref.namespace ?? ''}/${ref.name} still exists`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return Date.now() - start;
}

function configMap(namespace: string, name: string, owner?: KubeObject): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace,
      name,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion,
                kind: owner.kind,
                name: owner.metadata.name ?? '',
                uid: owner.metadata.uid ?? '',
              },
            ],
          }
        : {}),
    },
    data: { k: 'v' },
  };
}

const ref = (o: KubeObject): ObjectRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name ?? '',
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
});

describe('kube-controller-manager in the harness', () => {
  let mgmt: TestCluster;
  before(async () => {
    mgmt = await startManagementCluster({
      name: 'kcm',
      extraCrds: [genericCrd('example.test', 'v1', 'Widget')],
      controllerManager: true,
    });
  });
  after(async () => {
    await mgmt?.stop();
  });

  test('deleting a built-in owner collects its dependent (background)', async () => {
    const owner = await applyObject(mgmt.kube, configMap('default', 'owner'), { fieldManager });
    const dependent = await applyObject(mgmt.kube, configMap('default', 'dependent', owner), { fieldManager });
    const unrelated = await applyObject(mgmt.kube, configMap('default', 'unrelated'), { fieldManager });
    await deleteObject(mgmt.kube, ref(owner));
    await waitGone(mgmt.kube, ref(dependent));
    assert.ok(await findObject(mgmt.kube, ref(unrelated)), 'an object without the owner reference stays');
  });

  test('deleting a custom-resource owner in the foreground collects its dependent first', async () => {
    const owner = await applyObject(
      mgmt.kube,
      {
        apiVersion: 'example.test/v1',
        kind: 'Widget',
        metadata: { namespace: 'default', name: 'owner-widget' },
        spec: {},
      },
      { fieldManager },
    );
    const dependent = await applyObject(mgmt.kube, configMap('default', 'widget-dependent', owner), { fieldManager });
    await deleteObject(mgmt.kube, ref(owner), { propagationPolicy: 'Foreground' });
    await waitGone(mgmt.kube, ref(dependent));
    await waitGone(mgmt.kube, ref(owner));
  });

  test('a deleted namespace is emptied and finalized', async () => {
    const ns = await applyObject(
      mgmt.kube,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } },
      { fieldManager },
    );
    const content = await applyObject(mgmt.kube, configMap('doomed', 'content'), { fieldManager });
    await deleteObject(mgmt.kube, ref(ns));
    await waitGone(mgmt.kube, ref(content));
    await waitGone(mgmt.kube, ref(ns));
  });
});
