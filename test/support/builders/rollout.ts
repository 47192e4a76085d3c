// Fluent builders for rollout inputs: a ClusterRollout and the facts of its Clusters (healthy or failing given checks).
import {
  healthChecks,
  type ClusterRollout,
  type ClusterRolloutSpec,
  type HealthCheck,
  type TopologyTarget,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';
import type { ClusterHealth, RolloutClusterFacts } from '#shared/rollout/types.ts';

export const rolloutNs = 'fleet';

/** A ClusterRollout of version v1.34.1 over `env=prod` Clusters in waves of 1, 3 and the rest. */
export function rollout(spec: Partial<ClusterRolloutSpec> = {}, status?: ClusterRollout['status']): ClusterRollout {
  return {
    apiVersion: 'management.cluster.x-k8s.io/v1alpha1',
    kind: 'ClusterRollout',
    metadata: { namespace: rolloutNs, name: 'v134', generation: 1, uid: 'uid-rollout' },
    spec: {
      clusterSelector: { matchLabels: { env: 'prod' } },
      change: { version: 'v1.34.1' },
      waves: [{ clusters: 1 }, { clusters: 3 }, { clusters: 'rest' }],
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

/** Every check passing, or failing the ones named. */
export function health(failing: readonly HealthCheck[] = []): ClusterHealth {
  return Object.fromEntries(
    healthChecks.map((c) => [
      c,
      failing.includes(c) ? { ok: false, detail: `${c} failing` } : { ok: true, detail: `${c} ok` },
    ]),
  ) as ClusterHealth;
}

export const oldTopology: TopologyTarget = { classRef: { name: 'dev' }, version: 'v1.33.0' };
export const newTopology: TopologyTarget = { classRef: { name: 'dev' }, version: 'v1.34.1' };

/** A selected Cluster at v1.33.0 on class `dev`, healthy, with the overrides given. */
export function cluster(name: string, overrides: Partial<RolloutClusterFacts> = {}): RolloutClusterFacts {
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: '100',
    generation: 1,
    selected: true,
    deleting: false,
    topology: oldTopology,
    health: health(),
    ...overrides,
  };
}

/** `c1` … `cN`, zero-padded so name order is number order (`c01` … `c08`). */
export function fleet(
  n: number,
  overrides: (name: string) => Partial<RolloutClusterFacts> = () => ({}),
): RolloutClusterFacts[] {
  return Array.from({ length: n }, (_, i) => {
    const name = `c${String(i + 1).padStart(2, '0')}`;
    return cluster(name, overrides(name));
  });
}
