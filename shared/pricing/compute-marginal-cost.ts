// The marginal monthly cost of running capi-serverless (B) instead of upstream's topology and ClusterResourceSet
// controllers and the Cluster API Operator (A), for a fleet size: what each side adds to a management cluster that
// stays either way. Pure: the measured profile, the fleet and the prices are arguments; every line says whether its
// quantity is measured (scaled from the side-by-side bench) or modelled (an assumption, named in its note).
import type { AwsPrices } from '#shared/pricing/aws-prices.ts';

/** The ways the functions reach the management cluster's API (docs/deploy.md, "A private management cluster"). */
export const networkPaths = ['public', 'vpc-private', 'vpc-nat', 'vpc-endpoints'] as const;
export type NetworkPath = (typeof networkPaths)[number];

/** Per-Cluster and per-change usage measured by `npm run bench:side` (see measured-profile.ts for the figures). */
export type MeasuredProfile = {
  /** Where the figures come from (file, date, fleet size). */
  readonly basis: string;
  /** B: event invocations per Cluster per idle hour (status updates and the like the forwarder forwards). */
  readonly idleInvocationsPerClusterHour: number;
  /** B: event invocations per converged change of one Cluster. */
  readonly invocationsPerChange: number;
  /** B: forwarder entries put on the bus per converged change of one Cluster. */
  readonly eventsPerChange: number;
  /** B: forwarder entries per Cluster per idle hour. */
  readonly idleEventsPerClusterHour: number;
  /** B: passes that ran (lease, reconcile, checkpoint) and that were skipped (checkpoint read only), per change. */
  readonly passesRunPerChange: number;
  readonly passesSkippedPerChange: number;
  /**
   * B: mean duration of one event invocation (an object change or a fanned-out batch) over the change phases, ms
   * (measured locally on the bench machine, every invocation in one process, not on Lambda).
   */
  readonly invocationMs: number;
  /** B: mean duration of one tick invocation, ms (measured the same way). */
  readonly tickMs: number;
  /** B: API server requests of the functions per converged change (for the network path's data). */
  readonly functionRequestsPerChange: number;
  /** B: the forwarder's resident memory with the bench fleet, MiB, and per watched object (measured, 10,002 objects). */
  readonly forwarderRssMiB: number;
  readonly forwarderRssMiBPerObject: number;
  readonly forwarderCpuSecondsPerHour: number;
  /** A: the core manager's resident memory with its topology and ClusterResourceSet controllers minus without, MiB. */
  readonly replacedRssMiB: number;
  /** A: the same for CPU-seconds per idle hour. */
  readonly replacedCpuSecondsPerHour: number;
  /** A: CPU-seconds the replaced controllers spend per converged change (core manager A minus B, per Cluster). */
  readonly replacedCpuSecondsPerChange: number;
};

/** The modelled assumptions, in one place with their reasons (see docs/cost.md). */
export const costAssumptions = {
  functionMemoryGb: 0.5,
  /** Ticks: 3 functions every 5 minutes. */
  tickInvocationsPerHour: 36,
  /**
   * Per tick invocation (eventually consistent, 0.5 RRU each): the three functions' reads of one round of ticks,
   * averaged — one due-index Query per kind (9 for Clusters: 8 shards and the partition written before sharding; 10
   * kinds in all) and each function's sweep-row GetItem: 21 reads for 3 invocations.
   */
  tickReadUnits: (21 / 3) * 0.5,
  /** A pass that runs: checkpoint read (1 RRU), lease put (1 WRU), checkpoint + lease release transaction (4 WRU). */
  passReadUnits: 1,
  passWriteUnits: 5,
  /** CloudWatch Logs bytes per invocation: START/END/REPORT lines, a pass or tick line, one EMF metrics line. */
  logBytesPerInvocation: 1_500,
  /** INIT: a cold start per tick of each function (worst case: nothing else keeps it warm), 0.3 s billed each. */
  coldStartsPerHour: 36,
  initSeconds: 0.3,
  /** Watched objects per Cluster: the Cluster, its kubeconfig and CA Secrets, a few ConfigMaps/templates. */
  watchedObjectsPerCluster: 8,
  /** Bytes on the wire per API request (TLS, headers, a small JSON body), for NAT / endpoint data charges. */
  bytesPerApiRequest: 6_000,
  /** Node capacity: a t3.medium (2 vCPU, 4 GiB) priced half by CPU, half by memory. */
  nodeVcpus: 2,
  nodeGib: 4,
  /** The forwarder's Deployment requests (functions/forwarder/manifests/deployment.yaml). */
  forwarderRequest: { cpu: 0.02, memoryMiB: 64 },
  /** The Cluster API Operator's Deployment requests (its config/manager/manager.yaml, v0.29.0). */
  operatorRequest: { cpu: 0.1, memoryMiB: 100 },
  /** A: memory the replaced controllers' caches grow by per Cluster (ClusterClass templates, topology objects). */
  replacedRssKiBPerCluster: 25,
  /** VPC variants: two availability zones; interface endpoints for Secrets Manager and X-Ray. */
  availabilityZones: 2,
  interfaceEndpoints: 2,
  /** Secrets Manager: the kubeconfig and the webhook token (the private variant keeps the token only). */
  secrets: 2,
  alarms: 6,
} as const;

