// Upstream's test Runtime Extension (test-extension.ts, a process on loopback) behind the Service upstream's e2e
// deploys it with, so an ExtensionConfig naming that Service (as upstream's e2e specs write it, the CA injected from
// cert-manager's Secret) reaches it through the API server's service proxy. There is no kubelet: a pod address is
// added to loopback (only in a private network namespace), a Pod that never runs carries it, and the Service's
// Endpoints are written as the endpoints controller would. The API server's service proxy only proxies to addresses
// of Pods, never to loopback.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { applyObject, applyStatus, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { harnessFieldManager } from '#test/support/harness/clusters.ts';
import type { TestExtension } from '#test/support/harness/test-extension.ts';

/** Where upstream's e2e deploys the test extension (test/extension/config/default) and what its ExtensionConfigs name. */
export const upstreamTestExtensionService = {
  namespace: 'test-extension-system',
  name: 'test-extension-webhook-service',
} as const;

/** Whether this process runs in a network namespace of its own (test/run.mjs, or `unshare -n`), where loopback may change. */
export function inPrivateNetworkNamespace(): boolean {
  const host = process.env['CAPI_SERVERLESS_HOST_NETNS'];
  return host !== undefined && String(statSync('/proc/self/ns/net').ino) !== host;
}

/**
 * Puts `ext` behind `service` (default: upstream's e2e Service) at `podIp` on port 443, with the CA in the Secret
 * cert-manager would write (`<name>-cert`, which `runtime.cluster.x-k8s.io/inject-ca-from-secret` names).
 *
 * @example
 * const ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
 * await serveBehindService(mgmt.kube, ext);
 */
export async function serveBehindService(
  kube: KubeClient,
  ext: TestExtension,
  opts: { podIp?: string; service?: { namespace: string; name: string } } = {},
): Promise<void> {
  if (!inPrivateNetworkNamespace())
    throw new Error('serveBehindService adds an address to loopback: run it in a private network namespace');
  const podIp = opts.podIp ?? '10.255.0.1';
  const { namespace, name } = opts.service ?? upstreamTestExtensionService;
  try {
    execFileSync('ip', ['addr', 'add', `${podIp}/32`, 'dev', 'lo'], { stdio: 'pipe' });
  } catch (err) {
    // NOTE: iproute2 says `File exists` or `Address already assigned` depending on its version.
    if (!/File exists|Address already assigned/.test(String((err as { stderr?: unknown }).stderr))) throw err;
  }
  const port = Number(new URL(ext.url).port);
  const put = (obj: KubeObject) => applyObject(kube, obj, { fieldManager: harnessFieldManager, force: true });
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await put({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-cert`, namespace },
    type: 'kubernetes.io/tls',
    data: { 'ca.crt': ext.caBundle, 'tls.crt': '', 'tls.key': '' },
  });
  await put({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-extension', namespace, labels: { app: 'test-extension' } },
    spec: { containers: [{ name: 'manager', image: 'gcr.io/k8s-staging-cluster-api/test-extension:dev' }] },
  });
  await applyStatus(
    kube,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'test-extension', namespace },
      status: { phase: 'Running', podIP: podIp, podIPs: [{ ip: podIp }] },
    },
    { fieldManager: harnessFieldManager, force: true },
  );
  await put({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
  });
  // NOTE: no kubelet runs the Pod, so no controller would list it as ready: the Endpoints are written as it would.
  await put({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace },
    subsets: [
      {
        addresses: [{ ip: podIp, targetRef: { kind: 'Pod', name: 'test-extension', namespace } }],
        ports: [{ name: 'https', port }],
      },
    ],
  });
}
