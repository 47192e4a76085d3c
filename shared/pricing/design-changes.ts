// The design changes issue 32 names, each as a change to the cost model's inputs, so their savings are modelled by
// the same function that prices the deployed stack: B's total with the change against B's total without it, at a
// fleet size. None of them is deployed: they say what each line keeping B above A would cost after the change. (One
// alarm, no Secrets Manager and X-Ray off by default are deployed since 2026-11-27 and priced from the template.)
import { computeMarginalCost, type CostInputs } from '#shared/pricing/compute-marginal-cost.ts';
import { fleetWideChanges } from '#shared/pricing/compute-monthly-activity.ts';
import type { ChangeFigures, MeasuredProfile } from '#shared/pricing/measured-profile-types.ts';

export type DesignChange = {
  readonly name: string;
  /** What would change in the stack or the code, and the assumption the modelled saving rests on. */
  readonly how: string;
  readonly apply: (inputs: CostInputs) => CostInputs;
};

const mapChanges = (
  profile: MeasuredProfile,
  f: (figures: ChangeFigures, type: string) => ChangeFigures,
): MeasuredProfile => ({
  ...profile,
  changes: Object.fromEntries(
    Object.entries(profile.changes).map(([type, figures]) => [
      type,
      figures === 'not measured' ? figures : f(figures, type),
    ]),
  ) as MeasuredProfile['changes'],
});

export const designChanges: readonly DesignChange[] = [
  {
    name: 'forwarder at 48 MiB',
    how: 'metadata-only watches, Secrets and ConfigMaps narrowed to what a ClusterResourceSet can reference: 48 MiB RSS with 10,000 watched objects, its memory request lowered to 48Mi',
    apply: (i) => ({
      ...i,
      forwarderRequests: { ...i.forwarderRequests, memoryMiB: 48 },
      profile: {
        ...i.profile,
        forwarder: { ...i.profile.forwarder, rss: [{ watchedObjects: 10_000, rssMiB: 48 }] },
      },
    }),
  },
  {
    name: 'batched event bursts',
    how: "a per-Cluster change's burst of object events becomes one invocation per pass that runs (the skipped passes' invocations and forwarder entries go); fleet-wide changes unchanged",
    apply: (i) => ({
      ...i,
      profile: mapChanges(i.profile, (f, type) => {
        if (fleetWideChanges.has(type as never)) return f;
        const invocations = Math.max(1, f.passesRun);
        return { ...f, eventInvocations: invocations, passesSkipped: 0, forwarderEvents: invocations };
      }),
    }),
  },
];

export type DesignSaving = { readonly name: string; readonly how: string; readonly savedB: number };

export type DesignOutcome = {
  readonly savings: readonly DesignSaving[];
  /** B with every change applied, and A. */
  readonly totalB: number;
  readonly totalA: number;
};

/**
 * Each change's modelled saving on B alone, and B with all of them.
 *
 * @example
 * computeDesignOutcome(inputs).savings.map((s) => `${s.name}: $${s.savedB.toFixed(2)}`);
 */
export function computeDesignOutcome(inputs: CostInputs): DesignOutcome {
  const base = computeMarginalCost(inputs);
  const savings = designChanges.map((c) => ({
    name: c.name,
    how: c.how,
    savedB: base.totalB - computeMarginalCost(c.apply(inputs)).totalB,
  }));
  const all = computeMarginalCost(designChanges.reduce((i, c) => c.apply(i), inputs));
  return { savings, totalB: all.totalB, totalA: all.totalA };
}
