// The scale model: what a tick, an hourly sweep and a fleet-wide ClusterClass change cost at 1,000 to 100,000
// Clusters, and which limit binds first. Pure: fed by measured figures (the side-by-side run, `npm run bench`, the
// DynamoDB Local tick measurement) and by published service limits, each input labelled with its basis. Nothing here
// was run at 10,000 or 100,000 Clusters: every output is modelled.

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
  /** kube-apiserver: seats of the priority level the functions' requests land in. */
  readonly apiSeats: Input;
  /** The same with capi-serverless's identities in a priority level of their own. */
  readonly dedicatedApiSeats: Input;
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
    /** With a priority level of its own (`dedicatedApiSeats`): what binds then, and the time. */
    readonly dedicated: { readonly binding: ScaleRow['change']['binding']; readonly allConvergedSeconds: number };
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
  return sizes.map((n) => {
    const invocations = Math.ceil(n / inputs.fanOutBatch);
    const handedOff = invocations - 1;
    const concurrency = Math.min(invocations, inputs.lambdaConcurrency.value);
    const passesInFlight = concurrency * Math.min(inputs.passesPerInvocation, inputs.fanOutBatch);
    const pass = inputs.requestsPerClusterChange.value * inputs.requestSeconds.value;
    // NOTE: a pass has one request in flight at a time, so passes beyond the seats wait in the API server's queues.
    const limits = (seats: number) => ({
      lambda: passesInFlight / pass,
      apiSeats: seats / pass,
      dueIndexPartition:
        (inputs.dueShards * inputs.partitionWriteUnitsPerSecond.value) / inputs.dueIndexWritesPerPass.value,
      tableOnDemand: inputs.tableWriteUnitsPerSecond.value / inputs.writeUnitsPerPass.value,
    });
    const bindingOf = (l: ReturnType<typeof limits>) =>
      (Object.entries(l) as [keyof typeof l, number][]).reduce((x, y) => (y[1] < x[1] ? y : x));
    const passesPerSecond = limits(inputs.apiSeats.value);
    const binding = bindingOf(passesPerSecond);
    const dedicated = bindingOf(limits(inputs.dedicatedApiSeats.value));
    const upstreamSecondsPerCluster = inputs.upstreamRequestsPerClusterChange.value * inputs.requestSeconds.value;
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
        apiRequests: n * inputs.requestsPerClusterChange.value,
        passesInFlight,
        passSeconds: pass,
        passesPerSecond,
        binding: binding[0],
        allConvergedSeconds: converged(rate),
        dedicated: { binding: dedicated[0], allConvergedSeconds: converged(dedicated[1]) },
        peakApiRequestsPerSecond: rate * inputs.requestsPerClusterChange.value,
        peakWriteUnitsPerSecond: rate * inputs.writeUnitsPerPass.value,
        upstreamAllConvergedSeconds: (n * upstreamSecondsPerCluster) / inputs.upstreamWorkers.value,
      },
    };
  });
}
