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
  /**
   * B: one-time schedules (EventBridge Scheduler) the functions created for passes that asked to run again, less those
   * a later pass deleted before they fired (the pass succeeded first); each fires once and invokes its function
   * once. Absent: not counted by the run (the model then takes an upper bound).
   */
  readonly wakeUps?: number;
  /** B: passes that ran and asked to run again at a time (Requeue), counted by the run. */
  readonly requeues?: number;
  /** A: CPU-seconds the replaced controllers spent (the core manager's CPU, side A minus side B). */
  readonly replacedCpuSeconds: number;
};

/** One kind of pass: its mean billed duration on a whole core and its mean CPU time, ms. */
export type PassFigures = { readonly billedMs: number; readonly cpuMs: number };

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
    /** One-time schedules created per Cluster-hour while idle (absent: not counted). */
    readonly wakeUpsPerClusterHour?: number;
    /** A: the replaced controllers' CPU-seconds per idle hour and memory (core manager A minus B). */
    readonly replacedCpuSecondsPerHour: number;
    readonly replacedRssMiB: number;
  };
  /**
   * B: mean duration of one controller invocation, ms (every invocation in one process on the bench machine); `wakeUp`:
   * of an invocation a one-time schedule started (absent: not measured; a change invocation's is used).
   */
  readonly invocationMs: {
    readonly change: number;
    readonly create: number;
    readonly tick: number;
    readonly wakeUp?: number;
  };
  /**
   * B: one controller pass measured in the Lambda runtime emulator (the topology and addons bundles, one warm
   * environment each, on a whole core): billed ms (the invocation's duration, rounded up per invocation) and CPU ms, of
   * a pass that runs for a change, of a new Cluster's first pass, and of a skipped pass; the CPU of INIT and the first
   * invocation; the peak RSS. A memory size under one vCPU stretches the CPU time. Absent: not measured (the bench
   * machine's invocation means above are used).
   */
  readonly passMs?: {
    readonly change: PassFigures;
    readonly create: PassFigures;
    readonly skip: PassFigures;
    readonly coldCpuMs: number;
    readonly maxRssMiB: number;
    /** The controllers measured (the functions whose memory size prices the passes). */
    readonly functions: readonly string[];
    readonly source: string;
  };
  /**
   * B: a webhook call's billed duration, ms (measured: the mean, each call rounded up to the millisecond; else a
   * proxy), and, when measured, the CPU time one call uses (ms), which a memory size under one vCPU stretches.
   */
  readonly webhookCallMs: {
    readonly value: number;
    readonly basis: 'measured' | 'proxy';
    readonly cpuMs?: number;
    readonly source: string;
  };
  /**
   * B: the time one cold start adds to the bill, ms: INIT (runtime start to its first /next) plus what the first
   * invocation of an environment takes beyond a warm one, for the controller bundle (the largest, topology) and the
   * webhooks bundle.
   */
  readonly coldStartMs: {
    readonly controller: number;
    readonly webhooks: number;
    readonly source: string;
  };
  /**
   * B: the forwarder as deployed (its image's bundle and node flags): resident memory and idle CPU measured at each
   * count of watched objects (the model interpolates between the points, and extrapolates beyond them along the
   * nearest segment), and its CPU per watch event in a burst of Cluster spec changes.
   */
  readonly forwarder: {
    readonly source: string;
    readonly rss: readonly { readonly watchedObjects: number; readonly rssMiB: number }[];
    /** CPU-seconds per hour while nothing changes (watches open, the heartbeat Lease renewed every minute). */
    readonly idleCpu: readonly { readonly watchedObjects: number; readonly cpuSecondsPerHour: number }[];
    /**
     * CPU ms per entry put on the bus in a burst of Cluster spec changes, the highest of the measured runs: the watch
     * events coalesced into an entry are included, and Clusters are watched in full and fingerprinted (the costlier
     * path; metadata-only kinds cost less).
     */
    readonly cpuMsPerEntry: number;
  };
  /** B: DynamoDB request units of one pass (`npm run bench`: a forced pass and a skipped one). */
  readonly dynamoDb: {
    readonly source: string;
    readonly passRunReadUnits: number;
    /**
     * Not priced: this bench figure counts the layout before one row per object (a lease put and a two-item
     * transaction); the cost uses pass-write-units.ts, measured per request against DynamoDB Local.
     */
    readonly passRunWriteUnits: number;
    readonly passSkippedReadUnits: number;
    readonly tickReadUnits: number;
  };
};