export type FleetInputs = {
  readonly clusters: number;
  /** User changes per Cluster per month (each one converged change). */
  readonly changesPerClusterMonth: number;
  readonly network: NetworkPath;
};

export type MarginalLine = {
  readonly side: 'B' | 'A';
  readonly item: string;
  readonly usd: number;
  readonly basis: 'measured' | 'modelled';
  readonly note: string;
};

export type MarginalCost = {
  readonly lines: readonly MarginalLine[];
  readonly totalB: number;
  readonly totalA: number;
};

/**
 * The monthly marginal cost of B and of A for a fleet.
 *
 * @example
 * computeMarginalCost(measuredProfile, { clusters: 1000, changesPerClusterMonth: 10, network: 'public' }, awsPrices);
 */
export function computeMarginalCost(profile: MeasuredProfile, fleet: FleetInputs, prices: AwsPrices): MarginalCost {
  const a = costAssumptions;
  const h = prices.hoursPerMonth;
  const n = fleet.clusters;
  const changes = n * fleet.changesPerClusterMonth;
  const perVcpuHour = prices.ec2T3MediumPerHour / 2 / a.nodeVcpus;
  const perGibHour = prices.ec2T3MediumPerHour / 2 / a.nodeGib;
  const node = (vcpu: number, mib: number) => (vcpu * perVcpuHour + (mib / 1024) * perGibHour) * h;
  const million = (count: number, price: number) => (count / 1_000_000) * price;

  const eventInvocations = n * profile.idleInvocationsPerClusterHour * h + changes * profile.invocationsPerChange;
  const tickInvocations = a.tickInvocationsPerHour * h;
  const invocations = eventInvocations + tickInvocations;
  const events = n * profile.idleEventsPerClusterHour * h + changes * profile.eventsPerChange;
  const gbSeconds =
    (eventInvocations * profile.invocationMs + tickInvocations * profile.tickMs) / 1000 +
    a.coldStartsPerHour * h * a.initSeconds;
  const readUnits =
    tickInvocations * a.tickReadUnits +
    n * profile.idleInvocationsPerClusterHour * h * a.passReadUnits +
    changes * (profile.passesRunPerChange + profile.passesSkippedPerChange) * a.passReadUnits;
  const writeUnits = changes * profile.passesRunPerChange * a.passWriteUnits;
  const privatePath = fleet.network === 'vpc-private';
  const watched = n * a.watchedObjectsPerCluster;
  const forwarderMiB = Math.max(
    a.forwarderRequest.memoryMiB,
    profile.forwarderRssMiB + watched * profile.forwarderRssMiBPerObject,
  );
  const forwarderCpu = Math.max(a.forwarderRequest.cpu, profile.forwarderCpuSecondsPerHour / 3600);
  const apiGb = ((changes * profile.functionRequestsPerChange + tickInvocations) * a.bytesPerApiRequest) / 1e9;

  const network: Record<NetworkPath, { usd: number; note: string }> = {
    public: { usd: 0, note: 'public (or CIDR-allowed) endpoint: no network charge' },
    'vpc-private': {
      usd: 0,
      note: 'VPC-attached, no egress: DynamoDB gateway endpoint (free), EKS token signed locally',
    },
    'vpc-nat': {
      usd: a.availabilityZones * prices.natGatewayPerHour * h + apiGb * prices.natGatewayPerGb,
      note: `${a.availabilityZones} NAT gateways always on + data processed (${apiGb.toFixed(2)} GB)`,
    },
    'vpc-endpoints': {
      usd: a.interfaceEndpoints * a.availabilityZones * prices.interfaceEndpointPerAzHour * h,
      note: `${a.interfaceEndpoints} interface endpoints (Secrets Manager, X-Ray) × ${a.availabilityZones} zones, always on`,
    },
  };
  const lines: MarginalLine[] = [
    {
      side: 'B',
      item: 'Lambda requests',
      usd: million(invocations, prices.lambdaPerMillionRequests),
      basis: 'measured',
      note: `${Math.round(invocations).toLocaleString('en-US')} invocations (ticks ${tickInvocations}, events scaled from the bench)`,
    },
    {
      side: 'B',
      item: 'Lambda duration (arm64, incl. INIT)',
      usd: gbSeconds * a.functionMemoryGb * prices.lambdaArmPerGbSecond,
      basis: 'measured',
      note: `${profile.invocationMs.toFixed(0)} ms per event invocation, ${profile.tickMs.toFixed(0)} ms per tick (bench machine) × ${a.functionMemoryGb} GB; INIT modelled: ${a.coldStartsPerHour} cold starts/h × ${a.initSeconds} s`,
    },
    {
      side: 'B',
      item: 'EventBridge Scheduler',
      usd: million(tickInvocations, prices.schedulerPerMillionInvocations),
      basis: 'modelled',
      note: '3 schedules every 5 minutes (free tier not applied)',
    },
    {
      side: 'B',
      item: 'EventBridge events',
      usd: million(events, prices.eventBridgePerMillionEvents),
      basis: 'measured',
      note: `${Math.round(events).toLocaleString('en-US')} forwarder entries`,
    },
    {
      side: 'B',
      item: 'DynamoDB on-demand',
      usd:
        million(readUnits, prices.dynamoDbPerMillionReadUnits) +
        million(writeUnits, prices.dynamoDbPerMillionWriteUnits),
      basis: 'measured',
      note: `passes per change measured; units per pass modelled (${a.passReadUnits} RRU, ${a.passWriteUnits} WRU)`,
    },
    {
      side: 'B',
      item: 'CloudWatch Logs',
      usd: ((invocations * a.logBytesPerInvocation) / 1e9) * prices.cloudWatchLogsPerGbIngested,
      basis: 'modelled',
      note: `${a.logBytesPerInvocation} bytes per invocation ingested`,
    },
    {
      side: 'B',
      item: 'X-Ray traces',
      usd: privatePath ? 0 : million(invocations, prices.xrayPerMillionTraces),
      basis: 'modelled',
      note: privatePath ? 'tracing off in the private variant' : 'one trace per invocation (free tier not applied)',
    },
    {
      side: 'B',
      item: 'CloudWatch alarms, Secrets Manager',
      usd:
        a.alarms * prices.cloudWatchAlarmPerMonth + (privatePath ? 1 : a.secrets) * prices.secretsManagerPerSecretMonth,
      basis: 'modelled',
      note: `${a.alarms} alarms; ${privatePath ? 1 : a.secrets} secrets`,
    },
    {
      side: 'B',
      item: "forwarder pod's node share",
      usd: node(forwarderCpu, forwarderMiB),
      basis: 'measured',
      note: `max(request, measured): ${forwarderCpu.toFixed(3)} vCPU, ${forwarderMiB.toFixed(0)} MiB for ${watched.toLocaleString('en-US')} watched objects`,
    },
    {
      side: 'B',
      item: `network path (${fleet.network})`,
      usd: network[fleet.network].usd,
      basis: 'modelled',
      note: network[fleet.network].note,
    },
    {
      side: 'A',
      item: "replaced controllers' share of the core manager",
      usd: node(
        profile.replacedCpuSecondsPerHour / 3600 + (changes * profile.replacedCpuSecondsPerChange) / (h * 3600),
        Math.max(0, profile.replacedRssMiB) + (n * a.replacedRssKiBPerCluster) / 1024,
      ),
      basis: 'measured',
      note: `${profile.replacedRssMiB.toFixed(0)} MiB measured + ${a.replacedRssKiBPerCluster} KiB per Cluster modelled; CPU measured per idle hour and per change`,
    },
    {
      side: 'A',
      item: 'Cluster API Operator pod',
      usd: node(a.operatorRequest.cpu, a.operatorRequest.memoryMiB),
      basis: 'modelled',
      note: `its requests: ${a.operatorRequest.cpu} vCPU, ${a.operatorRequest.memoryMiB} MiB`,
    },
  ];
  const total = (side: 'A' | 'B') => lines.filter((l) => l.side === side).reduce((s, l) => s + l.usd, 0);
  return { lines, totalB: total('B'), totalA: total('A') };
}
