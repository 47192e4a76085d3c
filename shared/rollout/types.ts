// The shapes the rollout's steps hand each other: the facts read of each Cluster (current/), what the pure step
// decides (desired/), and what the writes report back (apply/).
import type {
  ClusterRolloutStatus,
  HealthCheck,
  RolloutClassRef,
  TopologyTarget,
} from '#shared/api/management/v1alpha1/cluster-rollout.ts';

/** One health check's verdict on a Cluster, with what it saw (for status and events). */
export type CheckResult = { readonly ok: boolean; readonly detail: string };

/** Every check of the health gate, read from the Cluster's v1beta2 status. */
export type ClusterHealth = Readonly<Record<HealthCheck, CheckResult>>;

/** What the rollout reads of one Cluster. */
export type RolloutClusterFacts = {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation: number;
  /** Whether the rollout's selector matches it now. */
  readonly selected: boolean;
  readonly deleting: boolean;
  /** `spec.topology.classRef`/`version`; undefined when the Cluster has no managed topology. */
  readonly topology: TopologyTarget | undefined;
  readonly health: ClusterHealth;
};

/** A change to write to one Cluster: only the fields the rollout changes. */
export type ClusterChange = {
  readonly name: string;
  /** The version read; the write is refused (409) when the Cluster changed since. */
  readonly resourceVersion: string;
  readonly wave: number;
  readonly set: { readonly classRef?: RolloutClassRef; readonly version?: string };
  readonly from: TopologyTarget;
  readonly to: TopologyTarget;
};

/** A Kubernetes Event to record, on the rollout or on one Cluster. */
export type RolloutEvent = {
  readonly regarding: { readonly kind: 'ClusterRollout' } | { readonly kind: 'Cluster'; readonly name: string };
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
};

/** The pure step's decision. */
export type DesiredRollout = {
  readonly status: ClusterRolloutStatus;
  /** Clusters to change now (their entries are already `Changing` in `status`). */
  readonly changes: readonly ClusterChange[];
  /** When the rollout must look again by itself (epoch ms); undefined when only an event can move it. */
  readonly nextDueAt: number | undefined;
};

/** How the write of one change ended. */
export type ChangeResult =
  | { readonly name: string; readonly result: 'Applied'; readonly resourceVersion: string }
  /** The server refused it (a webhook, a validation rule): the Cluster fails with the server's message. */
  | { readonly name: string; readonly result: 'Refused'; readonly message: string }
  /** The Cluster changed since it was read, or the server did not answer: it goes back to Pending for next pass. */
  | { readonly name: string; readonly result: 'Retry'; readonly message: string };
