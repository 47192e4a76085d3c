// Setting a condition the way Cluster API's conditions utilities do: the transition time moves only when the status
// changes, and conditions stay in a stable order so an unchanged pass writes nothing. NOTE: the Cluster API Operator's
// conditions (v0.29.0) are metav1.Conditions: no `severity` (its CRDs prune one, so a pass writing it would find the
// status changed every time and write it again).
import type { Condition, ConditionStatus } from '#shared/api/core/v1beta1/condition.ts';

export type ConditionInput = {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message?: string;
};

/** RFC 3339 without fractions, as `metav1.Time` serialises. */
export function formatConditionTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

const order = ['Ready', 'PreflightCheckPassed', 'ProviderInstalled', 'ProviderUpgraded', 'Deleting'];
function rank(type: string): number {
  const i = order.indexOf(type);
  return i < 0 ? order.length : i;
}

/**
 * Returns the conditions with `input` set: same-status updates keep `lastTransitionTime`; `Ready` first, then
 * upstream's types, then the rest by name. Pure; `now` is the transition time for a status change.
 *
 * @example
 * computeSetCondition([], { type: 'Ready', status: 'True', reason: 'DeploymentAvailable' }, new Date(0));
 */
export function computeSetCondition(conditions: readonly Condition[], input: ConditionInput, now: Date): Condition[] {
  const existing = conditions.find((c) => c.type === input.type);
  const next: Condition = {
    type: input.type,
    status: input.status,
    lastTransitionTime:
      existing && existing.status === input.status ? existing.lastTransitionTime : formatConditionTime(now),
    reason: input.reason,
    ...(input.message ? { message: input.message } : {}),
  };
  return [...conditions.filter((c) => c.type !== input.type), next].sort(
    (a, b) => rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0),
  );
}

/** Removes a condition type. */
export function computeDeleteCondition(conditions: readonly Condition[], type: string): Condition[] {
  return conditions.filter((c) => c.type !== type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((c) => c.type === type && c.status === 'True');
}
