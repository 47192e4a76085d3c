// The one-time schedule of a pass that asked to run again, pure: its name (one per function and object, so a repeated
// request updates it rather than adding another), its `at(...)` expression, whether a request replaces the schedule
// already there (the earlier due time wins), and which schedules are deleted once their passes stop asking.
import type { Controller } from '#shared/checkpoint/index.ts';
import { computeSha256 } from '#shared/hash/sha256.ts';
import type { PassKey, PassReport } from '#shared/runtime/types.ts';

/** EventBridge Scheduler's limit on a schedule's name (`[0-9a-zA-Z-_.]+`, 1 to 64 characters). */
const maxNameLength = 64;

/**
 * The schedule's name: `<controller>-<Kind>-<24 hex of SHA-256 over the controller and the object's key>`, readable
 * in the console and the same for every request about one object of one function.
 *
 * @example
 * computeWakeUpScheduleName('topology', { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'c1' });
 * // 'topology-Cluster-3f1c…' (at most 64 characters)
 */
export function computeWakeUpScheduleName(controller: Controller, key: PassKey): string {
  const digest = computeSha256(`${controller}\n${key.apiVersion}\n${key.kind}\n${key.namespace}\n${key.name}`);
  const kind = key.kind.replace(/[^0-9A-Za-z]/g, '').slice(0, maxNameLength - controller.length - 26);
  return `${controller}-${kind}-${digest.slice(0, 24)}`;
}

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC for a due time, rounded up to the next whole second so the schedule never fires
 * before the checkpoint's due time (a pass woken early would find it backing off).
 *
 * @example
 * computeAtExpression(Date.UTC(2026, 10, 27, 16, 30, 0, 1)); // 'at(2026-11-27T16:30:01)'
 */
export function computeAtExpression(dueAtMs: number): string {
  const seconds = Math.ceil(dueAtMs / 1000);
  return `at(${new Date(seconds * 1000).toISOString().slice(0, 19)})`;
}

/**
 * The due time (epoch ms) of an `at(...)` expression in UTC; undefined for any other expression.
 *
 * @example
 * parseAtExpression('at(2026-11-27T16:30:01)'); // 1795797001000
 */
export function parseAtExpression(expression: string | undefined): number | undefined {
  const m = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression ?? '');
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

export const wakeUpActions = { keep: 'Keep', update: 'Update' } as const;
export type WakeUpAction = (typeof wakeUpActions)[keyof typeof wakeUpActions];

/**
 * Whether a request for `requestedAtMs` replaces the object's existing schedule: kept when that one fires later than
 * now and no later than requested (the earlier due time wins; a pass it wakes too early finds the checkpoint backing
 * off and schedules the checkpoint's own time). Replaced when it is later, has fired (its time is past), or is not a
 * one-time schedule.
 *
 * @example
 * computeWakeUpAction({ existingAtMs: 2_000, requestedAtMs: 5_000, now: 1_000 }); // 'Keep'
 */
export function computeWakeUpAction(times: {
  readonly existingAtMs: number | undefined;
  readonly requestedAtMs: number;
  readonly now: number;
}): WakeUpAction {
  const { existingAtMs, requestedAtMs, now } = times;
  if (existingAtMs !== undefined && existingAtMs > now && existingAtMs <= Math.ceil(requestedAtMs / 1000) * 1000)
    return wakeUpActions.keep;
  return wakeUpActions.update;
}

/**
 * The objects whose one-time schedule is deleted after an invocation's passes: a recorded pass whose previous
 * checkpoint held a due time (`previousNextAttemptAt`, so a schedule may wait for it) and that no longer asks to run
 * again (it succeeded, or found its object gone), while that schedule is still to fire (its `at(...)` second is after
 * `now`; one whose time has come has fired and deletes itself, `ActionAfterCompletion: DELETE`). An object another of
 * the invocation's passes still has a due time for keeps its schedule. Objects whose checkpoint never held a due
 * time cost no call.
 *
 * @example
 * computeWakeUpDeletes([{ key, status: 'Ran', result: 'Success', previousNextAttemptAt: 1_300_000, ... }], 1_000_000);
 * // [key]
 */
export function computeWakeUpDeletes(passes: readonly PassReport[], now: number): PassKey[] {
  const id = (k: PassKey) => `${k.apiVersion}\n${k.kind}\n${k.namespace}\n${k.name}`;
  const stillAsking = new Set(passes.filter((p) => p.nextAttemptAt !== undefined).map((p) => id(p.key)));
  const deletes = new Map<string, PassKey>();
  for (const p of passes) {
    const dueBefore = p.previousNextAttemptAt;
    if (dueBefore === undefined || p.unrecorded === true || p.nextAttemptAt !== undefined) continue;
    if (Math.ceil(dueBefore / 1000) * 1000 <= now || stillAsking.has(id(p.key))) continue;
    deletes.set(id(p.key), p.key);
  }
  return [...deletes.values()];
}
