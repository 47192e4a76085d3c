// Which Runtime SDK lifecycle hook a topology pass calls, and what its answer blocks (upstream's
// desiredstate/lifecycle_hooks.go, callAfterHooks and internal/hooks/tracking.go), as pure decisions: the pass hands in
// the hooks pending on the Cluster (its `runtime.cluster.x-k8s.io/pending-hooks` annotation) and the answers it
// already has; the computation either asks for one more hook call or says what is pending now and what blocks.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { UpgradePlans } from '#shared/topology/desired/upgrade-plans.ts';

/** Upstream's PendingHooksAnnotation: hooks whose call is still due, comma-separated, sorted. */
export const PendingHooksAnnotation = 'runtime.cluster.x-k8s.io/pending-hooks';
/** Upstream's OkToDeleteAnnotation: the BeforeClusterDelete hooks let the deletion proceed. */
export const OkToDeleteAnnotation = 'runtime.cluster.x-k8s.io/ok-to-delete';
/** Upstream's BeforeClusterUpgradeHookAnnotationPrefix: such an annotation blocks an upgrade like a hook. */
export const BeforeClusterUpgradeHookAnnotationPrefix = 'before-upgrade.hook.cluster.cluster.x-k8s.io';

/** The lifecycle hooks the topology pass calls. */
export const LifecycleHook = {
  BeforeClusterCreate: 'BeforeClusterCreate',
  AfterControlPlaneInitialized: 'AfterControlPlaneInitialized',
  BeforeClusterUpgrade: 'BeforeClusterUpgrade',
  BeforeControlPlaneUpgrade: 'BeforeControlPlaneUpgrade',
  AfterControlPlaneUpgrade: 'AfterControlPlaneUpgrade',
  BeforeWorkersUpgrade: 'BeforeWorkersUpgrade',
  AfterWorkersUpgrade: 'AfterWorkersUpgrade',
  AfterClusterUpgrade: 'AfterClusterUpgrade',
  BeforeClusterDelete: 'BeforeClusterDelete',
} as const;
export type LifecycleHook = (typeof LifecycleHook)[keyof typeof LifecycleHook];

/** The aggregated answer of all handlers of a hook (retryAfterSeconds 0: not blocking). */
export type HookAnswer = { readonly retryAfterSeconds: number; readonly message: string };

/** A hook call the pass must make before the computation can go on: the request's fields besides the Cluster. */
export type HookCall = { readonly hook: LifecycleHook; readonly request: Readonly<Record<string, unknown>> };

/** What the pass knows about hooks when it computes the desired state. */
export type HookInput = {
  /** The hooks pending on the Cluster as the pass read it. */
  readonly pending: readonly string[];
  /** Answers of the hooks called in this pass so far. */
  readonly answers: Readonly<Partial<Record<LifecycleHook, HookAnswer>>>;
};

/** What the computation decided about hooks (upstream's HookResponseTracker plus the pending-hooks marks). */
export type HookDecision = {
  /** The next hook to call; while set, the desired state is not final and must not be applied. */
  readonly call?: HookCall | undefined;
  /** The pending hooks after this pass's marks, sorted. */
  readonly pending: readonly string[];
  /** The answers this computation used, by hook (upstream's tracked responses), in hook-name order. */
  readonly tracked: readonly { readonly hook: string; readonly answer: HookAnswer }[];
};

/** Local to one computation, like the UpgradeTracker. */
export type HookTracker = {
  readonly input: HookInput;
  readonly pending: Set<string>;
  readonly tracked: Map<string, HookAnswer>;
  call: HookCall | undefined;
  /** Upstream's upgrade plans and the lowest worker version. */
  readonly controlPlaneUpgrades: readonly string[];
  readonly workersUpgrades: readonly string[];
  readonly minWorkersVersion: string;
};

/**
 * The hooks listed in a pending-hooks annotation value (upstream splits on commas, drops empty names).
 *
 * @example
 * computePendingHooks('AfterClusterUpgrade,AfterControlPlaneUpgrade'); // ['AfterClusterUpgrade', 'AfterControlPlaneUpgrade']
 */
export function computePendingHooks(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(',').filter((name) => name !== ''))].sort();
}

/**
 * The annotation value for a set of pending hooks (sorted, comma-separated); undefined when none is pending
 * (upstream removes the annotation).
 *
 * @example
 * computePendingHooksValue(['AfterWorkersUpgrade', 'AfterClusterUpgrade']); // 'AfterClusterUpgrade,AfterWorkersUpgrade'
 */
export function computePendingHooksValue(pending: Iterable<string>): string | undefined {
  const sorted = [...new Set(pending)].sort();
  return sorted.length === 0 ? undefined : sorted.join(',');
}

