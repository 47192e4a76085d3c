// Calls every registered handler of a lifecycle hook for an object (upstream's runtimeClient.CallAllExtensions):
// the discovered ExtensionConfigs whose namespaceSelector matches the object's namespace, in handler-name order,
// with the answers aggregated (lowest non-zero retryAfterSeconds, messages joined).
import { ExtensionConfig } from '#shared/api/runtime-extension.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { findObject, listObjects, UnknownKindError } from '#shared/kube/index.ts';
import type { HookResponse } from '#shared/runtime-sdk/catalog.ts';
import {
  callExtensionHandler,
  type ExtensionCallDeps,
  type ExtensionCallOptions,
} from '#shared/runtime-sdk/call-extension.ts';
import { computeHookRegistrations } from '#shared/runtime-sdk/compute-hook-registrations.ts';
import { extensionFailures, RuntimeExtensionError } from '#shared/runtime-sdk/errors.ts';

/** The lifecycle hooks whose answers can block (they carry `retryAfterSeconds`). */
export type BlockingHook =
  | 'BeforeClusterCreate'
  | 'BeforeClusterUpgrade'
  | 'BeforeControlPlaneUpgrade'
  | 'AfterControlPlaneUpgrade'
  | 'BeforeWorkersUpgrade'
  | 'AfterWorkersUpgrade'
  | 'AfterClusterUpgrade'
  | 'BeforeClusterDelete';

/** The aggregated answer of all handlers of a hook; `handlers` is how many were called (0: none registered). */
export type AggregatedHookResponse = {
  readonly retryAfterSeconds: number;
  readonly message: string;
  readonly handlers: number;
};

/** Upstream's LowestNonZeroInt32. */
function lowestNonZero(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

/**
 * Upstream's aggregateSuccessfulResponses: the lowest non-zero retryAfterSeconds of the answers, their non-empty
 * messages joined with ", ".
 *
 * @example
 * computeAggregatedResponse([{ retryAfterSeconds: 30, message: 'a' }, { retryAfterSeconds: 10, message: '' }]); // { retryAfterSeconds: 10, message: 'a', handlers: 2 }
 */
export function computeAggregatedResponse(
  answers: readonly { readonly retryAfterSeconds?: number; readonly message?: string | undefined }[],
): AggregatedHookResponse {
  let retryAfterSeconds = 0;
  const messages: string[] = [];
  for (const answer of answers) {
    retryAfterSeconds = lowestNonZero(retryAfterSeconds, answer.retryAfterSeconds ?? 0);
    if (answer.message) messages.push(answer.message);
  }
  return { retryAfterSeconds, message: messages.join(', '), handlers: answers.length };
}

/**
 * Calls all handlers of `hook` registered for objects in `namespace` with `request` and aggregates the answers.
 * Throws {@link RuntimeExtensionError} naming the hook and the handler when a call fails (failurePolicy applies per
 * handler, see callExtensionHandler).
 *
 * @example
 * const answer = await callAllExtensions({ kube }, 'BeforeClusterCreate', 'default', { cluster });
 * if (answer.retryAfterSeconds > 0) return blocked(answer);
 */
export async function callAllExtensions(
  deps: ExtensionCallDeps,
  hook: BlockingHook | 'AfterControlPlaneInitialized',
  namespace: string,
  request: Readonly<Record<string, unknown>>,
  options: ExtensionCallOptions = {},
): Promise<AggregatedHookResponse> {
  let configs: ExtensionConfig[];
  let labels: Record<string, string>;
  try {
    // NOTE: the two reads at once: a new Cluster's BeforeClusterCreate call waits for them.
    const [items, ns] = await Promise.all([
      listObjects(deps.kube, { apiVersion: 'runtime.cluster.x-k8s.io/v1beta2', kind: 'ExtensionConfig' }).then(
        (list) => list.items,
        (err: unknown) => {
          // NOTE: a management cluster without the Runtime SDK CRD has no extensions to call.
          if (err instanceof UnknownKindError) return undefined;
          throw err;
        },
      ),
      findObject(deps.kube, { apiVersion: 'v1', kind: 'Namespace', name: namespace }),
    ]);
    if (items === undefined) return computeAggregatedResponse([]);
    configs = items.flatMap((item) => {
      const parsed = ExtensionConfig.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
    labels = (ns?.metadata?.labels ?? {}) as Record<string, string>;
  } catch (err) {
    throw new RuntimeExtensionError(
      { extension: '', handler: '', hook },
      extensionFailures.call,
      `failed to call extension handlers for hook ${hook}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  const registrations = computeHookRegistrations(configs, hook, labels);
  const answers: HookResponse<typeof hook>[] = [];
  for (const { extensionConfig, handler } of registrations) {
    answers.push(
      (await callExtensionHandler(deps, hook, extensionConfig, handler, request, options)) as HookResponse<typeof hook>,
    );
  }
  return computeAggregatedResponse(answers as { retryAfterSeconds?: number; message?: string }[]);
}
