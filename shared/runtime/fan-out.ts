// Fan-out: a change that maps to many objects (a ClusterClass or template change reaching every Cluster of the class)
// is spread over invocations instead of running every pass in one. The invocation that mapped the change runs the
// first batch itself and puts the others on the bus as `Passes Requested` events, one per batch, each invoking the
// same controller once; Lambda runs them side by side. A batch the bus refuses is run by the mapping invocation, so
// fanning out never loses a pass. Upstream's topology controller works through the same change with a fixed pool of
// workers in one process (--clustertopology-concurrency, 10 by default).
import type { Controller } from '#shared/checkpoint/index.ts';
import { maxKeysPerRequest, type PassesRequested } from '#shared/runtime/events.ts';
import type { MappedKey } from '#shared/runtime/types.ts';

/**
 * Puts fanned-out batches on the bus (EventBridge on AWS, the local bus locally); answers the requests it could not
 * deliver, which the caller runs itself.
 */
export type FanOutSink = (requests: readonly PassesRequested[]) => Promise<readonly PassesRequested[]>;

export type FanOutPlan = {
  /** The keys this invocation runs. */
  readonly own: readonly MappedKey[];
  /** One request per other invocation, in key order. */
  readonly handedOff: readonly PassesRequested[];
};

/**
 * Splits mapped keys into the batch this invocation runs and the batches it hands off: pure. `batchSize` keys per
 * invocation (capped at what one event may carry); no hand-off when everything fits in one batch.
 *
 * @example
 * computeFanOutPlan('topology', 'event e-1', keys, 10); // 25 keys: own = keys[0..9], handedOff = [keys[10..19], keys[20..24]]
 */
export function computeFanOutPlan(
  controller: Controller,
  trigger: string,
  keys: readonly MappedKey[],
  batchSize: number,
): FanOutPlan {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be ≥ 1, got ${batchSize}`);
  const size = Math.min(batchSize, maxKeysPerRequest);
  if (keys.length <= size) return { own: keys, handedOff: [] };
  const handedOff: PassesRequested[] = [];
  for (let from = size; from < keys.length; from += size)
    handedOff.push({ controller, trigger, keys: keys.slice(from, from + size).map(toDetailKey) });
  return { own: keys.slice(0, size), handedOff };
}

// NOTE: the event carries exactly the fields a MappedKey has, with the optional flags only when set.
function toDetailKey(key: MappedKey): PassesRequested['keys'][number] {
  return {
    apiVersion: key.apiVersion,
    kind: key.kind,
    namespace: key.namespace,
    name: key.name,
    ...(key.force ? { force: true } : {}),
    ...(key.wake ? { wake: true } : {}),
  };
}
