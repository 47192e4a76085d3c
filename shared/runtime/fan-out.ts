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
  const size = computeBatchSize(batchSize);
  if (keys.length <= size) return { own: keys, handedOff: [] };
  return { own: keys.slice(0, size), handedOff: computeBatches(controller, trigger, keys.slice(size), size) };
}

function computeBatchSize(batchSize: number): number {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be ≥ 1, got ${batchSize}`);
  return Math.min(batchSize, maxKeysPerRequest);
}

function computeBatches(
  controller: Controller,
  trigger: string,
  keys: readonly MappedKey[],
  size: number,
): PassesRequested[] {
  const batches: PassesRequested[] = [];
  for (let from = 0; from < keys.length; from += size)
    batches.push({ controller, trigger, keys: keys.slice(from, from + size).map(toDetailKey) });
  return batches;
}

/** Fan-out as a mapping finds its keys page by page (see {@link createFanOutStream}). */
export type FanOutStream = {
  /** More mapped keys: the first batch stays with this invocation, each further full batch is handed off at once. */
  add(keys: readonly MappedKey[]): Promise<void>;
  /** Hands off the last partial batch; answers what this invocation runs and how many passes went elsewhere. */
  finish(): Promise<{ readonly runHere: readonly MappedKey[]; readonly handedOff: number }>;
};

/**
 * The fan-out of {@link computeFanOutPlan}, fed page by page, so that the passes of the first pages run in other
 * invocations while the mapping still lists the rest. Without a sink every key runs here; a batch the sink refuses
 * runs here too.
 *
 * @example
 * const stream = createFanOutStream('topology', 'event e-1', 10, sink);
 * await stream.add(firstPageKeys); // hands off every full batch after the first ten
 * const { runHere } = await stream.finish();
 */
export function createFanOutStream(
  controller: Controller,
  trigger: string,
  batchSize: number,
  sink: FanOutSink | undefined,
): FanOutStream {
  const size = computeBatchSize(batchSize);
  const runHere: MappedKey[] = [];
  let pending: MappedKey[] = [];
  let handedOff = 0;
  let ownTaken = 0;
  const handOff = async (keys: readonly MappedKey[]) => {
    if (keys.length === 0) return;
    const refused = sink ? await sink(computeBatches(controller, trigger, keys, size)) : [];
    const back = refused.flatMap((r) => r.keys);
    handedOff += keys.length - back.length;
    runHere.push(...back);
  };
  return {
    async add(keys) {
      if (!sink) {
        runHere.push(...keys);
        return;
      }
      const own = keys.slice(0, Math.max(0, size - ownTaken));
      ownTaken += own.length;
      runHere.push(...own);
      pending = [...pending, ...keys.slice(own.length)];
      const full = pending.length - (pending.length % size);
      const ready = pending.slice(0, full);
      pending = pending.slice(full);
      await handOff(ready);
    },
    async finish() {
      const last = pending;
      pending = [];
      await handOff(last);
      return { runHere: [...runHere], handedOff };
    },
  };
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
    ...(key.ownedChange ? { ownedChange: key.ownedChange } : {}),
  };
}
