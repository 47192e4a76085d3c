import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeFinalizers, holdsFinalizer } from '#shared/addons/desired/finalizers.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const ours = 'management.cluster.x-k8s.io/clusterresourceset';
const upstream = 'addons.cluster.x-k8s.io';
const withFinalizers = (finalizers?: string[]) =>
  deepFreeze({ metadata: { namespace: 'default', name: 'set', ...(finalizers ? { finalizers } : {}) } });

describe('computeFinalizers', () => {
  const cases: { name: string; finalizers?: string[]; active: string[]; released: string[] }[] = [
    { name: 'adds capi-serverless finalizer to a new ClusterResourceSet', active: [ours], released: [] },
    {
      name: "replaces upstream's finalizer with capi-serverless's (the switch-over)",
      finalizers: [upstream],
      active: [ours],
      released: [],
    },
    {
      name: "drops upstream's finalizer when both are there",
      finalizers: [upstream, ours],
      active: [ours],
      released: [],
    },
    { name: 'leaves a settled list as it is', finalizers: [ours], active: [ours], released: [] },
    {
      name: 'keeps other finalizers in their place',
      finalizers: ['example.com/first', upstream, 'example.com/last'],
      active: ['example.com/first', 'example.com/last', ours],
      released: ['example.com/first', 'example.com/last'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const crs = withFinalizers(c.finalizers);
      assert.deepEqual(computeFinalizers(crs, 'active'), c.active);
      assert.deepEqual(computeFinalizers(crs, 'released'), c.released);
    });
  }
});

describe('holdsFinalizer', () => {
  test("is true with capi-serverless's or upstream's finalizer, false with neither", () => {
    assert.equal(holdsFinalizer(withFinalizers([ours])), true);
    assert.equal(holdsFinalizer(withFinalizers([upstream])), true);
    assert.equal(holdsFinalizer(withFinalizers(['example.com/other'])), false);
    assert.equal(holdsFinalizer(withFinalizers()), false);
  });
});
