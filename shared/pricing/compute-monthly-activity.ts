// What a fleet does in a month under a change mix: the measured per-change figures times how many changes of each
// type the mix makes, plus the idle hours. Pure: the profile, the fleet and the mix are arguments.
import {
  changeTypes,
  type ChangeFigures,
  type ChangeType,
  type MeasuredProfile,
} from '#shared/pricing/measured-profile-types.ts';

/**
 * Changes per Cluster per month by type. A fleet-wide change (`class`, `crs`) counts once per Cluster it reaches:
 * `class=2` is two ClusterClass changes a month, each reaching every Cluster. `create=0.1` replaces a tenth of the
 * fleet a month.
 */
export type ChangeMix = Readonly<Record<ChangeType, number>>;

/** The default mix (docs/cost.md): a platform team's quiet month with one upgrade of every Cluster. */
export const defaultChangeMix: ChangeMix = {
  variable: 1,
  scale: 2,
  upgrade: 1,
  crs: 1,
  class: 2,
  create: 0.1,
};

/** Fleet-wide change types: one change reaches every Cluster at once (one burst, fanned out in batches). */
export const fleetWideChanges: ReadonlySet<ChangeType> = new Set(['crs', 'class']);

export type MonthlyActivity = {
  /** Cluster-changes a month per type, and the types the profile has no figures for (priced at nothing). */
  readonly clusterChanges: Readonly<Record<ChangeType, number>>;
  readonly notMeasured: readonly ChangeType[];
  /** B: controller invocations for changes (object-change events, fanned-out batches) and their summed ms. */
  readonly eventInvocations: number;
  readonly eventMs: number;
  /**
   * B: the passes those invocations ran, by kind: a change's passes that ran (beyond the ones one-time schedules woke,
   * which are invocations of their own), a new Cluster's (creation), and skipped ones; an idle invocation counts as a
   * change's pass. One pass per invocation, as measured (an upgrade: 31.5 invocations, 14.5 + 17.5 passes on events).
   */
  readonly eventPasses: { readonly change: number; readonly create: number; readonly skip: number };
  /** B: bursts that start from no warm environment at worst (a per-Cluster change; a fleet change and each batch). */
  readonly changeBursts: number;
  readonly passesRun: number;
  readonly passesSkipped: number;
  readonly passErrors: number;
  /**
   * One-time schedules a month (each fires once: one Scheduler and one Lambda invocation), as counted by the bench
   * per change type and idle hour. For a type the bench did not count them for, an upper bound: its measured pass
   * errors plus every pass that ran beyond one per converged change (an upgrade's topology pass requeues while the
   * control plane and workers roll); then `wakeUpsBasis` is `modelled`.
   */
  readonly wakeUps: number;
  readonly wakeUpsBasis: 'measured' | 'modelled';
  /**
   * Passes a month that asked to run again (Requeue or Error): each puts its row in the due index, whether a one-time
   * schedule, an event or a tick runs it next. Counted by the bench per change type (`requeues` + `passErrors`); where
   * a type has no `requeues`, its wake-ups (each was a pass that asked).
   */
  readonly requeuedPasses: number;
  readonly forwarderEvents: number;
  readonly fanOutEntries: number;
  readonly webhookCalls: number;
  /** A: CPU-seconds the replaced controllers spend on the changes and while idle. */
  readonly replacedCpuSeconds: number;
};

/**
 * @example
 * computeMonthlyActivity(measuredProfile, 1_000, defaultChangeMix, 730).eventInvocations;
 */
export function computeMonthlyActivity(
  profile: MeasuredProfile,
  clusters: number,
  mix: ChangeMix,
  hoursPerMonth: number,
): MonthlyActivity {
  const measured = changeTypes
    .map((type) => [type, profile.changes[type]] as const)
    .filter((e): e is readonly [ChangeType, ChangeFigures] => e[1] !== 'not measured');
  const count = (type: ChangeType) => clusters * mix[type];
  const over = (f: (figures: ChangeFigures, type: ChangeType) => number) =>
    measured.reduce((sum, [type, figures]) => sum + count(type) * f(figures, type), 0);
  const idleHours = clusters * hoursPerMonth;
  return {
    clusterChanges: Object.fromEntries(changeTypes.map((t) => [t, count(t)])) as Record<ChangeType, number>,
    notMeasured: changeTypes.filter((t) => profile.changes[t] === 'not measured' && mix[t] > 0),
    eventInvocations: over((f) => f.eventInvocations) + idleHours * profile.idle.eventInvocationsPerClusterHour,
    eventMs:
      over(
        (f, t) => f.eventInvocations * (t === 'create' ? profile.invocationMs.create : profile.invocationMs.change),
      ) +
      idleHours * profile.idle.eventInvocationsPerClusterHour * profile.invocationMs.change,
    eventPasses: {
      change:
        over((f, t) => (t === 'create' ? 0 : Math.max(0, f.passesRun - (f.wakeUps ?? 0)))) +
        idleHours * profile.idle.eventInvocationsPerClusterHour,
      create: over((f, t) => (t === 'create' ? Math.max(0, f.passesRun - (f.wakeUps ?? 0)) : 0)),
      skip: over((f) => f.passesSkipped),
    },
    changeBursts: measured.reduce(
      (sum, [type, f]) =>
        sum + (fleetWideChanges.has(type) ? mix[type] * (1 + clusters * f.fanOutEntries) : count(type)),
      0,
    ),
    passesRun: over((f) => f.passesRun),
    passesSkipped: over((f) => f.passesSkipped),
    passErrors: over((f) => f.passErrors),
    wakeUps:
      over((f) => f.wakeUps ?? f.passErrors + Math.max(0, f.passesRun - f.passErrors - 1)) +
      idleHours * (profile.idle.wakeUpsPerClusterHour ?? 0),
    wakeUpsBasis:
      measured.every(([type, f]) => mix[type] === 0 || f.wakeUps !== undefined) &&
      profile.idle.wakeUpsPerClusterHour !== undefined
        ? 'measured'
        : 'modelled',
    requeuedPasses:
      over((f) =>
        f.requeues === undefined
          ? (f.wakeUps ?? f.passErrors + Math.max(0, f.passesRun - f.passErrors - 1))
          : f.requeues + f.passErrors,
      ) +
      idleHours * (profile.idle.wakeUpsPerClusterHour ?? 0),
    forwarderEvents: over((f) => f.forwarderEvents) + idleHours * profile.idle.forwarderEventsPerClusterHour,
    fanOutEntries: over((f) => f.fanOutEntries),
    webhookCalls: over((f) => f.webhookCalls) + idleHours * profile.idle.webhookCallsPerClusterHour,
    replacedCpuSeconds: over((f) => f.replacedCpuSeconds) + hoursPerMonth * profile.idle.replacedCpuSecondsPerHour,
  };
}
