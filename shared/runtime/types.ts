// The contract between the serverless runtime and the reconcile passes: a controller hands the runtime a
// Reconciler, the runtime decides when to call it (events, ticks), guards it with a lease and records its outcome.
import type { Dependency } from '#shared/deadline/index.ts';
import type { Logger } from '@aws-lambda-powertools/logger';
import type {
  Checkpoint,
  CheckpointStore,
  Controller,
  NoChange,
  OwnedChange,
  OwnedGenerations,
  OwnedMetadata,
  RerunRequest,
} from '#shared/checkpoint/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import type { RuntimeConfig } from '#shared/runtime/config.ts';

/** A kind the runtime lists (tick) or routes (events). */
export type KindRef = { readonly apiVersion: string; readonly kind: string };

/** The object one pass reconciles. `namespace` is '' for cluster-scoped objects. */
export type PassKey = KindRef & { readonly namespace: string; readonly name: string };

/**
 * An object to reconcile after a change of another kind. `force` runs the pass even when the object's own facts
 * look unchanged: the change is in an input the facts leave out (e.g. a template's spec, which would cost a GET per
 * template on every skip decision).
 */
export type MappedKey = PassKey & {
  readonly force?: boolean | undefined;
  /**
   * Run the pass before its due time when the last one requeued waiting for its own objects
   * (`wakeOnOwnedChange`): the change is in one of them (a control plane's or a MachineDeployment's status).
   */
  readonly wake?: boolean | undefined;
  /**
   * The change is of an object the pass owns, at this generation: the pass runs at once when that is later than the
   * generation its last pass left the object at (someone else's spec write, e.g. a user's edit of a managed field).
   */
  readonly ownedChange?: OwnedChange | undefined;
};

/** What an event says about the object that changed (see `ObjectChange` in events.ts). */
export type ChangedObject = KindRef & {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string | undefined;
  readonly generation?: number | undefined;
  readonly resourceVersion?: string | undefined;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC';
  /** For an object a topology owns: its Cluster's name (the `cluster.x-k8s.io/cluster-name` label). */
  readonly cluster?: string | undefined;
  /**
   * For an object a topology owns: the hash of its labels, annotations and managed-fields mark (computeMetadataHash);
   * for a Cluster, of its managed-fields mark (computeClusterMetadataHash).
   */
  readonly metadataHash?: string | undefined;
};

/** Everything a pass may use; built once per cold start (kube client per invocation is the caller's choice). */
export type RuntimeDeps = {
  readonly kube: KubeClient;
  readonly store: CheckpointStore;
  readonly logger: Logger;
  readonly config: RuntimeConfig;
  /** The clock (epoch ms); tests pass a fixed or stepped one. */
  readonly now: () => number;
  /** A number in [0, 1) for backoff jitter. */
  readonly jitter: () => number;
  /**
   * Reads the passes of one invocation share (objects no pass writes, e.g. a ClusterClass's templates); the handler
   * makes a new one for each invocation. Without it every pass reads for itself.
   */
  readonly invocationReads?: Map<string, Promise<KubeObject | undefined>>;
};

/** What decides whether a pass is due, read with at most two GETs (the skip path's budget). */
export type ObjectFacts = {
  readonly uid: string;
  readonly generation: number;
  readonly resourceVersion: string;
  /** Hash of every input of the pass that can change without the object's generation changing. */
  readonly inputHash: string;
  /** The objects read to compute the facts, for the pass to reuse instead of reading them again (never stored). */
  readonly objects?: readonly KubeObject[];
};

