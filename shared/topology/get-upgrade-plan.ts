// The I/O side of upgrade plans: a ClusterClass that names a GenerateUpgradePlan extension has it called once per
// (Cluster, control plane version, lowest worker version, topology version) and the answer cached for 10 minutes, as
// upstream's GetUpgradePlanFromExtension does; the pure computation (compute-upgrade-plan.ts) validates the answer.
import type { GenerateUpgradePlanResponse } from '#shared/api/runtime-extension.ts';
import { CapiError, errorMessage } from '#shared/errors/index.ts';
import { callNamedExtension, type ExtensionCallDeps, type ExtensionRegistry } from '#shared/runtime-sdk/index.ts';
import {
  computeUpgradePlanRequest,
  computeUpgradePlanSource,
  type GeneratedUpgradePlan,
} from '#shared/topology/desired/compute-upgrade-plan.ts';
import { computeHookRequestCluster } from '#shared/topology/run-lifecycle-hooks.ts';
import type { Blueprint, CurrentState, Unstructured } from '#shared/topology/types.ts';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';

/** Calls the GenerateUpgradePlan handler `name` for a Cluster in `namespace`. */
export type UpgradePlanCaller = (
  name: string,
  namespace: string,
  request: Readonly<Record<string, unknown>>,
) => Promise<GenerateUpgradePlanResponse>;

/** Upstream caches GenerateUpgradePlan answers for 10 minutes (cache.New(ctx, 10*time.Minute)). */
export const UpgradePlanCacheTtlMs = 10 * 60 * 1000;
/** Entries kept per Lambda instance; the oldest goes first. */
const maxCacheEntries = 1000;

export type UpgradePlanCache = Map<string, { readonly expiresAtMs: number; readonly plan: GeneratedUpgradePlan }>;

/** Answers cached by this Lambda instance (a cold start asks again, as a restarted upstream controller does). */
const moduleCache: UpgradePlanCache = new Map();

/** A GenerateUpgradePlan call that failed; names the extension handler, as upstream's wrapped error. */
export class UpgradePlanExtensionError extends CapiError {}

/**
 * The GenerateUpgradePlan calls of a pass through the Runtime SDK client (the handler must be registered and its
 * ExtensionConfig's namespaceSelector match).
 *
 * @example
 * const call = createUpgradePlanCaller({ kube });
 */
export function createUpgradePlanCaller(
  deps: ExtensionCallDeps & { readonly registry?: ExtensionRegistry },
): UpgradePlanCaller {
  return (name, namespace, request) => callNamedExtension(deps, 'GenerateUpgradePlan', name, namespace, request);
}

/**
 * The extension's plan for this pass, or undefined when the class names no extension or nothing is to be upgraded.
 * Throws {@link UpgradePlanExtensionError} when the call fails.
 *
 * @example
 * const generated = await getGeneratedUpgradePlan(call, { cluster, rawCluster, blueprint, current }, Date.now());
 */
export async function getGeneratedUpgradePlan(
  call: UpgradePlanCaller,
  input: {
    readonly cluster: Cluster;
    readonly rawCluster: Unstructured;
    readonly blueprint: Blueprint;
    readonly current: CurrentState;
  },
  nowMs: number,
  cache: UpgradePlanCache = moduleCache,
): Promise<GeneratedUpgradePlan | undefined> {
  const source = computeUpgradePlanSource(input.blueprint.clusterClass);
  if (source.kind !== 'Extension') return undefined;
  const request = computeUpgradePlanRequest(input.cluster.spec?.topology?.version ?? '', input.current);
  if (!request || request.upToDate) return undefined;
  const namespace = input.cluster.metadata.namespace ?? '';
  const key = `${namespace}/${input.cluster.metadata.name ?? ''}: (${request.controlPlaneVersion},${request.minWorkersVersion}) => ${request.desiredVersion}`;
  const hit = cache.get(key);
  if (hit && hit.expiresAtMs > nowMs) return hit.plan;
  let response: GenerateUpgradePlanResponse;
  try {
    response = await call(source.name, namespace, {
      cluster: computeHookRequestCluster(input.rawCluster),
      fromControlPlaneKubernetesVersion: request.controlPlaneVersion,
      ...(request.minWorkersVersion === '' ? {} : { fromWorkersKubernetesVersion: request.minWorkersVersion }),
      toKubernetesVersion: request.desiredVersion,
    });
  } catch (err) {
    throw new UpgradePlanExtensionError(
      `failed to get upgrade plan from extension: ${errorMessage(err)}`,
      { reason: 'GenerateUpgradePlanFailed' },
      { cause: err },
    );
  }
  const plan: GeneratedUpgradePlan = {
    controlPlane: (response.controlPlaneUpgrades ?? []).map((step) => step.version),
    workers: (response.workersUpgrades ?? []).map((step) => step.version),
  };
  cache.delete(key);
  cache.set(key, { expiresAtMs: nowMs + UpgradePlanCacheTtlMs, plan });
  for (const oldest of cache.keys()) {
    if (cache.size <= maxCacheEntries) break;
    cache.delete(oldest);
  }
  return plan;
}
