// Which discovered handlers a hook call for an object goes to: every handler of that hook, of every ExtensionConfig
// whose namespaceSelector matches the object's namespace, in name order (upstream's registry order). Pure: the
// namespace's labels are read by the caller.
import type { ExtensionConfig, ExtensionHandler } from '#shared/api/runtime-extension.ts';
import { hooksGroupVersion } from '#shared/api/runtime-extension.ts';
import { matchesLabelSelector } from '#shared/api/label-selector.ts';
import type { Hook } from '#shared/runtime-sdk/catalog.ts';

export type HookRegistration = { readonly extensionConfig: ExtensionConfig; readonly handler: ExtensionHandler };

/**
 * The registrations of `hook` that apply to an object in a namespace with `namespaceLabels`. Only ExtensionConfigs
 * whose last discovery succeeded count (upstream registers an ExtensionConfig once discovered).
 *
 * @example
 * computeHookRegistrations(extensionConfigs, 'BeforeClusterCreate', { 'kubernetes.io/metadata.name': 'default' });
 */
export function computeHookRegistrations(
  extensionConfigs: readonly ExtensionConfig[],
  hook: Hook,
  namespaceLabels: Readonly<Record<string, string>>,
): HookRegistration[] {
  const found: HookRegistration[] = [];
  for (const extensionConfig of extensionConfigs) {
    if (!isDiscovered(extensionConfig)) continue;
    if (!matchesLabelSelector(extensionConfig.spec.namespaceSelector, namespaceLabels)) continue;
    for (const handler of extensionConfig.status?.handlers ?? []) {
      if (handler.requestHook.hook !== hook || handler.requestHook.apiVersion !== hooksGroupVersion) continue;
      found.push({ extensionConfig, handler });
    }
  }
  return found.sort((a, b) => (a.handler.name < b.handler.name ? -1 : a.handler.name > b.handler.name ? 1 : 0));
}

/**
 * The registration of one handler by its full name (`<handler>.<ExtensionConfig>`), as a ClusterClass's external
 * patch names it, or undefined when no discovered ExtensionConfig has it.
 *
 * @example
 * findHandler(extensionConfigs, 'generate-patches.test-extension');
 */
export function findHandler(extensionConfigs: readonly ExtensionConfig[], name: string): HookRegistration | undefined {
  for (const extensionConfig of extensionConfigs) {
    if (!isDiscovered(extensionConfig)) continue;
    const handler = extensionConfig.status?.handlers?.find((h) => h.name === name);
    if (handler) return { extensionConfig, handler };
  }
  return undefined;
}

function isDiscovered(extensionConfig: ExtensionConfig): boolean {
  return (extensionConfig.status?.conditions ?? []).some(
    (c) =>
      typeof c === 'object' &&
      c !== null &&
      (c as { type?: unknown }).type === 'Discovered' &&
      (c as { status?: unknown }).status === 'True',
  );
}
