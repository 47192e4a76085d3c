import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeDefaultTargetNamespace,
  computeTargetNamespace,
} from '#shared/providers/desired/compute-target-namespace.ts';
import { parseComponentsYaml } from '#shared/providers/desired/parse-components-yaml.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';
import { componentsYaml, deepFreeze } from '#test/support/fixtures/providers.ts';

const objs = deepFreeze(parseComponentsYaml(componentsYaml, 'fixture'));

describe('computeTargetNamespace', () => {
  test('renames the Namespace object and keeps it first', () => {
    const out = computeTargetNamespace(objs, 'team-a');
    assert.deepEqual(out[0]?.metadata.name, 'team-a');
    assert.equal(out.filter((o) => o.kind === 'Namespace').length, 1);
  });

  test('adds a Namespace object when the components have none', () => {
    const out = computeTargetNamespace(
      objs.filter((o) => o.kind !== 'Namespace'),
      'team-a',
    );
    assert.deepEqual(out.at(-1), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  });

  test('sets the namespace on namespaced kinds it did not have', () => {
    const cm = deepFreeze([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] as ComponentObject[]);
    assert.equal(computeTargetNamespace(cm, 'team-a')[0]?.metadata.namespace, 'team-a');
  });

  test('refuses a malformed inject-ca-from annotation', () => {
    const bad = deepFreeze([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'w', annotations: { 'cert-manager.io/inject-ca-from': 'no-slash' } },
      },
    ] as ComponentObject[]);
    assert.throws(
      () => computeTargetNamespace(bad, 'x'),
      (err: unknown) =>
        err instanceof ProviderComponentsError &&
        /does not have a correct value for cert-manager\.io\/inject-ca-from/.test(err.message),
    );
  });
});

describe('computeDefaultTargetNamespace', () => {
  test('is the name of the only Namespace object', () =>
    assert.equal(computeDefaultTargetNamespace(objs), 'capd-system'));
  test('is undefined without a Namespace object', () => assert.equal(computeDefaultTargetNamespace([]), undefined));
  test('refuses two Namespace objects', () => {
    const two = deepFreeze([
      ...objs,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
    ] as ComponentObject[]);
    assert.throws(() => computeDefaultTargetNamespace(two), /no more than one resource with Kind Namespace/);
  });
});
