// The scale model: what a tick, an hourly sweep and a fleet-wide ClusterClass change cost at 1,000 to 100,000
// Clusters, and which limit binds first. Pure: fed by measured figures (the side-by-side run, `npm run bench`, the
// DynamoDB Local tick measurement) and by published service limits, each input labelled with its basis. Nothing here
// was run at 10,000 or 100,000 Clusters: every output is modelled.
// The API server's flow control is modelled as v1.34's (k8s.io/apiserver v0.34 util/flowcontrol): a request holds
// one seat, except a LIST, whose seats follow the bytes it loads (SizeBasedListCostEstimate, on by default in 1.34: a
// consistent LIST is served from the watch cache, ceil(min(objects of the kind × their size, 1 MB) / 100 kB) seats,
// at most the level's max seats, MAX(1, MIN(ceil(0.15 × seats), seats / handSize))); every function's identity is
// one flow (FlowSchemas distinguish by user), which queues at most handSize × queueLengthLimit requests: the rest
// are answered 429, which the kube client sends again after Retry-After (1 s).

/** A figure and where it comes from. */
export type Basis = 'measured' | 'published' | 'modelled';
export type Input = { readonly value: number; readonly basis: Basis; readonly source: string };

export type ScaleInputs = {
  /** capi-serverless: API requests the functions sent per converged Cluster in the fleet-wide ClusterClass change. */
  readonly requestsPerClusterChange: Input;
  /** Upstream: API requests its core manager sent per converged Cluster in the same change. */
  readonly upstreamRequestsPerClusterChange: Input;
  /**
   * Seconds one request takes, the same on both sides: a pass (or an upstream worker's reconcile) sends its requests
   * one after another, so its wall time is its requests × this.
   */
  readonly requestSeconds: Input;
  readonly upstreamWorkers: Input;
  /** Settings of capi-serverless (config.ts defaults). */
  readonly fanOutBatch: number;
  readonly passesPerInvocation: number;
  /** Partitions of the due index per controller and kind (shared/checkpoint/table.ts dueShardCount). */
  readonly dueShards: number;
  /** Lambda: concurrent executions of the account (default quota) that the functions may use. */
  readonly lambdaConcurrency: Input;
  /**
   * capi-serverless: label-selected LISTs one pass sends (measured), objects of each listed kind per Cluster and
   * their bytes in the watch cache (the LIST's seats follow them).
   */
  readonly listsPerPass: Input;
  readonly listedObjectsPerCluster: Input;
  readonly listedObjectBytes: Input;
  /** kube-apiserver: the priority level the functions' requests land in without the chart's flow control. */
  readonly sharedLevel: PriorityLevel;
  /** The chart's own priority level for capi-serverless (infra/chart/capi-serverless/files/flow-control.yaml). */
  readonly dedicatedLevel: PriorityLevel;
  /** When the kube client sends a 429'd request again (the API server's Retry-After). */
  readonly throttleRetrySeconds: Input;
  /**
   * Measured / modelled time for the fleet-wide change at the side-by-side run's size (no flow control there: the
   * bench's identities are exempt), per side: request times are multiplied by it (1: uncalibrated).
   */
  readonly calibration: { readonly b: Input; readonly a: Input };
  /** DynamoDB: write units per pass (lease put 1, checkpoint + lease release transaction 4). */
  readonly writeUnitsPerPass: Input;
  /** DynamoDB: writes to the due index per pass (the lease row enters and leaves it), spread over `dueShards`. */
  readonly dueIndexWritesPerPass: Input;
  /** DynamoDB: write units per second one partition (of the table or of an index) takes. */
  readonly partitionWriteUnitsPerSecond: Input;
  /** DynamoDB on-demand: write units per second a new table takes before it has scaled. */
  readonly tableWriteUnitsPerSecond: Input;
  /** A sweep's metadata LIST: objects per page, bytes per object in a page. */
  readonly sweepPageSize: number;
  readonly metadataBytesPerObject: Input;
  /**
   * Mapping a ClusterClass change: the topology function lists every Cluster in pages of `mappingPageSize` (whole
   * objects: the class is in the spec), fanning out each page's batches as it is read, and hands the rest of the
   * list to another invocation `mappingHandOffSeconds` before its timeout; seconds per page.
   */
  readonly mappingPageSize: number;
  readonly mappingPageSeconds: Input;
  readonly functionTimeoutSeconds: Input;
  readonly mappingHandOffSeconds: number;
  /** The tick's due-index Query over a table of N checkpoints with nothing due, ms (DynamoDB Local), by N. */
  readonly idleTickQueryMs: ReadonlyMap<number, Input>;
};