/** Given to `reconcile`: who runs it, what the last pass recorded, and when to stop. */
export type PassContext = {
  /** Unique per pass (Lambda request id + key); the lease holder and the checkpoint's `lastPassId`. */
  readonly passId: string;
  readonly facts: ObjectFacts;
  /** The checkpoint of the previous pass, e.g. for its `noChange` record. */
  readonly previous: Checkpoint | undefined;
  /**
   * The pass was forced (drift correction by a tick or sweep, a deleted owned object) or follows a pass that died
   * holding the lease: a reconciler that trusts what earlier passes recorded should look everything up again.
   */
  readonly forced?: boolean;
  /** Aborted shortly before the Lambda timeout; stop between steps and return `Requeue`. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
};

export const passResults = ['Success', 'Requeue', 'Error'] as const;
export type PassResult = (typeof passResults)[number];

/** How a pass ended, as the reconciler reports it. */
export type PassOutcome = {
  readonly result: PassResult;
  /** For `Requeue`: when to look again (default `config.requeueAfterMs`). Ignored for other results. */
  readonly requeueAfterMs?: number;
  /** Human-readable list of what the pass changed, e.g. `['applied MachineDeployment default/md-a']`. */
  readonly changed: readonly string[];
  /** For `Error`: what went wrong (kept in the checkpoint until a pass succeeds). */
  readonly error?: string;
  /** The object's resourceVersion after the pass's own writes, so they do not look like a change next time. */
  readonly resourceVersion?: string;
  /** Proof that the applied state matched the desired state, to skip the next dry run. */
  readonly noChange?: NoChange;
  /** For `Requeue`: it waits for a change of the objects the pass owns; an event about one runs the pass at once. */
  readonly wakeOnOwnedChange?: boolean;
  /**
   * For `Success` and `Requeue`: owned objects (`Kind namespace/name`) whose next change (an event naming it in
   * `ownedChanges`) runs the pass at once, even at the generation it left them at: it waits for another controller
   * to act on them (metadata only, e.g. an owner reference).
   */
  readonly wakeOnChangeOf?: readonly string[];
  /**
   * For `Success` and `Requeue`: the generation the pass left each object it owns at (`Kind namespace/name`), so that
   * a later spec write by someone else is told from the pass's own (see `MappedKey.ownedChange`).
   */
  readonly ownedGenerations?: OwnedGenerations;
  /** With `ownedGenerations`: the hash of each object's labels and annotations as the pass left it. */
  readonly ownedMetadata?: OwnedMetadata;
  /** For `Success`: the resourceVersion each of the pass's own writes left an object at (`Checkpoint.ownWrites`). */
  readonly ownWrites?: Readonly<Record<string, string>>;
};

/** How a paged mapping hands over its keys and when it stops (see `Reconciler.mapChangeInPages`). */
export type MapPaging = {
  /** The `continue` of an earlier invocation's mapping of the same change: go on from there. */
  readonly from?: string | undefined;
  readonly pageSize: number;
  readonly onKeys: (keys: readonly MappedKey[]) => Promise<void>;
  readonly shouldStop: () => boolean;
};

/** The end of a paged mapping: `continue` when it stopped before the last page. */
export type MapPagesResult = { readonly continue?: string };

/**
 * One controller's reconcile pass, as the runtime sees it. The runtime reads the checkpoint, calls `getFacts`,
 * skips when nothing is due, takes the lease, calls `reconcile`, records the outcome and releases the lease.
 */
export type Reconciler = {
  readonly controller: Controller;
  /** The kinds this controller reconciles; the tick lists each once (narrowed by `labelSelector` if set). */
  readonly kinds: readonly (KindRef & { readonly labelSelector?: string })[];
  /** Other kinds whose changes are routed to this controller and mapped to keys by `mapChange`. */
  readonly watchedKinds?: readonly KindRef[];
  /**
   * The objects to reconcile after a change of a watched (non-primary) kind, e.g. the Clusters using a
   * ClusterClass. Not called for the primary kinds (their key is the changed object).
   */
  mapChange?(deps: RuntimeDeps, change: ChangedObject): Promise<readonly MappedKey[]>;
  /**
   * `mapChange` page by page, for a change that maps through a paged LIST of every object of a kind (a ClusterClass
   * change: every Cluster using it): `onKeys` gets the keys as each page arrives; when `shouldStop` says so after a
   * page, the mapping ends early with the `continue` another invocation goes on `from`. Undefined when the change
   * does not map that way (`mapChange` maps it).
   */
  mapChangeInPages?(deps: RuntimeDeps, change: ChangedObject, paging: MapPaging): Promise<MapPagesResult | undefined>;
  /** Reads the facts of an object (≤ 2 GETs); undefined when it no longer exists (or is not this controller's). */
  getFacts(deps: RuntimeDeps, key: PassKey): Promise<ObjectFacts | undefined>;
  /** Runs one pass. Thrown errors are recorded as `Error` outcomes with backoff. */
  reconcile(deps: RuntimeDeps, key: PassKey, ctx: PassContext): Promise<PassOutcome>;
};

/** What a handler returns per object; also what the local bus prints. */
export type PassReport = {
  readonly key: PassKey;
  readonly passId: string;
  /** Ran (with the pass result), Skipped (not due, lease held, gone), or Rejected (malformed event). */
  readonly status: 'Ran' | 'Skipped' | 'Rejected';
  readonly reason: string;
  readonly result?: PassResult;
  readonly changed?: readonly string[];
  readonly nextAttemptAt?: number;
  /**
   * The due time the object's previous checkpoint held (a requeue's or an error's next attempt), so a one-time
   * schedule may be waiting for it; set when the pass recorded its checkpoint, or forgot a gone object. A pass that
   * no longer asks to run again deletes that schedule (see `computeWakeUpDeletes`).
   */
  readonly previousNextAttemptAt?: number;
  /** The service that did not answer in time, when that is what ended the pass. */
  readonly timedOut?: Dependency;
  /**
   * The pass ended before anything was recorded (no checkpoint, so the due index knows nothing of it): an event
   * invocation with such a pass fails, so Lambda retries the event.
   */
  readonly unrecorded?: boolean;
  /**
   * A pass that found this one's lease held asked for one more pass (with its flags); the pass runner runs it
   * before returning.
   */
  readonly rerun?: RerunRequest;
  /** How many passes the request ran, when another pass asked it to run again (the report is the last that ran). */
  readonly runs?: number;
  /** How long each step of a pass that ran took (ms). */
  readonly timings?: PassTimings;
};

/**
 * The steps of a pass that ran, in ms: reading the checkpoint and the facts (together), taking the lease,
 * reconciling, recording the checkpoint (which releases the lease).
 */
export type PassTimings = {
  readonly readMs: number;
  readonly leaseMs: number;
  readonly reconcileMs: number;
  readonly recordMs: number;
};
