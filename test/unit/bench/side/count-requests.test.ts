import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeNamePattern, computeRequestBreakdown, type BenchAuditEvent } from '#test/bench/side/count-requests.ts';

describe('computeNamePattern', () => {
  const cases: [string, string, string][] = [
    ['a Cluster name becomes <cluster>', 'c-0003', '<cluster>'],
    ['a generated suffix with a digit becomes <x>', 'c-0003-md-0-x7k2p', '<cluster>-md-0-<x>'],
    ['two generated suffixes both become <x>', 'c-0001-md-0-bq4kz-2x9lm', '<cluster>-md-0-<x>-<x>'],
    ['a five-letter word without a digit is kept', 'bench-addon-1', 'bench-addon-1'],
    [
      'a name of no Cluster is kept',
      'capi-serverless-clusterresourceset-handoff',
      'capi-serverless-clusterresourceset-handoff',
    ],
  ];
  for (const [name, input, expected] of cases) test(name, () => assert.equal(computeNamePattern(input), expected));
});

describe('computeRequestBreakdown', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const event = (over: Partial<BenchAuditEvent> & { s: number }): BenchAuditEvent =>
    Object.freeze({
      verb: 'get',
      requestURI: '/apis/cluster.x-k8s.io/v1beta2/namespaces/bench/clusters/c-0001',
      user: { username: 'capi-manager' },
      userAgent: 'manager/v1.14.2 (linux/amd64) cluster.x-k8s.io/abc',
      stage: 'ResponseComplete',
      objectRef: { resource: 'clusters', apiGroup: 'cluster.x-k8s.io', namespace: 'bench', name: 'c-0001' },
      responseStatus: { code: 200 },
      requestReceivedTimestamp: at(over.s),
      ...over,
    });
  const events = [
    event({ s: 1 }),
    event({ s: 2, objectRef: { resource: 'clusters', apiGroup: 'cluster.x-k8s.io', name: 'c-0002' } }),
    event({
      s: 3,
      verb: 'patch',
      objectRef: { resource: 'clusterresourcesets', apiGroup: 'addons.cluster.x-k8s.io', name: 'bench-addons' },
      responseStatus: { code: 403 },
    }),
    event({ s: 4, verb: 'watch', stage: 'ResponseStarted', objectRef: { resource: 'secrets' } }),
    event({ s: 5, verb: 'watch', stage: 'ResponseComplete', objectRef: { resource: 'secrets' } }),
    event({
      s: 6,
      objectRef: { resource: 'clusters', apiGroup: 'cluster.x-k8s.io', subresource: 'status', name: 'c-0001' },
    }),
    event({ s: 60 }),
  ];
  const rows = computeRequestBreakdown(events, Date.parse(at(0)), Date.parse(at(10)));

  test('per-Cluster requests of one kind fall into one line, the largest first', () =>
    assert.deepEqual(rows[0], {
      component: 'capi-manager',
      userAgent: 'manager',
      verb: 'get',
      resource: 'cluster.x-k8s.io/clusters',
      name: '<cluster>',
      code: 200,
      count: 2,
    }));
  test('a refused write keeps its status code', () =>
    assert.ok(rows.some((r) => r.verb === 'patch' && r.code === 403 && r.name === 'bench-addons')));
  test('a watch counts once, when it starts; the core group is named core', () =>
    assert.deepEqual(
      rows.filter((r) => r.verb === 'watch').map((r) => [r.resource, r.count]),
      [['core/secrets', 1]],
    ));
  test('a subresource is a resource of its own', () =>
    assert.ok(rows.some((r) => r.resource === 'cluster.x-k8s.io/clusters/status')));
  test('requests outside the window are left out', () =>
    assert.equal(
      rows.reduce((n, r) => n + r.count, 0),
      5,
    ));
});