/** A PriorityLevelConfiguration's seats (its nominal share of the server's) and its queuing. */
export type PriorityLevel = {
  readonly name: string;
  readonly seats: Input;
  readonly handSize: number;
  readonly queueLengthLimit: number;
};

/** What one priority level makes of a fleet-wide change's passes. */
export type FlowControlRow = {
  /** Seats of one of the pass's LISTs, and seat-seconds of a whole pass. */
  readonly listSeats: number;
  readonly seatSecondsPerPass: number;
  /** Requests of the flow being served, queued (at most handSize × queueLengthLimit), and answered 429 per second. */
  readonly executing: number;
  readonly queued: number;
  readonly queueLimit: number;
  readonly throttledPerSecond: number;
};

export type ScaleRow = {
  readonly clusters: number;
  /** Between sweeps: DynamoDB requests (per kind) and API requests of one tick with nothing due. */
  readonly idleTick: { readonly dynamoDbRequests: number; readonly apiRequests: number; readonly queryMs?: Input };
  /** The hourly sweep of the Clusters kind: metadata pages, bytes listed, checkpoint reads when its LIST changed. */
  readonly sweep: { readonly apiRequests: number; readonly listedMiB: number; readonly batchGets: number };
  /** The fleet-wide ClusterClass change. */
  readonly change: {
    /**
     * The paged LIST of every Cluster that maps the change, and how many invocations read it one after another
     * (each hands the rest on before its timeout).
     */
    readonly mapping: { readonly pages: number; readonly seconds: number; readonly invocations: number };
    readonly invocations: number;
    readonly putEventsCalls: number;
    readonly apiRequests: number;
    readonly passesInFlight: number;
    readonly passSeconds: number;
    /** Passes per second each limit allows; the smallest binds. */
    readonly passesPerSecond: {
      readonly lambda: number;
      readonly apiSeats: number;
      readonly dueIndexPartition: number;
      readonly tableOnDemand: number;
    };
    readonly binding: 'lambda' | 'apiSeats' | 'dueIndexPartition' | 'tableOnDemand';
    readonly allConvergedSeconds: number;
    /** With a priority level of its own (`dedicatedLevel`): what binds then, and the time. */
    readonly dedicated: { readonly binding: ScaleRow['change']['binding']; readonly allConvergedSeconds: number };
    /** Flow control in the shared and in the dedicated priority level. */
    readonly flowControl: { readonly shared: FlowControlRow; readonly dedicated: FlowControlRow };
    readonly peakApiRequestsPerSecond: number;
    readonly peakWriteUnitsPerSecond: number;
    readonly upstreamAllConvergedSeconds: number;
  };
};

/**
 * The model at each fleet size.
 *
 * @example
 * computeScaleModel(inputs, [1_000, 10_000, 100_000]);
 */
