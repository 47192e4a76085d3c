// The tick: what the due index says is due (retries, requeues, passes that died), plus, once per sweep interval, a
// sweep that lists each kind and passes over what no pass has seen (missed events). An idle tick between sweeps
// sends nothing to the API server and one DynamoDB request per kind, whatever the fleet's size; a sweep whose LIST
// is unchanged since a sweep that left nothing undone reads no checkpoint (one LIST per kind, O(1) DynamoDB).
import {
  claimSweep,
  forgetLegacyLease,
  getCheckpoints,
  listDueObjects,
  partitionKeyOf,
  recordSweptLists,
} from '#shared/checkpoint/index.ts';
import { listObjectMetadata, UnknownKindError } from '#shared/kube/index.ts';
import { computeListFingerprint } from '#shared/runtime/compute-list-fingerprint.ts';
import { computeTickDecision, tickReasons, type TickReason } from '#shared/runtime/compute-tick-decision.ts';
import type { PassRunner } from '#shared/runtime/run-pass.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { mapLimit } from '#shared/runtime/map-limit.ts';
import type { PassKey, PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export type TickReport = {
  /** Objects the sweep listed; 0 when this tick did not sweep. */
  readonly listed: number;
  /** Whether this tick swept (listed the kinds); at most one tick per sweep interval does. */
  readonly swept: boolean;
  /** Kinds whose LIST was unchanged since a sweep that left nothing undone: their checkpoints were not read. */
  readonly unchangedKinds: readonly string[];
  /** How many objects were found in each state (due index entries and, when sweeping, listed objects). */
  readonly reasons: Readonly<Partial<Record<TickReason, number>>>;
  readonly passes: readonly PassReport[];
  /** Due objects left for the next tick because the invocation was running out of time. */
  readonly deferred: number;
};

type Candidate = {
  readonly key: PassKey;
  readonly reason: TickReason;
  readonly force?: boolean;
  /** The lapsed lease is a lease row of the layout before one row per object: deleted after its pass. */
  readonly legacyLease?: boolean;
};

/**
 * One tick of a controller. A pass is only started while at least twice `stopBeforeTimeoutMs` remains, so every
 * started pass can record its checkpoint; the rest is deferred to the next tick (it stays in the due index).
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
  const now = deps.now();
  const reasons: Partial<Record<TickReason, number>> = {};
  const due = new Map<string, Candidate>();
  const count = (reason: TickReason) => (reasons[reason] = (reasons[reason] ?? 0) + 1);
  const add = (key: PassKey, reason: TickReason, force = false, legacyLease = false) => {
    const id = partitionKeyOf({ controller: reconciler.controller, ...key });
    if (!due.has(id))
      due.set(id, { key, reason, ...(force ? { force } : {}), ...(legacyLease ? { legacyLease } : {}) });
  };

  for (const kind of reconciler.kinds) {
    for (const entry of await listDueObjects(deps.store, reconciler.controller, kind.kind, now)) {
      const reason = entry.because === 'lapsedLease' ? tickReasons.leaseLapsed : tickReasons.retryDue;
      count(reason);
      add({ ...kind, namespace: entry.key.namespace, name: entry.key.name }, reason, false, entry.legacyLease === true);
    }
  }

  let listed = 0;
  const claim = await claimSweep(deps.store, reconciler.controller, now, deps.config.sweepIntervalMs);
  const swept = claim !== undefined;
  const sweptLists: Record<string, string> = { ...claim?.sweptLists };
  const unchangedKinds: string[] = [];
  if (claim) {
    for (const kind of reconciler.kinds) {
      let listedItems;
      try {
        // NOTE: metadata only, page by page: a sweep reads a few hundred bytes per object, never whole objects.
        listedItems = (await listObjectMetadata(deps.kube, kind)).items;
      } catch (err) {
        // NOTE: an optional kind the cluster does not serve (e.g. ExtensionConfig without the Runtime SDK CRD).
        if (err instanceof UnknownKindError) continue;
        throw err;
      }
      const items = listedItems.map((item) => ({
        key: { ...kind, namespace: item.namespace, name: item.name },
        generation: item.generation,
        uid: item.uid,
      }));
      listed += items.length;
      const fingerprint = computeListFingerprint(
        items.map(({ key, generation, uid }) => ({ namespace: key.namespace, name: key.name, uid, generation })),
      );
      // NOTE: the same objects at the same generations as after a sweep that left nothing undone: each is up to date
      // or in the due index (read above), so its checkpoint has nothing to add. The optional resync reads them all.
      if (deps.config.resyncAfterMs === undefined && claim.sweptLists[kind.kind] === fingerprint) {
        unchangedKinds.push(kind.kind);
        if (items.length > 0) reasons[tickReasons.upToDate] = (reasons[tickReasons.upToDate] ?? 0) + items.length;
        continue;
      }
      sweptLists[kind.kind] = fingerprint;
      const checkpoints = await getCheckpoints(
        deps.store,
        items.map(({ key }) => ({ controller: reconciler.controller, ...key })),
      );
      for (const { key, generation } of items) {
        const checkpoint = checkpoints.get(partitionKeyOf({ controller: reconciler.controller, ...key }));
        const decision = computeTickDecision(
          checkpoint,
          { generation },
          { now, resyncAfterMs: deps.config.resyncAfterMs },
        );
        count(decision.reason);
        if (decision.due) add(key, decision.reason, decision.force === true);
      }
    }
  }

  let deferred = 0;
  const reports = await mapLimit([...due.values()], deps.config.tickConcurrency, async (candidate) => {
    const { key, reason, force } = candidate;
    if (context.getRemainingTimeInMillis() < 2 * deps.config.stopBeforeTimeoutMs) {
      deferred++;
      return undefined;
    }
    const lapsed = reason === tickReasons.leaseLapsed;
    // NOTE: a pass that died may have applied part of its changes after recording nothing: run it even if the
    // checkpoint says the object is up to date.
    const report = await runPass(
      { key, trigger, ...(lapsed ? { force: true, lapsedLease: true } : force === true ? { force: true } : {}) },
      context,
    );
    // NOTE: nothing writes lease rows of the old layout any more; once its object's pass ran, the row can go.
    if (candidate.legacyLease === true) {
      await forgetLegacyLease(deps.store, { controller: reconciler.controller, ...key }, deps.now());
    }
    return report;
  });
  const passes = reports.filter((r): r is PassReport => r !== undefined);
  // NOTE: every pass started above recorded an outcome (up to date, or in the due index with its retry or lease); a
  // deferred one did not, so its LIST must not count as done.
  const changedLists = Object.keys(sweptLists).some((kind) => sweptLists[kind] !== claim?.sweptLists[kind]);
  if (claim && deferred === 0 && changedLists) await recordSweptLists(deps.store, reconciler.controller, sweptLists);
  deps.logger.info('tick finished', {
    controller: reconciler.controller,
    swept,
    listed,
    unchangedKinds,
    reasons,
    deferred,
  });
  return { listed, swept, unchangedKinds, reasons, passes, deferred };
}
