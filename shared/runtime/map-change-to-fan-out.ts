// Mapping a change of a watched kind to the objects to reconcile, fed to the fan-out as it goes: page by page when
// the reconciler maps through a paged LIST (a ClusterClass change reaching every Cluster of the class), so passes
// start in other invocations while the list is still read, and a list too long for one invocation is handed on to
// another (its `continue` token in a `Passes Requested` event) instead of running into the Lambda timeout.
import type { MappingContinued } from '#shared/runtime/events.ts';
import type { FanOutStream } from '#shared/runtime/fan-out.ts';
import type { ChangedObject, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export type MapChangeInput = {
  readonly reconciler: Reconciler;
  readonly deps: RuntimeDeps;
  readonly change: ChangedObject;
  /** Where an earlier invocation's mapping of this change stopped (a `Passes Requested` event's `mapping`). */
  readonly from?: string | undefined;
  readonly stream: FanOutStream;
  /**
   * Hands the rest of the mapping to another invocation; false when that could not be done (then it goes on here).
   * Unset (no fan-out): the whole mapping runs in this invocation.
   */
  readonly handOff?: ((rest: MappingContinued) => Promise<boolean>) | undefined;
  /** Milliseconds left in this invocation (the Lambda context's). */
  readonly remainingMs: () => number;
};

/**
 * Maps `change` into `stream`. Answers whether the rest of the mapping went to another invocation.
 *
 * @example
 * const continued = await mapChangeToFanOut({ reconciler, deps, change, stream, handOff, remainingMs });
 */
export async function mapChangeToFanOut(input: MapChangeInput): Promise<{ readonly continued: boolean }> {
  const { reconciler, deps, change, stream, handOff } = input;
  const { pageSize, handOffBeforeTimeoutMs } = deps.config.mapping;
  const onKeys = (keys: Parameters<FanOutStream['add']>[0]) => stream.add(keys);
  const shouldStop = () => handOff !== undefined && input.remainingMs() < handOffBeforeTimeoutMs;
  const paged = await reconciler.mapChangeInPages?.(deps, change, { from: input.from, pageSize, onKeys, shouldStop });
  if (paged === undefined) {
    if (input.from === undefined) await stream.add((await reconciler.mapChange?.(deps, change)) ?? []);
    return { continued: false };
  }
  let next = paged.continue;
  while (next !== undefined) {
    if (handOff && (await handOff({ change: toChangeDetail(change), continue: next }))) return { continued: true };
    // NOTE: the bus refused the rest: it is mapped here to the end rather than lost.
    const rest = await reconciler.mapChangeInPages?.(deps, change, {
      from: next,
      pageSize,
      onKeys,
      shouldStop: () => false,
    });
    next = rest?.continue;
  }
  return { continued: false };
}

function toChangeDetail(change: ChangedObject): MappingContinued['change'] {
  return {
    apiVersion: change.apiVersion,
    kind: change.kind,
    namespace: change.namespace,
    name: change.name,
    type: change.type,
    ...(change.uid === undefined ? {} : { uid: change.uid }),
    ...(change.generation === undefined ? {} : { generation: change.generation }),
    ...(change.resourceVersion === undefined ? {} : { resourceVersion: change.resourceVersion }),
    ...(change.cluster === undefined ? {} : { cluster: change.cluster }),
  };
}
