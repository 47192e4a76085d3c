// Where a Runtime SDK call looks up registered handlers: the ExtensionConfigs (with their discovered handlers) and
// the labels of the namespace a call is for. The passes read the management cluster; `capi-serverless plan` also
// holds ExtensionConfigs it discovered itself from the input files.
import type { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { findObject, KubeNotFoundError, type KubeClient } from '#shared/kube/index.ts';
import { getExtensionConfig } from '#shared/runtime-sdk/reconcile-extension-config.ts';

export type ExtensionRegistry = {
  /** The ExtensionConfig `name`, or undefined when there is none. */
  getExtensionConfig(name: string): Promise<ExtensionConfig | undefined>;
  /** The labels of `namespace` (what an ExtensionConfig's namespaceSelector matches). */
  getNamespaceLabels(namespace: string): Promise<Record<string, string>>;
};

/**
 * The registry of a management cluster.
 *
 * @example
 * const registry = createKubeExtensionRegistry(kube);
 */
export function createKubeExtensionRegistry(kube: KubeClient): ExtensionRegistry {
  return {
    getExtensionConfig: async (name) => {
      try {
        return await getExtensionConfig(kube, name);
      } catch (err) {
        if (err instanceof KubeNotFoundError) return undefined;
        throw err;
      }
    },
    getNamespaceLabels: async (namespace) => {
      const ns = await findObject(kube, { apiVersion: 'v1', kind: 'Namespace', name: namespace });
      return (ns?.metadata?.labels ?? {}) as Record<string, string>;
    },
  };
}
