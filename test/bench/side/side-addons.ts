// The ClusterResourceSet part of the side-by-side bench: one ClusterResourceSet (ApplyOnce: the in-memory workload
// API server has no server-side apply) selecting the fleet, and the change a user makes to it (one more ConfigMap in
// its resources), converged when every workload cluster holds the new ConfigMap.
import {
  createObject,
  findObject,
  getWorkloadClusterClient,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { applyAsUser, fleetLabel, fleetNamespace } from './side-fleet.ts';

const crsName = 'bench-addons';

function addonConfigMap(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: fleetNamespace, name },
    data: {
      'addon.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  from: bench\n`,
    },
  };
}

/** The user's ClusterResourceSet with the ConfigMaps `addons` (created first). */
export async function applyAddons(kube: KubeClient, addons: readonly string[]): Promise<void> {
  for (const name of addons) await applyAsUser(kube, addonConfigMap(name));
  await applyAsUser(kube, {
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    metadata: { namespace: fleetNamespace, name: crsName },
    spec: {
      clusterSelector: { matchLabels: fleetLabel },
      resources: addons.map((name) => ({ kind: 'ConfigMap', name })),
      strategy: 'ApplyOnce',
    },
  });
}

/**
 * Clients of the fleet's in-memory workload clusters, each given the Service default/kubernetes a real API server
 * creates itself (the in-memory one does not; both implementations read it before applying).
 */
export async function prepareWorkloadClusters(
  kube: KubeClient,
  names: readonly string[],
): Promise<Map<string, KubeClient>> {
  const clients = new Map<string, KubeClient>();
  for (const name of names) {
    const workload = await getWorkloadClusterClient(kube, { namespace: fleetNamespace, name });
    clients.set(name, workload);
    const service = { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'kubernetes' };
    if (!(await findObject(workload, service))) {
      await createObject(
        workload,
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { namespace: 'default', name: 'kubernetes' },
          spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
        },
        { fieldManager: 'kube-apiserver' },
      );
    }
  }
  return clients;
}

/** Polls the workload clusters until each holds ConfigMap default/`addon`; ms after `since` per Cluster. */
export async function waitForAddon(
  clients: ReadonlyMap<string, KubeClient>,
  addon: string,
  opts: { since: number; timeoutMs: number },
): Promise<Map<string, number>> {
  const done = new Map<string, number>();
  for (;;) {
    for (const [name, workload] of clients) {
      if (done.has(name)) continue;
      const found = await findObject(workload, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: addon,
      }).catch((err: unknown) => {
        if (/did not answer|ECONNRESET|ECONNREFUSED/.test(errorMessage(err))) return undefined;
        throw err;
      });
      if (found) done.set(name, Date.now() - opts.since);
    }
    if (done.size === clients.size) return done;
    if (Date.now() - opts.since > opts.timeoutMs)
      throw new Error(
        `ClusterResourceSet change: ${addon} missing in ${clients.size - done.size} of ${clients.size} workload clusters after ${opts.timeoutMs / 1000} s`,
      );
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
