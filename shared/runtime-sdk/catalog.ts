// The Runtime SDK hooks of upstream v1.14's catalog (capi-serverless calls the topology and lifecycle ones), with the shape of each response
// and the URL path of a handler (`/hooks.runtime.cluster.x-k8s.io/v1alpha1/<hook>/<handler>`).
import type * as z from 'zod';
import {
  CommonResponse,
  DiscoverVariablesResponse,
  DiscoveryResponse,
  GeneratePatchesResponse,
  GenerateUpgradePlanResponse,
  RetryResponse,
  hooksGroupVersion,
} from '#shared/api/runtime-extension.ts';

/** The hooks of `hooks.runtime.cluster.x-k8s.io/v1alpha1`: response schema, whether it can block, singleton. */
export const hooks = {
  Discovery: { response: DiscoveryResponse, blocking: false, singleton: true },
  GeneratePatches: { response: GeneratePatchesResponse, blocking: false, singleton: false },
  ValidateTopology: { response: CommonResponse, blocking: false, singleton: false },
  DiscoverVariables: { response: DiscoverVariablesResponse, blocking: false, singleton: false },
  BeforeClusterCreate: { response: RetryResponse, blocking: true, singleton: false },
  AfterControlPlaneInitialized: { response: CommonResponse, blocking: false, singleton: false },
  BeforeClusterUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  BeforeControlPlaneUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  AfterControlPlaneUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  BeforeWorkersUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  AfterWorkersUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  AfterClusterUpgrade: { response: RetryResponse, blocking: true, singleton: false },
  BeforeClusterDelete: { response: RetryResponse, blocking: true, singleton: false },
  GenerateUpgradePlan: { response: GenerateUpgradePlanResponse, blocking: false, singleton: false },
  // NOTE: hooks of upstream features capi-serverless does not drive (in-place updates are called by upstream's own
  // managers); known so that an extension offering them is discovered, as upstream does.
  CanUpdateMachine: { response: CommonResponse, blocking: false, singleton: false },
  CanUpdateMachineSet: { response: CommonResponse, blocking: false, singleton: false },
  UpdateMachine: { response: RetryResponse, blocking: true, singleton: false },
} as const satisfies Record<string, { response: z.ZodType; blocking: boolean; singleton: boolean }>;
export type Hook = keyof typeof hooks;
export type HookResponse<H extends Hook> = z.infer<(typeof hooks)[H]['response']>;

/** Default per-handler timeout when discovery leaves it out (upstream's DefaultHandlersTimeoutSeconds). */
export const defaultHandlerTimeoutSeconds = 10;
/** Discovery calls wait this long (upstream's defaultDiscoveryTimeout). */
export const discoveryTimeoutSeconds = 10;

/** Whether `apiVersion`/`hook` names a hook of the catalog. */
export function isKnownHook(apiVersion: string, hook: string): hook is Hook {
  return apiVersion === hooksGroupVersion && Object.hasOwn(hooks, hook);
}

/**
 * The URL path of a hook (discovery) or of one handler of it: lower-case hook and handler names, as upstream's
 * `GVHToPath`.
 *
 * @example
 * hookPath('GeneratePatches', 'patches'); // '/hooks.runtime.cluster.x-k8s.io/v1alpha1/generatepatches/patches'
 */
export function hookPath(hook: Hook, handlerName?: string): string {
  const base = `/${hooksGroupVersion}/${hook.toLowerCase()}`;
  return handlerName === undefined || handlerName === '' ? base : `${base}/${handlerName.toLowerCase()}`;
}
