import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { validateClusterRolloutAdmission } from '#shared/webhooks/review-cluster-rollout.ts';
import { rollout } from '#test/support/builders/rollout.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const clusterAt = (name: string, version: string): Cluster =>
  deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'fleet', name },
    spec: { topology: { classRef: { name: 'dev' }, version } },
  });

function reader(clusters: Cluster[], classes: string[] = ['dev', 'dev-v2']): WebhookReader {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    getClusterClass: async (key) =>
      classes.includes(key.name)
        ? ({ metadata: { name: key.name, namespace: key.namespace } } as ClusterClass)
        : undefined,
    listClustersUsingClass: fail,
    listClusters: async () => clusters,
    listProviders: fail,
    getTopologyUpgradeState: fail,
  };
}

function request(object: unknown, oldObject?: unknown): AdmissionRequest {
  return {
    uid: 'u1',
    kind: { group: 'management.cluster.x-k8s.io', version: 'v1alpha1', kind: 'ClusterRollout' },
    resource: { group: 'management.cluster.x-k8s.io', version: 'v1alpha1', resource: 'clusterrollouts' },
    name: 'v134',
    namespace: 'fleet',
    operation: oldObject === undefined ? 'CREATE' : 'UPDATE',
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
  } as AdmissionRequest;
}

const messageOf = (outcome: Awaited<ReturnType<typeof validateClusterRolloutAdmission>>) =>
  outcome.allowed ? 'allowed' : outcome.status.message;

describe('validateClusterRolloutAdmission', () => {
  const cases: [string, unknown, Cluster[], string][] = [
    ['allows a canary, three and the rest to v1.34.1', rollout(), [clusterAt('c1', 'v1.33.0')], 'allowed'],
    [
      'refuses an empty selector',
      rollout({ clusterSelector: {} }),
      [],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.clusterSelector: Invalid value: must not be empty (it would select every Cluster of the namespace)',
    ],
    [
      'refuses waves that may not cover every Cluster',
      rollout({ waves: [{ clusters: 1 }, { clusters: 3 }] }),
      [],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.waves: Invalid value: the waves must cover every selected Cluster: end with a wave of clusters: rest, or use percentages summing to at least 100% (they sum to 0%)',
    ],
    [
      'refuses a version that downgrades a selected Cluster',
      rollout(),
      [clusterAt('c1', 'v1.33.0'), clusterAt('c2', 'v1.35.0')],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.change.version: Invalid value: "v1.34.1": would downgrade 1 selected Cluster(s): c2 (v1.35.0)',
    ],
    [
      'refuses a class that does not exist',
      rollout({ change: { classRef: { name: 'prod-v3' } } }),
      [],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.change.classRef: Invalid value: "fleet/prod-v3": ClusterClass not found',
    ],
    ['allows a rebase to a class that exists', rollout({ change: { classRef: { name: 'dev-v2' } } }), [], 'allowed'],
  ];
  for (const [name, object, clusters, message] of cases) {
    test(name, async () =>
      assert.equal(
        messageOf(await validateClusterRolloutAdmission(request(deepFreeze(object)), reader(clusters))),
        message,
      ),
    );
  }

  test('refuses changing the target of a started rollout, allows pausing it', async () => {
    const started = rollout({}, { clusters: [{ name: 'c1', wave: 0, state: 'Changing' }] });
    const moved = { ...started, spec: { ...started.spec, change: { version: 'v1.34.2' } } };
    assert.match(
      messageOf(await validateClusterRolloutAdmission(request(moved, started), reader([]))),
      /spec.change: Forbidden: cannot change once the rollout has started/,
    );
    const paused = { ...started, spec: { ...started.spec, paused: true } };
    assert.equal(messageOf(await validateClusterRolloutAdmission(request(paused, started), reader([]))), 'allowed');
  });
});
