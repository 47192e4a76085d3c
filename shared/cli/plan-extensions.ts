// How `plan` reaches Runtime Extensions: the ExtensionConfigs given in the input files are discovered by calling
// each extension (as the topology function would), and with `--kubeconfig` the ExtensionConfigs of that cluster are
// used as discovered there (input files win on a name clash); `service` client configs need the cluster.
import { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { createKubeClient, type KubeClient } from '#shared/kube/index.ts';
import {
  callDiscovery,
  computeDiscoveredHandlers,
  computeExtensionConfigStatus,
  createKubeExtensionRegistry,
  type ExtensionRegistry,
  type RuntimeExtensionError,
} from '#shared/runtime-sdk/index.ts';
import type { PlanRuntime, SourcedObject } from '#shared/cli/plan/compute-plan.ts';

/** Whether an input object is an ExtensionConfig (any served version). */
export function isExtensionConfig(input: SourcedObject): boolean {
  return input.object.kind === 'ExtensionConfig' && input.object.apiVersion.startsWith('runtime.cluster.x-k8s.io/');
}

/** Stands in for a cluster when plan reads none: only `service` client configs need one. */
function createOfflineKubeClient(): KubeClient {
  return {
    server: '',
    discovery: new Map(),
    close: () => undefined,
    request: () =>
      Promise.reject(
        new CapiError(
          'an ExtensionConfig with clientConfig.service is reached through the API server: give plan --kubeconfig',
        ),
      ),
  };
}

type Discovered =
  { readonly ok: true; readonly extensionConfig: ExtensionConfig } | { readonly ok: false; readonly error: string };

/**
 * Parses and discovers the ExtensionConfigs of the input; a discovery failure is kept (and reported when one of its
 * handlers is called), a malformed ExtensionConfig fails at once.
 */
async function discoverInputExtensionConfigs(
  kube: KubeClient,
  inputs: readonly SourcedObject[],
  warn: (message: string) => void,
): Promise<Map<string, Discovered>> {
  const out = new Map<string, Discovered>();
  for (const input of inputs.filter(isExtensionConfig)) {
    const name = input.object.metadata.name ?? '';
    const { namespace: _clusterScoped, ...metadata } = input.object.metadata;
    const parsed = ExtensionConfig.safeParse({ ...input.object, metadata });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CapiError(
        `${input.source}: invalid ExtensionConfig ${name}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        { kind: 'ExtensionConfig', name, fieldPath: issue?.path.join('.') ?? '', reason: 'Invalid' },
      );
    }
    try {
      const answer = await callDiscovery({ kube }, parsed.data);
      const handlers = computeDiscoveredHandlers(parsed.data, answer);
      const status = computeExtensionConfigStatus(parsed.data, { ok: true, handlers }, new Date().toISOString());
      out.set(name, { ok: true, extensionConfig: { ...parsed.data, status } });
    } catch (err) {
      const error = `${input.source}: ExtensionConfig ${name} could not be discovered: ${errorMessage(err)}`;
      warn(error);
      out.set(name, { ok: false, error });
    }
  }
  return out;
}

/**
 * The Runtime SDK access of one plan run and what to close after it.
 *
 * @example
 * const { runtime, close } = await getPlanRuntime(inputs, { kubeconfig: '~/.kube/config' }, warn);
 */
export async function getPlanRuntime(
  inputs: readonly SourcedObject[],
  options: { readonly kubeconfig?: string | undefined },
  warn: (message: string) => void,
): Promise<{ readonly runtime: PlanRuntime; close(): void }> {
  const kube =
    options.kubeconfig === undefined
      ? createOfflineKubeClient()
      : await createKubeClient({ kubeconfigPath: options.kubeconfig }, { userAgent: 'capi-serverless/plan' });
  try {
    const given = await discoverInputExtensionConfigs(kube, inputs, warn);
    const cluster = options.kubeconfig === undefined ? undefined : createKubeExtensionRegistry(kube);
    const namespaces = new Map(
      inputs
        .filter((i) => i.object.apiVersion === 'v1' && i.object.kind === 'Namespace')
        .map((i) => [i.object.metadata.name ?? '', (i.object.metadata.labels ?? {}) as Record<string, string>]),
    );
    const registry: ExtensionRegistry = {
      getExtensionConfig: async (name) => {
        const found = given.get(name);
        if (found?.ok === false) throw new CapiError(found.error);
        if (found?.ok) return found.extensionConfig;
        if (!cluster)
          throw new CapiError(
            `ExtensionConfig ${name} is not in the input files, and no cluster was read (give it with -f, or --kubeconfig)`,
          );
        return cluster.getExtensionConfig(name);
      },
      getNamespaceLabels: async (namespace) => {
        const labels = namespaces.get(namespace) ?? (await cluster?.getNamespaceLabels(namespace));
        return { 'kubernetes.io/metadata.name': namespace, ...(labels ?? {}) };
      },
    };
    const onIgnoredFailure = (error: RuntimeExtensionError) =>
      warn(`${error.message} (failurePolicy Ignore: planned as the pass would go on, without this answer)`);
    return { runtime: { kube, registry, onIgnoredFailure }, close: () => kube.close() };
  } catch (err) {
    kube.close();
    throw err;
  }
}
