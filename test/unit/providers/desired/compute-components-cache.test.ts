import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import {
  computeComponentsCacheSecret,
  computeOperatorHash,
  parseComponentsCache,
} from '#shared/providers/desired/compute-components-cache.ts';
import type { OperatorHashInput } from '#shared/providers/desired/compute-components-cache.ts';
import { computeGoProviderSpecJson } from '#shared/providers/desired/go-json-provider-spec.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';

// Cases and golden output of test/support/golden/operator-hash (Go's encoding/json over the operator's own v1alpha2 types).
const dir = new URL('../../../support/fixtures/golden/', import.meta.url);
type Case = {
  name: string;
  spec: unknown;
  configSecret?: { data?: Record<string, string> };
  configMap?: { data?: Record<string, string>; binaryData?: Record<string, string> };
  cacheSecret: { data?: Record<string, string> };
};
const cases = JSON.parse(readFileSync(new URL('operator-hash-cases.json', dir), 'utf8')) as Case[];
const golden = JSON.parse(readFileSync(new URL('operator-hash-golden.json', dir), 'utf8')) as {
  name: string;
  specJson: string;
  hash: string;
}[];

describe('the operator applied-spec hash, against Go', () => {
  for (const c of cases) {
    const want = golden.find((g) => g.name === c.name);
    test(`${c.name}: spec bytes`, () => {
      assert.ok(want, 'golden entry missing; run test/support/golden/operator-hash/regenerate.sh');
      assert.equal(computeGoProviderSpecJson(Object.freeze(c.spec)), want.specJson);
    });
    test(`${c.name}: hash`, () => {
      const input: OperatorHashInput = {
        spec: c.spec,
        configSecret: c.configSecret,
        configMap: c.configMap,
        cacheData: c.cacheSecret.data,
      };
      assert.equal(computeOperatorHash(input), want?.hash);
    });
  }
  test('is bare lowercase hex, not prefixed', () =>
    assert.match(computeOperatorHash({ spec: {}, cacheData: undefined }), /^[0-9a-f]{64}$/u));
});

describe('computeComponentsCacheSecret', () => {
  const provider = Object.freeze({
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
    kind: 'InfrastructureProvider',
    metadata: { name: 'aws', namespace: 'capa-system', uid: 'u-1' },
    spec: { version: 'v2.5.0' },
  }) as unknown as Provider;
  const objects: ComponentObject[] = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'm', namespace: 'capa-system' },
      spec: { a: '<b>' },
    },
  ];

  test('uses the operator name, owner and key, and appends the missing Namespace', () => {
    const s = computeComponentsCacheSecret({ provider, typeWord: 'infrastructure', objects, componentsSize: 10 });
    assert.equal(s.metadata.name, 'infrastructure-aws-v2.5.0-cache');
    assert.equal(s.metadata.namespace, 'capa-system');
    assert.deepEqual(s.metadata['ownerReferences'], [
      { apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind: 'InfrastructureProvider', name: 'aws', uid: 'u-1' },
    ]);
    const text = Buffer.from(s.data?.['cache'] ?? '', 'base64').toString('utf8');
    assert.equal(
      text,
      '[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"m","namespace":"capa-system"},"spec":{"a":"\\u003cb\\u003e"}},' +
        '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"capa-system"}}]',
    );
    assert.deepEqual(
      parseComponentsCache(s).map((o) => o.kind),
      ['Deployment', 'Namespace'],
    );
  });

  test('compresses above 1 MiB of components and still reads back', () => {
    const s = computeComponentsCacheSecret({ provider, typeWord: 'infrastructure', objects, componentsSize: 2 << 20 });
    assert.equal(s.metadata.annotations?.['provider.cluster.x-k8s.io/compressed'], 'true');
    assert.equal(Buffer.from(s.data?.['cache'] ?? '', 'base64')[0], 0x1f);
    assert.equal(parseComponentsCache(s)[0]?.kind, 'Deployment');
  });

  test('a cache that is not a JSON array names the Secret', () =>
    assert.throws(
      () => parseComponentsCache({ metadata: { namespace: 'n', name: 'c' }, data: { cache: 'e30=' } }),
      /Secret n\/c key cache: not a JSON array/u,
    ));
});
