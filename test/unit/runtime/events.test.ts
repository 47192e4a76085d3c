import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ValidationError } from '#shared/errors/index.ts';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import {
  MalformedEventError,
  objectChangedEvent,
  parseRuntimeEvent,
  passDueEvent,
  tickEvent,
} from '#shared/runtime/events.ts';
import { eventPatternOf, routeChange, routeKind, routes } from '#shared/runtime/routes.ts';

describe('parseRuntimeEvent', () => {
  test('accepts the events the local bus and the schedules build', () => {
    const time = new Date(0);
    const change = objectChangedEvent(
      { apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 'b', type: 'ADDED' },
      'e1',
      time,
    );
    assert.deepEqual(parseRuntimeEvent(JSON.parse(JSON.stringify(change))), change);
    assert.deepEqual(parseRuntimeEvent(tickEvent('providers', 't1', time)).detail, { controller: 'providers' });
  });

  test('accepts the event of a one-time schedule: the pass that is due and the time it asked for', () => {
    const key = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'c1' };
    const event = passDueEvent({ controller: 'topology', key, dueAt: 1_000 }, 's1', new Date(0));
    assert.deepEqual(parseRuntimeEvent(JSON.parse(JSON.stringify(event))), event);
    assert.throws(
      () => parseRuntimeEvent({ ...event, detail: { controller: 'topology', key: { ...key, name: '' }, dueAt: 1 } }),
      MalformedEventError,
    );
  });

  test('only typed MalformedEventErrors escape, whatever the input', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        try {
          parseRuntimeEvent(raw);
        } catch (err) {
          assert.ok(err instanceof MalformedEventError);
          assert.match(err.message, /^rejected malformed event: /);
        }
      }),
    );
  });
});

describe('routeKind', () => {
  const cases = [
    {
      name: 'sends Clusters to topology, addons and rollout',
      kind: 'Cluster',
      expect: ['topology', 'addons', 'rollout'],
    },
    { name: 'sends ClusterRollouts to rollout', kind: 'ClusterRollout', expect: ['rollout'] },
    { name: 'sends provider templates to topology', kind: 'DockerMachineTemplate', expect: ['topology'] },
    { name: 'sends ConfigMaps to addons and providers', kind: 'ConfigMap', expect: ['addons', 'providers'] },
    { name: 'sends InfrastructureProviders to providers', kind: 'InfrastructureProvider', expect: ['providers'] },
    { name: 'sends control planes to topology', kind: 'KubeadmControlPlane', expect: ['topology'] },
    { name: 'sends MachineDeployments to topology', kind: 'MachineDeployment', expect: ['topology'] },
    { name: 'sends InfrastructureClusters to topology', kind: 'DevCluster', expect: ['topology'] },
    { name: 'sends control-plane providers to providers only', kind: 'ControlPlaneProvider', expect: ['providers'] },
    { name: 'sends unknown kinds nowhere', kind: 'Pod', expect: [] },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(routeKind(c.kind), c.expect));
});

describe('routeChange', () => {
  const cases = [
    {
      name: 'sends a Cluster change naming no controller to all three',
      change: { kind: 'Cluster' },
      expect: ['topology', 'addons', 'rollout'],
    },
    {
      name: 'sends a health-gate-only Cluster change to the rollout alone',
      change: { kind: 'Cluster', controllers: ['rollout' as const] },
      expect: ['rollout'],
    },
    {
      name: 'never sends a change to a controller its kind is not routed to',
      change: { kind: 'ConfigMap', controllers: ['topology' as const, 'addons' as const] },
      expect: ['addons'],
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(routeChange(c.change), c.expect));

  test('each EventBridge rule takes changes naming no controller or naming its own', () => {
    for (const route of routes)
      assert.deepEqual(eventPatternOf(route).detail.$or, [
        { controllers: [{ exists: false }] },
        { controllers: [route.controller] },
      ]);
  });
});

describe('computeRuntimeConfig', () => {
  test('fills the defaults from an empty environment', () => {
    const config = computeRuntimeConfig({});
    assert.equal(config.tableName, 'capi-serverless-state');
    assert.equal(config.stopBeforeTimeoutMs, 10_000);
  });
  test('names every bad variable', () => {
    assert.throws(
      () => computeRuntimeConfig({ LEASE_TTL_MS: 'soon', DYNAMODB_ENDPOINT: 'not a url' }),
      (err: unknown) =>
        err instanceof ValidationError && /LEASE_TTL_MS/.test(err.message) && /DYNAMODB_ENDPOINT/.test(err.message),
    );
  });
  test('rejects a backoff cap below its base', () => {
    assert.throws(() => computeRuntimeConfig({ BACKOFF_BASE_MS: '10', BACKOFF_MAX_MS: '5' }), /BACKOFF_MAX_MS/);
  });
});
