// The status an ExtensionConfig pass writes: the discovered handlers and the `Discovered` condition in both the
// v1beta2 shape (metav1.Condition) and the deprecated v1beta1 block, as upstream's ExtensionConfig controller. Pure.
import type { ExtensionConfig, ExtensionHandler, MetaCondition } from '#shared/api/runtime-extension.ts';

export const discoveredCondition = {
  type: 'Discovered',
  reasons: { discovered: 'Discovered', notDiscovered: 'NotDiscovered' },
  v1beta1FailedReason: 'DiscoveryFailed',
} as const;

export type DiscoveryResult =
  | { readonly ok: true; readonly handlers: readonly ExtensionHandler[] }
  | { readonly ok: false; readonly error: string };

/**
 * The new `status`. A failed discovery keeps the handlers found before (upstream keeps them registered) and says
 * why in the condition; `lastTransitionTime` moves only when the condition's status changes.
 *
 * @example
 * computeExtensionConfigStatus(extensionConfig, { ok: true, handlers }, '2026-11-23T22:00:00Z');
 */
export function computeExtensionConfigStatus(
  extensionConfig: Pick<ExtensionConfig, 'metadata' | 'status'>,
  result: DiscoveryResult,
  now: string,
): { handlers: ExtensionHandler[]; conditions: MetaCondition[]; deprecated: { v1beta1: { conditions: unknown[] } } } {
  const previous = (extensionConfig.status?.conditions ?? []).find(
    (c): c is MetaCondition =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === discoveredCondition.type,
  );
  const status = result.ok ? 'True' : 'False';
  const lastTransitionTime = previous?.status === status ? previous.lastTransitionTime : now;
  const message = result.ok ? '' : `Error in discovery: ${result.error}`;
  const condition: MetaCondition = {
    type: discoveredCondition.type,
    status,
    ...(extensionConfig.metadata.generation === undefined
      ? {}
      : { observedGeneration: extensionConfig.metadata.generation }),
    lastTransitionTime,
    reason: result.ok ? discoveredCondition.reasons.discovered : discoveredCondition.reasons.notDiscovered,
    message,
  };
  const v1beta1 = result.ok
    ? { type: discoveredCondition.type, status, lastTransitionTime }
    : {
        type: discoveredCondition.type,
        status,
        severity: 'Error',
        reason: discoveredCondition.v1beta1FailedReason,
        message,
        lastTransitionTime,
      };
  return {
    handlers: result.ok ? [...result.handlers] : [...(extensionConfig.status?.handlers ?? [])],
    conditions: [condition],
    deprecated: { v1beta1: { conditions: [v1beta1] } },
  };
}

/**
 * Why an ExtensionConfig another writer discovers is not usable yet, or undefined when it is: as upstream's read-only
 * ExtensionConfig controller (the kubeadm control plane's) validates, a CA bundle and a `Discovered` condition True at
 * the current generation. Pure.
 *
 * @example
 * computeExtensionConfigUnready({ metadata: { name: 'ext', generation: 2 }, spec, status }); // undefined when discovered at 2
 */
export function computeExtensionConfigUnready(
  extensionConfig: Pick<ExtensionConfig, 'metadata' | 'spec' | 'status'>,
): string | undefined {
  const name = extensionConfig.metadata.name ?? '';
  if (!extensionConfig.spec.clientConfig.caBundle) return `caBundle is not set on ExtensionConfig ${name}`;
  const condition = (extensionConfig.status?.conditions ?? []).find(
    (c): c is MetaCondition =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === discoveredCondition.type,
  );
  if (condition === undefined) return `Discovered condition not yet set on ExtensionConfig ${name}`;
  if (condition.status !== 'True') {
    return `Discovered condition on ExtensionConfig ${name} must have status: True (instead it has: ${condition.status})`;
  }
  const generation = extensionConfig.metadata.generation;
  if (generation !== undefined && condition.observedGeneration !== generation) {
    return (
      `Discovered condition on ExtensionConfig ${name} must have observedGeneration: ${generation} ` +
      `(instead it has: ${condition.observedGeneration ?? 0})`
    );
  }
  return undefined;
}
