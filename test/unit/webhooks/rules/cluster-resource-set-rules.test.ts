import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import {
  validateClusterResourceSet,
  validateClusterResourceSetBinding,
} from '#shared/webhooks/rules/cluster-resource-set-rules.ts';
import { deepFreeze } from '#test/support/builders/topology.ts';

const crs = (spec: Partial<ClusterResourceSet['spec']>): ClusterResourceSet =>
  deepFreeze({
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    metadata: { namespace: 'default', name: 'calico' },
    spec: {
      clusterSelector: { matchLabels: { cni: 'calico' } },
      resources: [{ kind: 'ConfigMap', name: 'cni' }],
      ...spec,
    },
  });

describe('validateClusterResourceSet', () => {
  const cases: [string, ClusterResourceSet | undefined, ClusterResourceSet, string[]][] = [
    ['accepts a create with a label selector', undefined, crs({}), []],
    [
      'refuses an empty selector',
      undefined,
      crs({ clusterSelector: {} }),
      ['spec.clusterSelector: Invalid value: {}: selector must not be empty'],
    ],
    [
      'refuses a selector apimachinery cannot parse',
      undefined,
      crs({ clusterSelector: { matchExpressions: [{ key: 'cni', operator: 'In' }] } }),
      [
        `spec.clusterSelector: Invalid value: {"matchExpressions":[{"key":"cni","operator":"In"}]}: matchExpressions[0]: for 'In', 'NotIn' operators, values set can't be empty`,
      ],
    ],
    ['accepts an update that keeps both fields', crs({ strategy: 'Reconcile' }), crs({ strategy: 'Reconcile' }), []],
    [
      'refuses changing the strategy',
      crs({ strategy: 'ApplyOnce' }),
      crs({ strategy: 'Reconcile' }),
      ['spec.strategy: Invalid value: "Reconcile": field is immutable'],
    ],
    ['accepts setting a strategy that was unset', crs({}), crs({ strategy: 'Reconcile' }), []],
    [
      'refuses changing the selector',
      crs({}),
      crs({ clusterSelector: { matchLabels: { cni: 'cilium' } } }),
      ['spec.clusterSelector: Invalid value: {"matchLabels":{"cni":"cilium"}}: field is immutable'],
    ],
  ];
  for (const [name, current, desired, expected] of cases) {
    test(name, () => assert.deepEqual(formatFieldErrors(validateClusterResourceSet(current, desired)), expected));
  }
});

const binding = (clusterName: string | undefined, crsName = 'calico'): ClusterResourceSetBinding =>
  deepFreeze({
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSetBinding',
    metadata: { namespace: 'default', name: 'c1' },
    spec: {
      ...(clusterName === undefined ? {} : { clusterName }),
      bindings: [{ clusterResourceSetName: crsName, resources: [] }],
    },
  });

describe('validateClusterResourceSetBinding', () => {
  const cases: [string, ClusterResourceSetBinding | undefined, ClusterResourceSetBinding, string[]][] = [
    ['accepts a create', undefined, binding('c1'), []],
    ['accepts an update keeping spec.clusterName', binding('c1'), binding('c1', 'cilium'), []],
    ['accepts setting spec.clusterName on a binding from before v1.4', binding(undefined), binding('c1'), []],
    [
      'refuses a changed spec.clusterName, as upstream',
      binding('c1'),
      binding('c2'),
      ['spec.clusterName: Invalid value: "c2": field is immutable'],
    ],
    [
      'refuses removing spec.clusterName',
      binding('c1'),
      binding(undefined),
      ['spec.clusterName: Invalid value: "": field is immutable'],
    ],
  ];
  for (const [name, current, desired, want] of cases) {
    test(name, () => {
      assert.deepEqual(formatFieldErrors(validateClusterResourceSetBinding(current, desired)), want);
    });
  }
});
