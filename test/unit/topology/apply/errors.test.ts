// The messages of failed creates, which end up in TopologyReconciled (upstream createErrorWithoutObjectName).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapKubeError } from '#shared/kube/errors.ts';
import { computeCreateError } from '#shared/topology/apply/errors.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const kcp: Unstructured = {
  apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmControlPlane',
  metadata: { namespace: 'ns', name: 'c-x2bz9' },
};
const target = { verb: 'apply', kind: 'KubeadmControlPlane', namespace: 'ns', name: 'c-x2bz9' };
const cause = { reason: 'FieldValueRequired', field: 'spec.rollout', message: 'Required value: at least 3' };

describe('computeCreateError', () => {
  const cases: { name: string; details: object; want: string }[] = [
    {
      name: "names the kind and group of the server's Status, as a webhook set them",
      details: { group: 'cluster.x-k8s.io', kind: 'KubeadmControlPlane', causes: [cause] },
      want: 'failed to create KubeadmControlPlane.cluster.x-k8s.io: FieldValueRequired: spec.rollout: Required value: at least 3',
    },
    {
      name: "names the object's kind and group when the Status names none",
      details: { causes: [cause] },
      want: 'failed to create KubeadmControlPlane.controlplane.cluster.x-k8s.io: FieldValueRequired: spec.rollout: Required value: at least 3',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const err = mapKubeError(422, { message: 'invalid "c-x2bz9"', reason: 'Invalid', details: c.details }, target);
      assert.equal(computeCreateError(err, kcp).message, c.want);
    });
  }
});
