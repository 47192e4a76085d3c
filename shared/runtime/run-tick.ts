// The tick: one LIST per kind, one checkpoint read per listed object, and a pass only over what is due (new,
// changed generation, retry or requeue due, or due for drift correction). Idle objects cost no writes.
import { getCheckpoint } from '#shared/checkpoint/index.ts';
import { listObjects } from '#shared/kube/index.ts';
import { computeTickDecision, type TickReason } from '#shared/runtime/compute-tick-decision.ts';
import type { PassRunner } from '#shared/runtime/create-pass-runner.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import type { PassKey, PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export type TickReport = {
  readonly listed: number;
  /** How many listed objects were found in each state. */
  readonly reasons: Readonly<Partial<Record<TickReason, number>>>;
  readonly passes: readonly PassReport[];
  /** Due objects left for the next tick because the invocation was running out of time. */
  readonly deferred: number;
};

/**
 * Sweeps the reconciler's kinds. A pass is only started while at least twice `stopBeforeTimeoutMs` remains, so
 * every started pass can record its checkpoint; the rest is deferred to the next tick.
 *
 * @example
 * const report = await runTick(reconciler, deps, createPassRunner(reconciler, deps), context, event.id);
 */
export async function runTick(
  reconciler: Reconciler,
  deps: RuntimeDeps,
  runPass: PassRunner,
  context: LambdaContextLike,
  trigger: string,
): Promise<TickReport> {
  const listed: { key: PassKey; generation: number }[] = [];
  for (const kind of reconciler.kinds) {
    const list = await listObjects(deps.kube, kind);
    for (const item of list.items) {
      listed.push({
        key: {
          apiVersion: kind.apiVersion,
          kind: kind.kind,
          namespace: item.metadata.namespace ?? '',
          name: item.metadata.name ?? '',
        },
        generation: item.metadata.generation ?? 0,
      });
    }
  }
  const reasons: Partial<Record<TickReason, number>> = {};
  let deferred = 0;
  const reports = await mapLimit(listed, deps.config.tickConcurrency, async ({ key, generation }) => {
    const checkpoint = await getCheckpoint(deps.store, {
      controller: reconciler.controller,
      kind: key.kind,
      namespace: key.namespace,
      name: key.name,
    });
    const decision = computeTickDecision(
      checkpoint,
      { generation },
      {
        now: deps.now(),
        resyncAfterMs: deps.config.resyncAfterMs,
      },
    );
    reasons[decision.reason] = (reasons[decision.reason] ?? 0) + 1;
    if (!decision.due) return undefined;
    if (context.getRemainingTimeInMillis() < 2 * deps.config.stopBeforeTimeoutMs) {
      deferred++;
      return undefined;
    }
    return runPass({ key, force: decision.force, trigger }, context);
  });
  const passes = reports.filter((r): r is PassReport => r !== undefined);
  deps.logger.info('tick finished', { controller: reconciler.controller, listed: listed.length, reasons, deferred });
  return { listed: listed.length, reasons, passes, deferred };
}
