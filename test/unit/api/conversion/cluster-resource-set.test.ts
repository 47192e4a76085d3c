// ClusterResourceSet and ClusterResourceSetBinding between v1beta1 and v1beta2 as the add-on pass uses them at the
// edge (upstream v1.14 `api/addons/v1beta1/conversion.go`): what the pass writes in v1beta2 goes down to a v1beta1
// server and comes back up unchanged, and each side parses with the project's schema for that version.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import {
  ClusterResourceSetBindingV1Beta1,
  ClusterResourceSetV1Beta1,
} from '#shared/api/addons/v1beta1/cluster-resource-set.ts';
import { convertFromHub, convertToHub, type Unstructured } from '#shared/api/conversion/index.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const noReferences = () => undefined;
const meta = {
  namespace: 'ns',
  name: 'c1',
  ownerReferences: [
    { apiVersion: 'addons.cluster.x-k8s.io/v1beta2', kind: 'ClusterResourceSet', name: 'cni', uid: 'u1' },
  ],
};

const hubSet = deepFreeze({
  apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
  kind: 'ClusterResourceSet',
  metadata: { namespace: 'ns', name: 'cni', generation: 2 },
  spec: {
    clusterSelector: { matchLabels: { cni: 'calico' } },
    resources: [{ kind: 'ConfigMap', name: 'cm' }],
    strategy: 'Reconcile',
  },
  status: {
    observedGeneration: 2,
    conditions: [
      {
        type: 'ResourcesApplied',
        status: 'False',
        reason: 'NotApplied',
        message: 'Failed to apply ClusterResourceSet resources to Cluster',
        observedGeneration: 2,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Paused',
        status: 'False',
        reason: 'NotPaused',
        message: '',
        observedGeneration: 2,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    deprecated: {
      v1beta1: {
        conditions: [
          {
            type: 'ResourcesApplied',
            status: 'False',
            severity: 'Warning',
            reason: 'ApplyFailed',
            message: 'failed to apply ConfigMap ns/cm to Cluster ns/c1: denied',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    },
  },
});

const hubBinding = deepFreeze({
  apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
  kind: 'ClusterResourceSetBinding',
  metadata: meta,
  spec: {
    clusterName: 'c1',
    bindings: [
      {
        clusterResourceSetName: 'cni',
        resources: [
          { kind: 'ConfigMap', name: 'cm', hash: 'sha256:abc', lastAppliedTime: '2026-01-01T00:00:00Z', applied: true },
          { kind: 'Secret', name: 's', lastAppliedTime: '2026-01-01T00:00:00Z', applied: false },
        ],
      },
      { clusterResourceSetName: 'other' },
    ],
  },
});

describe('ClusterResourceSet v1beta2 → v1beta1 → v1beta2', () => {
  const down = convertFromHub(hubSet, noReferences);

  test('goes down with the legacy conditions in status.conditions and the metav1 ones in status.v1beta2', () => {
    const status = down['status'] as Unstructured;
    assert.equal(down['apiVersion'], 'addons.cluster.x-k8s.io/v1beta1');
    assert.deepEqual(status['conditions'], hubSet.status.deprecated.v1beta1.conditions);
    assert.deepEqual(status['v1beta2'], { conditions: hubSet.status.conditions });
    assert.equal(status['observedGeneration'], 2);
    assert.deepEqual(down['spec'], hubSet.spec);
  });

  test('the v1beta1 object parses with the v1beta1 schema (the project CRD accepts it)', () => {
    assert.equal(ClusterResourceSetV1Beta1.safeParse(down).success, true);
  });

  test('comes back up unchanged and parses with the v1beta2 schema', () => {
    const up = convertToHub(down);
    assert.deepEqual(up, hubSet);
    assert.equal(ClusterResourceSet.safeParse(up).success, true);
  });
});

describe('ClusterResourceSet v1beta1 → v1beta2', () => {
  test('a v1beta1 status written by upstream up to v1.10 without v1beta2 conditions keeps only the deprecated ones', () => {
    const up = convertToHub({
      apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
      kind: 'ClusterResourceSet',
      metadata: { namespace: 'ns', name: 'cni' },
      spec: { clusterSelector: { matchLabels: { a: 'b' } }, resources: [{ kind: 'Secret', name: 's' }] },
      status: {
        conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      },
    });
    assert.deepEqual(up['status'], {
      deprecated: {
        v1beta1: {
          conditions: [{ type: 'ResourcesApplied', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      },
    });
    assert.equal(ClusterResourceSet.safeParse(up).success, true);
  });
});

describe('ClusterResourceSetBinding v1beta2 → v1beta1 → v1beta2', () => {
  const down = convertFromHub(hubBinding, noReferences);

  test('goes down with the same spec and owner references (upstream converts neither)', () => {
    assert.equal(down['apiVersion'], 'addons.cluster.x-k8s.io/v1beta1');
    assert.deepEqual(down['spec'], hubBinding.spec);
    assert.deepEqual(down['metadata'], meta);
    assert.equal(ClusterResourceSetBindingV1Beta1.safeParse(down).success, true);
  });

  test('comes back up unchanged and parses with the v1beta2 schema', () => {
    const up = convertToHub(down);
    assert.deepEqual(up, hubBinding);
    assert.equal(ClusterResourceSetBinding.safeParse(up).success, true);
  });
});

describe('ClusterResourceSetBinding v1beta1 → v1beta2', () => {
  const cases: [string, Unstructured, Unstructured][] = [
    [
      'drops an empty lastAppliedTime (a v1beta1 pointer, a v1beta2 omitzero value)',
      {
        clusterName: 'c1',
        bindings: [
          {
            clusterResourceSetName: 'cni',
            resources: [{ kind: 'ConfigMap', name: 'cm', lastAppliedTime: null, applied: false }],
          },
        ],
      },
      {
        clusterName: 'c1',
        bindings: [{ clusterResourceSetName: 'cni', resources: [{ kind: 'ConfigMap', name: 'cm', applied: false }] }],
      },
    ],
    [
      'keeps a binding from before v1.4 without clusterName (upstream converts it to empty, omitted)',
      { bindings: [{ clusterResourceSetName: 'cni' }] },
      { bindings: [{ clusterResourceSetName: 'cni' }] },
    ],
  ];
  for (const [name, spoke, hub] of cases) {
    test(name, () => {
      const up = convertToHub({
        apiVersion: 'addons.cluster.x-k8s.io/v1beta1',
        kind: 'ClusterResourceSetBinding',
        metadata: meta,
        spec: spoke,
      });
      assert.deepEqual(up['spec'], hub);
      assert.equal(ClusterResourceSetBinding.safeParse(up).success, true);
    });
  }
});
