import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeGenericPatches,
  computeManifestPatches,
  computeMergePatch,
} from '#shared/providers/desired/compute-manifest-patches.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';
import { deepFreeze } from '#test/support/fixtures/providers.ts';

const objs = deepFreeze([
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc-1', namespace: 'ns', labels: { app: 'a' } },
    spec: { ports: [{ port: 443 }], selector: { app: 'a' } },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc-2', namespace: 'ns', labels: { app: 'b' } },
    spec: { ports: [{ port: 443 }] },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'crb' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }],
  },
] as ComponentObject[]);
const port = (o: ComponentObject | undefined) => (o?.['spec'] as { ports: { port: number }[] }).ports[0]?.port;

describe('computeMergePatch', () => {
  test('merges objects, deletes nulls and replaces lists', () => {
    assert.deepEqual(computeMergePatch({ a: 1, b: { c: 2, d: [1] } }, { b: { c: null, d: [2] }, e: 'x' }), {
      a: 1,
      b: { d: [2] },
      e: 'x',
    });
  });
});

describe('computeManifestPatches', () => {
  const cases: ReadonlyArray<{ name: string; patch: string; want: number[] }> = [
    {
      name: 'patches every object of the kind',
      patch: 'apiVersion: v1\nkind: Service\nspec:\n  ports:\n  - port: 1\n',
      want: [1, 1],
    },
    {
      name: 'patches only the named object',
      patch: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-2\nspec:\n  ports:\n  - port: 2\n',
      want: [443, 2],
    },
    {
      name: 'applies a patch without apiVersion to every apiVersion',
      patch: 'kind: Service\nspec:\n  ports:\n  - port: 3\n',
      want: [3, 3],
    },
    {
      name: 'skips objects of another apiVersion',
      patch: 'apiVersion: v2\nkind: Service\nspec:\n  ports:\n  - port: 4\n',
      want: [443, 443],
    },
    {
      name: 'skips objects in another namespace',
      patch: 'kind: Service\nmetadata:\n  name: svc-1\n  namespace: other\nspec:\n  ports:\n  - port: 5\n',
      want: [443, 443],
    },
    {
      name: 'skips other kinds',
      patch: 'apiVersion: v1\nkind: ConfigMap\nspec:\n  ports:\n  - port: 6\n',
      want: [443, 443],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = computeManifestPatches(objs, [c.patch]);
      assert.deepEqual([port(out[0]), port(out[1])], c.want);
    });
  }

  test('applies patches in order', () => {
    const out = computeManifestPatches(objs, [
      'kind: Service\nspec:\n  selector:\n    x: "1"\n',
      'kind: Service\nspec:\n  selector: null\n',
    ]);
    assert.equal((out[0]?.['spec'] as { selector?: unknown }).selector, undefined);
  });
});

describe('computeGenericPatches', () => {
  test('adds a subject with an RFC 6902 patch to the selected group and kind', () => {
    const out = computeGenericPatches(objs, [
      {
        target: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
        patch:
          '- op: add\n  path: /subjects/-\n  value:\n    kind: ServiceAccount\n    name: extra\n    namespace: t\n',
      },
    ]);
    assert.equal((out[2]?.['subjects'] as unknown[]).length, 2);
    assert.deepEqual(out.slice(0, 2), objs.slice(0, 2));
  });

  test('selects by name and namespace', () => {
    const out = computeGenericPatches(objs, [
      {
        target: { kind: 'Service', name: 'svc-2', namespace: 'ns' },
        patch: '- op: replace\n  path: /spec/ports/0/port\n  value: 7777\n',
      },
    ]);
    assert.deepEqual([port(out[0]), port(out[1])], [443, 7777]);
  });

  test('selects by label selector', () => {
    const out = computeGenericPatches(objs, [
      { target: { labelSelector: 'app in (b, c)' }, patch: 'metadata:\n  labels:\n    hit: "true"\n' },
    ]);
    assert.deepEqual(
      out.map((o) => o.metadata.labels?.['hit']),
      [undefined, 'true', undefined],
    );
  });

  test('names the patch and object when an operation fails', () => {
    assert.throws(
      () =>
        computeGenericPatches(objs, [
          { target: { kind: 'Service' }, patch: '- op: replace\n  path: /spec/missing/0\n  value: 1\n' },
        ]),
      (err: unknown) =>
        err instanceof ProviderComponentsError &&
        err.reason === 'ComponentsPatchError' &&
        /^patch 0: failed to apply patch to ns\/svc-1: failed to apply RFC6902 patch/.test(err.message),
    );
  });

  test('refuses an invalid label selector', () => {
    assert.throws(
      () => computeGenericPatches(objs, [{ target: { labelSelector: 'a in b' }, patch: 'x: 1' }]),
      /patch 0: failed to parse label selector "a in b"/,
    );
  });
});
