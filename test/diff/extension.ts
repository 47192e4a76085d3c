// Upstream's test Runtime Extension for one side of the differential: the process on loopback against that side's
// management cluster, its ExtensionConfig (limited to the extension scenarios' namespaces) and what each extension
// scenario needs before its Cluster: the hook-response ConfigMap and the ClusterClass's discovered variables.
import { applyObject, findObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { startTestExtension, type TestExtension } from '#test/support/harness/test-extension.ts';
import { computeHookResponses, extensionConfigName } from './scenarios.ts';

/** The namespace label the ExtensionConfig's namespaceSelector matches: only extension scenarios call it. */
export const extensionNamespaceLabel = 'diff.capi-serverless.io/test-extension';

const user = { fieldManager: 'diff-user', force: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Condition = { type: string; status?: string };
const conditionsOf = (obj: KubeObject | undefined) =>
  ((obj?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];

async function waitFor(what: string, timeoutMs: number, check: () => Promise<string | true>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await check();
    if (seen === true) return;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs / 1000} s; last seen: ${seen}`);
    await sleep(1_000);
  }
}

/**
 * Starts the test extension against `mgmt` and registers it; waits until the side's discovery (upstream's core manager
 * with RuntimeSDK on, or capi-serverless) lists its handlers in the ExtensionConfig's status.
 *
 * @example
 * const ext = await startDiffExtension(side.mgmt);
 * try { ... } finally { await ext.stop(); }
 */
export async function startDiffExtension(mgmt: TestCluster): Promise<TestExtension> {
  const extension = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
  try {
    const apiVersion = 'runtime.cluster.x-k8s.io/v1beta2';
    await applyObject(
      mgmt.kube,
      {
        apiVersion,
        kind: 'ExtensionConfig',
        metadata: { name: extensionConfigName },
        spec: {
          clientConfig: { url: extension.url, caBundle: extension.caBundle },
          namespaceSelector: { matchLabels: { [extensionNamespaceLabel]: 'true' } },
          settings: { extensionConfigName },
        },
      },
      user,
    );
    await waitFor('the ExtensionConfig discovered (its handlers in status)', 120_000, async () => {
      const ec = await findObject(mgmt.kube, { apiVersion, kind: 'ExtensionConfig', name: extensionConfigName });
      const handlers = ((ec?.['status'] as { handlers?: { name: string }[] } | undefined)?.handlers ?? []).map(
        (h) => h.name,
      );
      const wanted = ['generate-patches', 'discover-variables', 'generate-upgrade-plan'].map(
        (h) => `${h}.${extensionConfigName}`,
      );
      return wanted.every((h) => handlers.includes(h)) || JSON.stringify(ec?.['status'] ?? {});
    });
    return extension;
  } catch (err) {
    const logs = extension.logs().split('\n').slice(-40).join('\n');
    await extension.stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n----- test extension\n${logs}`, {
      cause: err,
    });
  }
}

/**
 * The test extension's hook-response ConfigMap of the scenario's Cluster, written before the Cluster so both sides
 * start alike: every lifecycle hook answers Success without retry (the extension's own default for a hook with no
 * preloaded answer, spelled out for the hooks without version attributes).
 *
 * @example
 * await applyHookResponses(kube, 'd62-extension-variables');
 */
export async function applyHookResponses(kube: KubeClient, namespace: string): Promise<void> {
  await applyObject(kube, computeHookResponses(namespace), user);
}

/**
 * Waits until the ClusterClass `name` has reconciled its current generation with VariablesReady True: the Cluster
 * webhooks validate the Cluster's variables against the variables DiscoverVariables returned.
 *
 * @example
 * await waitForClassVariables(kube, 'd62-extension-variables', 'in-memory');
 */
export async function waitForClassVariables(kube: KubeClient, namespace: string, name: string): Promise<void> {
  await waitFor(`ClusterClass ${namespace}/${name} VariablesReady`, 120_000, async () => {
    const cc = await findObject(kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace,
      name,
    });
    const status = cc?.['status'] as { observedGeneration?: number } | undefined;
    const ready = conditionsOf(cc).find((c) => c.type === 'VariablesReady')?.status === 'True';
    return (ready && status?.observedGeneration === cc?.metadata.generation) || JSON.stringify(cc?.['status'] ?? {});
  });
}
