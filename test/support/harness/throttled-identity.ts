// A client whose requests API priority and fairness can throttle at will: a ServiceAccount (cluster-admin) whose
// FlowSchema, while `throttle()` holds, sends it to a PriorityLevelConfiguration with one seat and `Reject`, so a
// burst meets 429s (pair with a kube-apiserver started with a tiny --max-requests-inflight). Every request the
// client sends is recorded, with its status and Retry-After.
import { parse } from 'yaml';
import {
  applyObject,
  createKubeClient,
  deleteObject,
  type KubeClient,
  type RequestRecord,
} from '#shared/kube/index.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';

/** kube-apiserver flags that leave the priority levels a few seats only. */
export const tinyServerConcurrencyArgs = ['--max-requests-inflight=2', '--max-mutating-requests-inflight=1'] as const;

export type ThrottledIdentity = {
  readonly kube: KubeClient;
  readonly records: RequestRecord[];
  /** Sends the identity's requests to the one-seat, Reject priority level (waits for the server to follow). */
  throttle(): Promise<void>;
  /** Removes the FlowSchema: the identity is back in the default levels. */
  unthrottle(): Promise<void>;
};

const fieldManager = 'throttled-identity';
const levelName = 'throttled-one-seat';
const flowSchema = {
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name: 'throttled-identity' },
  spec: {
    priorityLevelConfiguration: { name: levelName },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'throttled' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
      },
    ],
  },
};

/**
 * Creates the ServiceAccount, its token and a client for it.
 *
 * @example
 * const identity = await createThrottledIdentity(mgmt);
 * await identity.throttle();
 */
export async function createThrottledIdentity(mgmt: TestCluster): Promise<ThrottledIdentity> {
  await applyObject(
    mgmt.kube,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'default', name: 'throttled' } },
    { fieldManager },
  );
  await applyObject(
    mgmt.kube,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'throttled-identity' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'throttled' }],
    },
    { fieldManager },
  );
  const tokenRequest = await mgmt.kube.request<{ status: { token: string } }>({
    method: 'POST',
    path: '/api/v1/namespaces/default/serviceaccounts/throttled/token',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    target: { verb: 'create token for', kind: 'ServiceAccount', namespace: 'default', name: 'throttled' },
  });
  const kubeconfig = parse(mgmt.controlPlane.kubeconfig) as { clusters: { cluster: Record<string, string> }[] };
  const records: RequestRecord[] = [];
  const kube = await createKubeClient(
    {
      server: mgmt.controlPlane.server,
      certificateAuthorityData: kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '',
    },
    { tokenProvider: () => Promise.resolve(tokenRequest.status.token), onRequest: (r) => records.push(r) },
  );
  return {
    kube,
    records,
    async throttle() {
      await applyObject(
        mgmt.kube,
        {
          apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
          kind: 'PriorityLevelConfiguration',
          metadata: { name: levelName },
          spec: {
            type: 'Limited',
            limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } },
          },
        },
        { fieldManager },
      );
      await applyObject(mgmt.kube, flowSchema, { fieldManager });
      // NOTE: the API server's flow-control configuration follows the objects asynchronously.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    },
    async unthrottle() {
      await deleteObject(mgmt.kube, {
        apiVersion: flowSchema.apiVersion,
        kind: flowSchema.kind,
        name: flowSchema.metadata.name,
      });
    },
  };
}
