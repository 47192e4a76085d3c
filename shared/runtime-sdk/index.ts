// Runtime SDK: ExtensionConfig discovery and calls to Runtime Extensions (topology mutation and lifecycle hooks),
// with upstream's wire format, TLS, timeouts and failure policies.
export { hooks, hookPath, isKnownHook, defaultHandlerTimeoutSeconds } from '#shared/runtime-sdk/catalog.ts';
export type { Hook, HookResponse } from '#shared/runtime-sdk/catalog.ts';
export { callDiscovery, callExtensionHandler } from '#shared/runtime-sdk/call-extension.ts';
export { callNamedExtension } from '#shared/runtime-sdk/call-named-extension.ts';
export type { ExtensionCallDeps, ExtensionCallOptions } from '#shared/runtime-sdk/call-extension.ts';
export { computeDiscoveredHandlers } from '#shared/runtime-sdk/compute-discovered-handlers.ts';
export {
  computeExtensionConfigStatus,
  computeExtensionConfigUnready,
  discoveredCondition,
} from '#shared/runtime-sdk/compute-extension-config-status.ts';
export {
  checkExtensionConfig,
  getExtensionConfig,
  injectCAFromSecretAnnotation,
  reconcileExtensionConfig,
} from '#shared/runtime-sdk/reconcile-extension-config.ts';
export { RuntimeExtensionError, extensionFailures } from '#shared/runtime-sdk/errors.ts';
export { computeHookRegistrations, findHandler } from '#shared/runtime-sdk/compute-hook-registrations.ts';
export type { HookRegistration } from '#shared/runtime-sdk/compute-hook-registrations.ts';
export { callAllExtensions, computeAggregatedResponse } from '#shared/runtime-sdk/call-all-extensions.ts';
export type { AggregatedHookResponse, BlockingHook } from '#shared/runtime-sdk/call-all-extensions.ts';
export { createKubeExtensionRegistry } from '#shared/runtime-sdk/extension-registry.ts';
export type { ExtensionRegistry } from '#shared/runtime-sdk/extension-registry.ts';