/** A tracker for one computation. */
export function newHookTracker(input: HookInput, plans: UpgradePlans): HookTracker {
  const workersUpgrades = plans.machineDeployments.length > 0 ? plans.machineDeployments : plans.machinePools;
  return {
    input,
    pending: new Set(input.pending),
    tracked: new Map(),
    call: undefined,
    controlPlaneUpgrades: plans.controlPlane,
    workersUpgrades,
    minWorkersVersion: plans.minWorkersVersion,
  };
}

const steps = (versions: readonly string[]) =>
  versions.length > 0 ? versions.map((version) => ({ version })) : undefined;

/** The upgrade plans as hook requests carry them (`controlPlaneUpgrades`, `workersUpgrades`, omitted when empty). */
export function computeUpgradeSteps(t: HookTracker): Record<string, unknown> {
  const cp = steps(t.controlPlaneUpgrades);
  const workers = steps(t.workersUpgrades);
  return { ...(cp ? { controlPlaneUpgrades: cp } : {}), ...(workers ? { workersUpgrades: workers } : {}) };
}

/**
 * Consults a hook: `done` when its answer does not block, `wait` when it blocks or its answer is still unknown (then
 * the call is requested). Only the first unknown hook of a computation is requested.
 */
export function consultHook(t: HookTracker, hook: LifecycleHook, request: Record<string, unknown>): 'done' | 'wait' {
  if (t.call) return 'wait';
  const answer = t.input.answers[hook];
  if (!answer) {
    t.call = { hook, request };
    return 'wait';
  }
  t.tracked.set(hook, answer);
  return answer.retryAfterSeconds > 0 ? 'wait' : 'done';
}

/** Whether a hook consulted in this computation answered blocking (upstream HookResponseTracker.IsBlocking). */
export function isHookBlocking(t: HookTracker | undefined, hook: LifecycleHook): boolean {
  return (t?.tracked.get(hook)?.retryAfterSeconds ?? 0) > 0;
}

/**
 * BeforeClusterUpgrade annotations on the Cluster block the upgrade like a hook answer: upstream tracks a synthetic
 * answer with retryAfterSeconds 20 minutes (it relies on the event of the annotation's removal).
 */
export function computeAnnotationBlock(cluster: Cluster): HookAnswer | undefined {
  const keys = Object.keys(cluster.metadata.annotations ?? {})
    .filter((key) => key.startsWith(BeforeClusterUpgradeHookAnnotationPrefix))
    .sort();
  if (keys.length === 0) return undefined;
  const message = keys.length === 1 ? `annotation ${keys[0]} is set` : `annotations ${keys.join(', ')} are set`;
  return { retryAfterSeconds: 20 * 60, message };
}

/** Upstream isControlPlaneInitialized: the Cluster's ControlPlaneInitialized condition is True. */
export function isControlPlaneInitialized(cluster: Cluster): boolean {
  const conditions = (cluster.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  return (conditions ?? []).some((c) => c.type === 'ControlPlaneInitialized' && c.status === 'True');
}

/** The decision to hand back with the desired state. */
export function summarizeHookTracker(t: HookTracker): HookDecision {
  return {
    call: t.call,
    pending: [...t.pending].sort(),
    tracked: [...t.tracked.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([hook, answer]) => ({ hook, answer })),
  };
}

/**
 * Upstream HookResponseTracker.AggregateMessage: the blocking hooks and their messages (in hook-name order; upstream
 * iterates a map), or '' when none blocks.
 *
 * @example
 * computeBlockingHooksMessage('upgrade', [{ hook: 'AfterControlPlaneUpgrade', answer: { retryAfterSeconds: 5, message: '' } }]);
 * // 'Following hooks are blocking upgrade: AfterControlPlaneUpgrade'
 */
export function computeBlockingHooksMessage(
  action: string,
  tracked: readonly { readonly hook: string; readonly answer: HookAnswer }[],
): string {
  const blocking = tracked.filter((t) => t.answer.retryAfterSeconds > 0);
  if (blocking.length === 0) return '';
  const parts = blocking.map((t) => (t.answer.message === '' ? t.hook : `${t.hook}: ${t.answer.message}`));
  return `Following hooks are blocking ${action}: ${parts.join('; ')}`;
}

/** Upstream AggregateRetryAfter: the lowest non-zero retryAfterSeconds of the tracked answers (0: none blocks). */
export function computeAggregateRetryAfter(tracked: readonly { readonly answer: HookAnswer }[]): number {
  let lowest = 0;
  for (const { answer } of tracked) {
    if (answer.retryAfterSeconds <= 0) continue;
    lowest = lowest === 0 ? answer.retryAfterSeconds : Math.min(lowest, answer.retryAfterSeconds);
  }
  return lowest;
}