export function computeScaleModel(inputs: ScaleInputs, sizes: readonly number[]): ScaleRow[] {
  const requestB = inputs.requestSeconds.value * inputs.calibration.b.value;
  const requestA = inputs.requestSeconds.value * inputs.calibration.a.value;
  return sizes.map((n) => {
    const invocations = Math.ceil(n / inputs.fanOutBatch);
    const handedOff = invocations - 1;
    const concurrency = Math.min(invocations, inputs.lambdaConcurrency.value);
    const passesInFlight = concurrency * Math.min(inputs.passesPerInvocation, inputs.fanOutBatch);
    const requests = inputs.requestsPerClusterChange.value;
    const pass = requests * requestB;
    const flow = (level: PriorityLevel) => computeFlowControl(inputs, level, n, passesInFlight, requestB);
    const [shared, dedicated] = [flow(inputs.sharedLevel), flow(inputs.dedicatedLevel)];
    // NOTE: a pass has one request in flight at a time; the seats a pass holds over its life are its seat-seconds.
    const limits = (f: FlowControlRow, level: PriorityLevel) => ({
      lambda: passesInFlight / pass,
      apiSeats: level.seats.value / f.seatSecondsPerPass,
      // NOTE: a settled pass writes nothing to the due index (0): that index's partitions then bind nothing.
      dueIndexPartition:
        inputs.dueIndexWritesPerPass.value === 0
          ? Number.POSITIVE_INFINITY
          : (inputs.dueShards * inputs.partitionWriteUnitsPerSecond.value) / inputs.dueIndexWritesPerPass.value,
      tableOnDemand: inputs.tableWriteUnitsPerSecond.value / inputs.writeUnitsPerPass.value,
    });
    const bindingOf = (l: ReturnType<typeof limits>) =>
      (Object.entries(l) as [keyof typeof l, number][]).reduce((x, y) => (y[1] < x[1] ? y : x));
    const passesPerSecond = limits(shared, inputs.sharedLevel);
    const binding = bindingOf(passesPerSecond);
    const dedicatedBinding = bindingOf(limits(dedicated, inputs.dedicatedLevel));
    const upstreamSecondsPerCluster = inputs.upstreamRequestsPerClusterChange.value * requestA;
    const rate = binding[1];
    const mappingPages = Math.ceil(n / inputs.mappingPageSize);
    const mappingSeconds = mappingPages * inputs.mappingPageSeconds.value;
    // NOTE: batches fan out as their page is read: the passes start after the first page, and the last Clusters
    // found wait only for their own pass; the slower of the list and the passes decides.
    const converged = (passesPerSecond: number) =>
      Math.max(inputs.mappingPageSeconds.value + n / passesPerSecond, mappingSeconds + pass);
    const queryMs = inputs.idleTickQueryMs.get(n);
    return {
      clusters: n,
      // NOTE: one Query per shard, and one of the partition rows written before sharding carry.
      idleTick: { dynamoDbRequests: inputs.dueShards + 1, apiRequests: 0, ...(queryMs ? { queryMs } : {}) },
      sweep: {
        apiRequests: Math.ceil(n / inputs.sweepPageSize),
        listedMiB: (n * inputs.metadataBytesPerObject.value) / 2 ** 20,
        batchGets: Math.ceil(n / 100),
      },
      change: {
        mapping: {
          pages: mappingPages,
          seconds: mappingSeconds,
          invocations: Math.max(
            1,
            Math.ceil(mappingSeconds / (inputs.functionTimeoutSeconds.value - inputs.mappingHandOffSeconds)),
          ),
        },
        invocations,
        putEventsCalls: Math.ceil(handedOff / 10),
        apiRequests: n * requests,
        passesInFlight,
        passSeconds: pass,
        passesPerSecond,
        binding: binding[0],
        allConvergedSeconds: converged(rate),
        dedicated: { binding: dedicatedBinding[0], allConvergedSeconds: converged(dedicatedBinding[1]) },
        flowControl: { shared, dedicated },
        peakApiRequestsPerSecond: rate * requests,
        peakWriteUnitsPerSecond: rate * inputs.writeUnitsPerPass.value,
        upstreamAllConvergedSeconds: (n * upstreamSecondsPerCluster) / inputs.upstreamWorkers.value,
      },
    };
  });
}

/** Bytes a LIST served from the watch cache is charged for at most (1 MB), and bytes per seat (100 kB). */
const cacheListMaxBytes = 1_000_000;
const bytesPerSeat = 100_000;

/**
 * The seats a priority level grants one request at most: MAX(1, MIN(ceil(0.15 × seats), floor(seats / handSize))),
 * and never more than 100 for a LIST.
 *
 * @example
 * computeMaxSeats({ name: 'global-default', seats: v(49), handSize: 6, queueLengthLimit: 50 }); // 8
 */
export function computeMaxSeats(level: PriorityLevel): number {
  const seats = level.seats.value;
  return Math.min(100, Math.max(1, Math.min(Math.ceil(seats * 0.15), Math.floor(seats / level.handSize))));
}

