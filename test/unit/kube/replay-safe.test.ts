import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeRequest } from '#shared/kube/client.ts';
import { isReplaySafe } from '#shared/kube/replay-safe.ts';

const target = { verb: 'test' };
const cm = '/api/v1/namespaces/default/configmaps';

describe('isReplaySafe', () => {
  const cases: [string, KubeRequest, boolean][] = [
    ['a GET (get, list, discovery) is replayed', { method: 'GET', path: `${cm}/a`, target }, true],
    [
      'a server-side apply is replayed',
      { method: 'PATCH', path: `${cm}/a`, contentType: 'application/apply-patch+yaml', body: {}, target },
      true,
    ],
    [
      'a JSON merge patch is replayed',
      { method: 'PATCH', path: `${cm}/a`, contentType: 'application/merge-patch+json', body: {}, target },
      true,
    ],
    [
      'a JSON patch is not replayed',
      { method: 'PATCH', path: `${cm}/a`, contentType: 'application/json-patch+json', body: [], target },
      false,
    ],
    [
      'an update carrying a resourceVersion is replayed',
      { method: 'PUT', path: `${cm}/a`, body: { metadata: { name: 'a', resourceVersion: '7' } }, target },
      true,
    ],
    [
      'an update without a resourceVersion is not replayed',
      { method: 'PUT', path: `${cm}/a`, body: { metadata: { name: 'a' } }, target },
      false,
    ],
    [
      'a delete with a uid precondition is replayed',
      { method: 'DELETE', path: `${cm}/a`, body: { preconditions: { uid: 'u-1' } }, target },
      true,
    ],
    [
      'a delete with a resourceVersion precondition is replayed',
      { method: 'DELETE', path: `${cm}/a`, body: { preconditions: { resourceVersion: '7' } }, target },
      true,
    ],
    [
      'a delete without preconditions is not replayed',
      { method: 'DELETE', path: `${cm}/a`, body: { propagationPolicy: 'Background' }, target },
      false,
    ],
    ['a create by name is replayed', { method: 'POST', path: cm, body: { metadata: { name: 'a' } }, target }, true],
    [
      'a cluster-scoped create by name is replayed',
      {
        method: 'POST',
        path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
        body: { metadata: { name: 'a' } },
        target,
      },
      true,
    ],
    [
      'a create with generateName is not replayed',
      { method: 'POST', path: cm, body: { metadata: { generateName: 'a-' } }, target },
      false,
    ],
    [
      'a TokenRequest (a subresource POST) is not replayed',
      {
        method: 'POST',
        path: '/api/v1/namespaces/default/serviceaccounts/sa/token',
        body: { metadata: { name: 'sa' } },
        target,
      },
      false,
    ],
    [
      'a Runtime SDK call through the service proxy is not replayed',
      {
        method: 'POST',
        path: '/api/v1/namespaces/ns/services/https:ext:443/proxy/hooks.runtime.cluster.x-k8s.io/v1alpha1/x',
        body: { metadata: { name: 'x' } },
        target,
      },
      false,
    ],
    [
      'a dry-run create with generateName is replayed (it persists nothing)',
      { method: 'POST', path: cm, query: { dryRun: 'All' }, body: { metadata: { generateName: 'a-' } }, target },
      true,
    ],
  ];
  for (const [name, req, expected] of cases) test(name, () => assert.equal(isReplaySafe(Object.freeze(req)), expected));
});
