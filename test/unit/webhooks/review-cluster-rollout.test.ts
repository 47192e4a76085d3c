import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import type { WebhookReader } from '#shared/webhooks/current/webhook-reader.ts';
import { validateClusterRolloutAdmission } from '#shared/webhooks/review-cluster-rollout.ts';
import { rollout } from '#test/support/builders/rollout.ts';
import { deepFreeze } from '#test/support/fixtures/addons.ts';

const clusterAt = (name: string, version: string, workerClasses: string[] = ['default-worker']): Cluster =>
  deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'fleet', name },
    spec: {
      topology: {
        classRef: { name: 'dev' },
        version,
        workers: { machineDeployments: workerClasses.map((c, i) => ({ class: c, name: `md-${i}` })) },
      },
    },
  });

const template = (apiVersion: string, kind: string) => ({
  templateRef: { apiVersion, kind, name: kind.toLowerCase() },
});

/** A Docker class with the worker classes given, or another infrastructure's, or one limited to some versions. */
function classNamed(
  name: string,
  opts: { infrastructureKind?: string; workers?: string[]; kubernetesVersions?: string[] } = {},
): ClusterClass {
  const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
  const machine = opts.infrastructureKind === 'AWSClusterTemplate' ? 'AWSMachineTemplate' : 'DockerMachineTemplate';
  return deepFreeze({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'ClusterClass',
    metadata: { name, namespace: 'fleet' },
    spec: {
      infrastructure: template(infra, opts.infrastructureKind ?? 'DockerClusterTemplate'),
      controlPlane: template('controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlaneTemplate'),
      workers: {
        machineDeployments: (opts.workers ?? ['default-worker']).map((c) => ({
          class: c,
          bootstrap: template('bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate'),
          infrastructure: template(infra, machine),
        })),
      },
      ...(opts.kubernetesVersions ? { kubernetesVersions: opts.kubernetesVersions } : {}),
    },
  } as ClusterClass);
}

const defaultClasses = [
  classNamed('dev'),
  classNamed('dev-v2'),
  classNamed('aws', { infrastructureKind: 'AWSClusterTemplate' }),
  classNamed('small', { workers: ['small-worker'] }),
  classNamed('pinned', { kubernetesVersions: ['v1.33.0', 'v1.34.1'] }),
];

function reader(clusters: Cluster[], classes: ClusterClass[] = defaultClasses): WebhookReader {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    getClusterClass: async (key) => classes.find((c) => c.metadata.name === key.name),
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
    [
      'allows a rebase every selected Cluster may make',
      rollout({ change: { classRef: { name: 'dev-v2' } } }),
      [clusterAt('c1', 'v1.33.0'), clusterAt('c2', 'v1.33.0')],
      'allowed',
    ],
    [
      "refuses a rebase to a class of another infrastructure kind, with upstream's message",
      rollout({ change: { classRef: { name: 'aws' } } }),
      [clusterAt('c1', 'v1.33.0')],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.change.classRef: Invalid value: "fleet/aws": cannot rebase 1 selected Cluster(s): c1 (spec.infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerClusterTemplate" to "AWSClusterTemplate" to prevent incompatible changes in the Clusters; spec.workers.machineDeployments[0].infrastructure.templateRef.kind: Forbidden: apiVersion.kind cannot be changed from "DockerMachineTemplate" to "AWSMachineTemplate" to prevent incompatible changes in the Clusters)',
    ],
    [
      'refuses a rebase to a class without a worker class a selected Cluster uses, naming only that Cluster',
      rollout({ change: { classRef: { name: 'small' } } }),
      [clusterAt('c1', 'v1.33.0', []), clusterAt('c2', 'v1.33.0')],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.change.classRef: Invalid value: "fleet/small": cannot rebase 1 selected Cluster(s): c2 (spec.topology.workers.machineDeployments[0].class: Invalid value: "default-worker": MachineDeploymentClass with name "default-worker" does not exist in ClusterClass "fleet/small")',
    ],
    [
      "refuses a rebase to a class that does not list the rollout's version",
      rollout({ change: { classRef: { name: 'pinned' }, version: 'v1.34.2' } }),
      [clusterAt('c1', 'v1.33.0')],
      'ClusterRollout.management.cluster.x-k8s.io "v134" is invalid: spec.change.classRef: Invalid value: "fleet/pinned": cannot rebase 1 selected Cluster(s): c1 (spec.topology.version: Invalid value: "v1.34.2": version must match one of the versions defined in the ClusterClass)',
    ],
    [
      'allows a rebase with a version the class lists',
      rollout({ change: { classRef: { name: 'pinned' }, version: 'v1.34.1' } }),
      [clusterAt('c1', 'v1.33.0')],
      'allowed',
    ],
    [
      'skips the Clusters already on the target class',
      rollout({ change: { classRef: { name: 'dev' } } }),
      [clusterAt('c1', 'v1.33.0')],
      'allowed',
    ],
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
