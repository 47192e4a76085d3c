// Calls one extension handler by its registered name (`<handler>.<ExtensionConfig>`), as a ClusterClass names it
// (upstream's runtimeClient.CallExtension): the ExtensionConfig must be discovered and have that handler for the
// hook, and its namespaceSelector must match the namespace of the object the call is for. The ExtensionConfigs come
// from the management cluster unless the caller hands in a registry (plan).
import { matchesLabelSelector } from '#shared/api/label-selector.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { Hook, HookResponse } from '#shared/runtime-sdk/catalog.ts';
import {
  callExtensionHandler,
  type ExtensionCallDeps,
  type ExtensionCallOptions,
} from '#shared/runtime-sdk/call-extension.ts';
import { findHandler } from '#shared/runtime-sdk/compute-hook-registrations.ts';
import { extensionFailures, RuntimeExtensionError } from '#shared/runtime-sdk/errors.ts';
import { createKubeExtensionRegistry, type ExtensionRegistry } from '#shared/runtime-sdk/extension-registry.ts';

/**
 * The ExtensionConfig a registered handler name belongs to: everything after the first dot (handler names are DNS
 * labels, ExtensionConfig names may have dots).
 */
function extensionConfigNameOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/**
 * Calls the handler `name` of `hook` for an object in `namespace`. Throws {@link RuntimeExtensionError} (naming
 * the handler and hook) when the handler is not registered, is registered for another hook, its namespaceSelector
 * does not match, or the call fails (with the handler's failurePolicy, see callExtensionHandler).
 *
 * @example
 * const answer = await callNamedExtension(deps, 'GeneratePatches', 'generate-patches.test-extension', 'default', request);
 */
export async function callNamedExtension<H extends Exclude<Hook, 'Discovery'>>(
  deps: ExtensionCallDeps & { readonly registry?: ExtensionRegistry },
  hook: H,
  name: string,
  namespace: string,
  request: Readonly<Record<string, unknown>>,
  options: ExtensionCallOptions = {},
): Promise<HookResponse<H>> {
  const configName = extensionConfigNameOf(name);
  const what = { extension: configName, handler: name, hook };
  const fail = (detail: string, cause?: unknown): never => {
    throw new RuntimeExtensionError(what, extensionFailures.call, detail, cause === undefined ? undefined : { cause });
  };
  const registry = deps.registry ?? createKubeExtensionRegistry(deps.kube);
  let registration;
  try {
    const extensionConfig = configName === '' ? undefined : await registry.getExtensionConfig(configName);
    registration = extensionConfig === undefined ? undefined : findHandler([extensionConfig], name);
  } catch (err) {
    fail(`failed to read ExtensionConfig ${configName}: ${errorMessage(err)}`, err);
  }
  if (registration === undefined) return fail(`handler with name "${name}" has not been registered`);
  if (registration.handler.requestHook.hook !== hook) {
    return fail(`handler does not match hook ${hook} (it is registered for ${registration.handler.requestHook.hook})`);
  }
  const selector = registration.extensionConfig.spec.namespaceSelector;
  if (selector !== undefined) {
    const labels = await registry.getNamespaceLabels(namespace);
    if (!matchesLabelSelector(selector, labels)) {
      return fail(`namespaceSelector did not match namespace ${namespace}`);
    }
  }
  return await callExtensionHandler(deps, hook, registration.extensionConfig, registration.handler, request, options);
}