/**
 * Seats of a label-selected LIST served from the watch cache over `objects` objects of `bytes` each (1.34's
 * size-based estimate): the bytes it loads, at most 1 MB, per 100 kB; between 1 and the level's max seats.
 *
 * @example
 * computeListSeats(1_000, 4_000, 8); // 8 (10 by bytes, capped by the level)
 */
export function computeListSeats(objects: number, bytes: number, maxSeats: number): number {
  const seats = Math.ceil(Math.min(objects * bytes, cacheListMaxBytes) / bytesPerSeat);
  return Math.min(maxSeats, Math.max(1, seats));
}

/**
 * One flow (a function's identity) in a priority level during the fleet-wide change: every pass in flight has one
 * request outstanding; the level serves as many as its seats hold, queues up to handSize × queueLengthLimit of the
 * rest, and answers the others 429, each sent again after `throttleRetrySeconds`.
 */
function computeFlowControl(
  inputs: ScaleInputs,
  level: PriorityLevel,
  n: number,
  passesInFlight: number,
  requestSeconds: number,
): FlowControlRow {
  const lists = Math.min(inputs.listsPerPass.value, inputs.requestsPerClusterChange.value);
  const others = inputs.requestsPerClusterChange.value - lists;
  const listSeats = computeListSeats(
    n * inputs.listedObjectsPerCluster.value,
    inputs.listedObjectBytes.value,
    computeMaxSeats(level),
  );
  const seatSecondsPerPass = (others + lists * listSeats) * requestSeconds;
  const meanSeats = (others + lists * listSeats) / Math.max(1, others + lists);
  const executing = Math.min(passesInFlight, level.seats.value / meanSeats);
  const queueLimit = level.handSize * level.queueLengthLimit;
  const waiting = Math.max(0, passesInFlight - executing);
  const queued = Math.min(queueLimit, waiting);
  return {
    listSeats,
    seatSecondsPerPass,
    executing,
    queued,
    queueLimit,
    throttledPerSecond: (waiting - queued) / inputs.throttleRetrySeconds.value,
  };
}

/** A row of the side-by-side bench's request breakdown (count-requests.ts), the fields read here. */
export type BreakdownRow = {
  readonly component: string;
  readonly verb: string;
  readonly resource: string;
  readonly count: number;
};

/**
 * Whether a request of upstream's core manager is its topology controller's: not the ClusterResourceSet
 * controller's (its kinds, the ConfigMaps and Secrets it applies) and not an Event (sent by the recorder in the
 * background, never waited for by a worker).
 */
export function isTopologyRequest(row: BreakdownRow): boolean {
  if (row.resource.startsWith('addons.cluster.x-k8s.io/')) return false;
  return !['core/configmaps', 'core/secrets', 'core/events', 'events.k8s.io/events'].includes(row.resource);
}

/**
 * The calibration at the side-by-side run's size: measured / modelled time for the fleet-wide change, per side,
 * with the model run as the bench ran (no flow control: the bench's identities are in system:masters, which the
 * exempt priority level serves; `benchConcurrency` invocations of a controller at once, the local bus's limit).
 *
 * @example
 * computeCalibration(inputs, 100, { b: 13.7, a: 16.0 }, 16); // { b: 61, a: 103 } (ratios)
 */
export function computeCalibration(
  inputs: ScaleInputs,
  n: number,
  measuredSeconds: { readonly b: number; readonly a: number },
  benchConcurrency: number,
): { readonly b: number; readonly a: number } {
  const exempt: PriorityLevel = {
    name: 'exempt',
    seats: { value: Number.POSITIVE_INFINITY, basis: 'published', source: 'exempt' },
    handSize: 1,
    queueLengthLimit: Number.POSITIVE_INFINITY,
  };
  const one: Input = { value: 1, basis: 'modelled', source: 'uncalibrated' };
  const [row] = computeScaleModel(
    {
      ...inputs,
      sharedLevel: exempt,
      dedicatedLevel: exempt,
      lambdaConcurrency: { value: benchConcurrency, basis: 'measured', source: 'the local bus' },
      calibration: { b: one, a: one },
    },
    [n],
  );
  if (!row) throw new Error('no model row');
  return {
    b: measuredSeconds.b / row.change.allConvergedSeconds,
    a: measuredSeconds.a / row.change.upstreamAllConvergedSeconds,
  };
}
