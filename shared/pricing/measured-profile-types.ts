// The shape of the measured usage the cost model scales: per change type (what one converged change of one Cluster
// costs B and saves A), per idle Cluster-hour, and the fixed per-process figures. Each figure says where it comes from.

/** The change types the side-by-side bench measures, keyed as `--mix` names them. */
export const changeTypes = ['variable', 'scale', 'upgrade', 'crs', 'class', 'create'] as const;
export type ChangeType = (typeof changeTypes)[number];

/** What one converged change of one Cluster cost, measured in one phase of a side-by-side run. */
export type ChangeFigures = {
  /** The result file and phase, and how many Cluster-changes the phase converged. */
  readonly source: string;
  readonly clusterChanges: number;
  /** B: controller invocations (object-change events and fanned-out batches). */
  readonly eventInvocations: number;
  readonly passesRun: number;
  readonly passesSkipped: number;
  readonly passErrors: number;
  /** B: entries the forwarder put on the bus. */
  readonly forwarderEvents: number;
  /** B: batches the functions fanned out on the bus (PutEvents entries). */
  readonly fanOutEntries: number;
  /** B: admission calls of the webhooks function. */
  readonly webhookCalls: number;
  /** A: CPU-seconds the replaced controllers spent (the core manager's CPU, side A minus side B). */
  readonly replacedCpuSeconds: number;
};

export type MeasuredProfile = {
  /** The run the figures come from (file, date, machine, fleet size). */
  readonly basis: string;
  /** Per change type: the measured figures, or 'not measured' (then the model prices nothing for it). */
  readonly changes: Readonly<Record<ChangeType, ChangeFigures | 'not measured'>>;
  /** How figures not recorded per phase were split between phases (said once, printed with the profile). */
  readonly splits: readonly string[];
  readonly idle: {
    readonly source: string;
    readonly eventInvocationsPerClusterHour: number;
    readonly forwarderEventsPerClusterHour: number;
    readonly webhookCallsPerClusterHour: number;
    /** A: the replaced controllers' CPU-seconds per idle hour and memory (core manager A minus B). */
    readonly replacedCpuSecondsPerHour: number;
    readonly replacedRssMiB: number;
  };
  /** B: mean duration of one controller invocation, ms (every invocation in one process on the bench machine). */
  readonly invocationMs: { readonly change: number; readonly create: number; readonly tick: number };
  /** B: a webhook call's duration, ms, and the module load time (INIT) of the largest bundle, ms. */
  readonly webhookCallMs: { readonly value: number; readonly source: string };
  readonly moduleLoadMs: { readonly value: number; readonly source: string };
  /** B: the forwarder's resident memory and CPU (side-by-side idle window; 10,102 watched objects in `npm run bench`). */
  readonly forwarder: {
    readonly source: string;
    readonly rssMiB: number;
    readonly rssMiBAt10kObjects: number;
    readonly cpuSecondsPerHour: number;
  };
  /** B: DynamoDB request units of one pass (`npm run bench`: a forced pass and a skipped one). */
  readonly dynamoDb: {
    readonly source: string;
    readonly passRunReadUnits: number;
    readonly passRunWriteUnits: number;
    readonly passSkippedReadUnits: number;
    readonly tickReadUnits: number;
  };
};
