// Tests for shared/api/label-selector.ts (kept with the addons tests, which own it).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LabelSelector } from '#shared/api/label-selector.ts';
import {
  formatLabelSelector,
  isEmptyLabelSelector,
  matchesLabelSelector,
  validateLabelSelector,
} from '#shared/api/label-selector.ts';
import { ValidationError } from '#shared/errors/index.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const labels = deepFreeze({ cni: 'calico', env: 'prod', tier: '' });

describe('matchesLabelSelector', () => {
  const cases: { name: string; selector: LabelSelector; want: boolean }[] = [
    {
      name: 'matches when every matchLabels pair is present',
      selector: { matchLabels: { cni: 'calico', env: 'prod' } },
      want: true,
    },
    { name: 'does not match a different value', selector: { matchLabels: { cni: 'cilium' } }, want: false },
    { name: 'does not match a missing label', selector: { matchLabels: { region: 'eu' } }, want: false },
    {
      name: 'matches In when the value is listed',
      selector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] },
      want: true,
    },
    {
      name: 'does not match In when the label is missing',
      selector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] },
      want: false,
    },
    {
      name: 'matches NotIn when the label is missing',
      selector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu'] }] },
      want: true,
    },
    {
      name: 'does not match NotIn when the value is listed',
      selector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      want: false,
    },
    {
      name: 'matches Exists for a label with an empty value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
      want: true,
    },
    {
      name: 'does not match DoesNotExist for a present label',
      selector: { matchExpressions: [{ key: 'cni', operator: 'DoesNotExist' }] },
      want: false,
    },
    {
      name: 'ANDs matchLabels and matchExpressions',
      selector: { matchLabels: { cni: 'calico' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
      want: false,
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(matchesLabelSelector(deepFreeze(c.selector), labels), c.want));

  test('reads an empty selector as everything by default and as nothing for ClusterResourceSets', () => {
    assert.equal(isEmptyLabelSelector({ matchLabels: {}, matchExpressions: [] }), true);
    assert.equal(matchesLabelSelector({}, labels), true);
    assert.equal(matchesLabelSelector({}, labels, { empty: 'nothing' }), false);
    assert.equal(matchesLabelSelector(undefined, labels, { empty: 'nothing' }), false);
  });

  test('throws a ValidationError for In without values', () => {
    assert.throws(
      () => matchesLabelSelector({ matchExpressions: [{ key: 'env', operator: 'In' }] }, labels),
      ValidationError,
    );
  });
});

describe('validateLabelSelector', () => {
  const cases: { name: string; selector: LabelSelector; want: RegExp | undefined }[] = [
    {
      name: 'accepts a prefixed key',
      selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
      want: undefined,
    },
    {
      name: 'rejects Exists with values',
      selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      want: /values set must be empty/,
    },
    { name: 'rejects a key with spaces', selector: { matchLabels: { 'a b': 'x' } }, want: /invalid label key "a b"/ },
    {
      name: 'rejects a value longer than 63 characters',
      selector: { matchLabels: { a: 'x'.repeat(64) } },
      want: /invalid label value/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const problems = validateLabelSelector(c.selector);
      if (c.want === undefined) assert.deepEqual(problems, []);
      else assert.match(problems.join('\n'), c.want);
    });
  }
});

describe('formatLabelSelector', () => {
  const cases: { name: string; selector: LabelSelector; want: string }[] = [
    {
      name: 'renders matchLabels as k=v sorted by key',
      selector: { matchLabels: { env: 'prod', cni: 'calico' } },
      want: 'cni=calico,env=prod',
    },
    {
      name: 'renders every operator the way apimachinery does, values sorted',
      selector: {
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
          { key: 'env', operator: 'In', values: ['prod', 'dev'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      want: 'env in (dev,prod),gpu,!legacy,zone notin (a,b)',
    },
    { name: 'renders an empty selector as the empty string', selector: {}, want: '' },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatLabelSelector(deepFreeze(c.selector)), c.want));
});
