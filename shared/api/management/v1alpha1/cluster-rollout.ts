// `management.cluster.x-k8s.io/v1alpha1` ClusterRollout: a class rebase and/or a topology version change rolled out
// over the Clusters a selector picks, wave by wave, each Cluster gated on its health, inside a maintenance window.
// The schema is the source of truth for the types and the generated CRD.
import * as z from 'zod';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { duration, listMap, timestamp } from '#shared/api/meta.ts';
import { KubeObjectMeta } from '#shared/api/object-meta.ts';
import { Conditions, objectName } from '#shared/api/core/v1beta2/common.ts';

export const RolloutGroup = 'management.cluster.x-k8s.io';
export const RolloutApiVersion = 'management.cluster.x-k8s.io/v1alpha1';
export const RolloutKind = 'ClusterRollout';

/** What a Cluster is in a rollout. */
export const ClusterRolloutState = {
  /** Not reached yet: never written. */
  Pending: 'Pending',
  /** Changed by the rollout; waiting for its health gate. */
  Changing: 'Changing',
  /** Changed and passed its health gate. */
  Healthy: 'Healthy',
  /** Refused by the API server, or its health gate failed (timeout, or health lost during the bake). */
  Failed: 'Failed',
  /** Its classRef/version was changed meanwhile by someone else: reported, never overwritten. */
  Conflict: 'Conflict',
  /** Not changed and never will be by this rollout (already at the target, no topology, gone, aborted). */
  Skipped: 'Skipped',
} as const;
export type ClusterRolloutState = (typeof ClusterRolloutState)[keyof typeof ClusterRolloutState];

/** Where a wave is. */
export const WaveState = {
  Pending: 'Pending',
  Progressing: 'Progressing',
  Baking: 'Baking',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Aborted: 'Aborted',
} as const;
export type WaveState = (typeof WaveState)[keyof typeof WaveState];

/** Where the rollout is (`status.phase`, the first printer column). */
export const RolloutPhase = {
  Progressing: 'Progressing',
  Baking: 'Baking',
  WaitingForWindow: 'WaitingForWindow',
  Paused: 'Paused',
  Halted: 'Halted',
  Completed: 'Completed',
  Aborted: 'Aborted',
  Invalid: 'Invalid',
} as const;
export type RolloutPhase = (typeof RolloutPhase)[keyof typeof RolloutPhase];

/** Condition types and reasons of a ClusterRollout. */
export const RolloutConditions = {
  /** True while waves move; False with why they do not. */
  Progressing: {
    type: 'Progressing',
    reasons: {
      Progressing: 'Progressing',
      Baking: 'Baking',
      WaitingForMaintenanceWindow: 'WaitingForMaintenanceWindow',
      Paused: 'Paused',
      WaveFailed: 'WaveFailed',
      Aborted: 'Aborted',
      Completed: 'Completed',
      InvalidSpec: 'InvalidSpec',
      NoClustersSelected: 'NoClustersSelected',
    },
  },
  /** True when every Cluster the rollout changed passes its health gate. */
  HealthGate: {
    type: 'HealthGate',
    reasons: { Healthy: 'Healthy', Waiting: 'Waiting', Failed: 'Failed', NoClustersChanged: 'NoClustersChanged' },
  },
  /** True when some Cluster's topology was changed meanwhile by someone else. */
  Conflicts: { type: 'Conflicts', reasons: { Conflict: 'ClusterChangedMeanwhile', NoConflict: 'NoConflict' } },
  /** True once every wave succeeded. */
  Completed: { type: 'Completed', reasons: { Completed: 'Completed', NotCompleted: 'NotCompleted' } },
} as const;

/** Reasons of a Cluster entry (`status.clusters[].reason`). */
export const ClusterRolloutReason = {
  WaitingForWave: 'WaitingForWave',
  Changed: 'Changed',
  HealthGatePassed: 'HealthGatePassed',
  HealthGateTimeout: 'HealthGateTimeout',
  HealthLost: 'HealthLost',
  ChangeRefused: 'ChangeRefused',
  ChangedMeanwhile: 'ChangedMeanwhile',
  AlreadyAtTarget: 'AlreadyAtTarget',
  NoTopology: 'NoTopology',
  NotSelected: 'NotSelected',
  Deleted: 'Deleted',
  Aborted: 'Aborted',
} as const;

/** The checks of the default health gate, each read from the Cluster's v1beta2 status (upstream v1.14 conditions). */
export const healthChecks = [
  /** `status.observedGeneration` and TopologyReconciled's observedGeneration reached the Cluster's generation. */
  'ObservedGeneration',
  /** TopologyReconciled True (False while upgrading: ClusterUpgrading, *UpgradePending, ...). */
  'TopologyReconciled',
  'ControlPlaneAvailable',
  'WorkersAvailable',
  'ControlPlaneMachinesUpToDate',
  'WorkerMachinesUpToDate',
  /** RollingOut not True. */
  'NotRollingOut',
  /** Remediating not True (no MachineHealthCheck remediation in progress). */
  'NotRemediating',
] as const;
export type HealthCheck = (typeof healthChecks)[number];

/** A class to rebase to, as `spec.topology.classRef`. */
export const RolloutClassRef = z.object({
  name: objectName(),
  namespace: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .optional(),
});
export type RolloutClassRef = z.infer<typeof RolloutClassRef>;

/** The change: a class to rebase to and/or a topology version (at least one). */
export const RolloutChange = z
  .object({
    classRef: RolloutClassRef.optional(),
    version: z
      .string()
      .min(1)
      .max(256)
      .regex(/^v\d+\.\d+\.\d+([-+].*)?$/, 'must be a Kubernetes version such as v1.34.1')
      .optional(),
  })
  .refine((c) => c.classRef !== undefined || c.version !== undefined, {
    message: 'set classRef, version or both',
  })
  .meta({
    'x-kubernetes-validations': [
      { rule: 'has(self.classRef) || has(self.version)', message: 'set classRef, version or both' },
    ],
  });
export type RolloutChange = z.infer<typeof RolloutChange>;

/** How many Clusters a wave takes: a count, a percentage of the selected Clusters, or `rest`. */
export const WaveSize = z
  .union([z.number().int().min(1), z.string().regex(/^(100|[1-9]?[0-9])%$|^rest$/, 'must be a count, "N%" or "rest"')])
  .meta({ 'x-kubernetes-int-or-string': true });
export type WaveSize = z.infer<typeof WaveSize>;

export const RolloutWave = z.object({
  /** A name for status and events (default `wave-<n>`, 1-based). */
  name: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .optional(),
  clusters: WaveSize,
});
export type RolloutWave = z.infer<typeof RolloutWave>;

export const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type Weekday = (typeof weekdays)[number];

const clockTime = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'must be HH:MM (24 h)');

/**
 * When changes may start: on `days` (in `timeZone`), from `start` to `end`. An `end` at or before `start` ends the
 * next day (a window over midnight belongs to the day it starts).
 */
export const MaintenanceWindow = z.object({
  days: z.array(z.enum(weekdays)).min(1).max(7),
  start: clockTime,
  end: clockTime,
  /** An IANA time zone such as `Europe/Berlin` (default `UTC`). */
  timeZone: z.string().min(1).max(64).optional(),
});
export type MaintenanceWindow = z.infer<typeof MaintenanceWindow>;

export const HealthGate = z.object({
  /** How long a changed Cluster may take to pass the gate before it fails it (default 30m). */
  timeout: duration().optional(),
  /** The checks (default: all of them). */
  checks: z.array(z.enum(healthChecks)).min(1).optional(),
});
export type HealthGate = z.infer<typeof HealthGate>;

export const ClusterRolloutSpec = z
  .object({
    /** The Clusters (in the rollout's namespace) to change; must not be empty. */
    clusterSelector: LabelSelector,
    change: RolloutChange,
    /** In order; a canary wave of 1 first is the usual case. */
    waves: z.array(RolloutWave).min(1).max(100),
    /** At most this many Clusters of a wave changing at once (default: the whole wave). */
    maxConcurrent: z.number().int().min(1).optional(),
    /** How long a wave must stay healthy before the next one starts (default 0s). */
    bakeTime: duration().optional(),
    healthGate: HealthGate.optional(),
    maintenanceWindow: MaintenanceWindow.optional(),
    /** Nothing starts while paused; changed Clusters are still watched. */
    paused: z.boolean().optional(),
    /** Stops for good: Clusters not yet changed stay untouched; status lists the ones changed. */
    abort: z.boolean().optional(),
    /** Raise it to retry a halted rollout: failed Clusters are looked at (and changed) again. */
    retry: z.number().int().min(0).optional(),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '(has(self.clusterSelector.matchLabels) && size(self.clusterSelector.matchLabels) > 0) || (has(self.clusterSelector.matchExpressions) && size(self.clusterSelector.matchExpressions) > 0)',
        message: 'clusterSelector must not be empty',
        fieldPath: '.clusterSelector',
      },
    ],
  });
export type ClusterRolloutSpec = z.infer<typeof ClusterRolloutSpec>;

/** `spec.topology.classRef` and `spec.topology.version` of a Cluster, as the rollout saw them. */
export const TopologyTarget = z.object({
  classRef: RolloutClassRef.optional(),
  version: z.string().optional(),
});
export type TopologyTarget = z.infer<typeof TopologyTarget>;

export const RolloutClusterStatus = z.object({
  name: objectName(),
  /** The wave's index (0-based). */
  wave: z.number().int().min(0),
  state: z.enum([
    ClusterRolloutState.Pending,
    ClusterRolloutState.Changing,
    ClusterRolloutState.Healthy,
    ClusterRolloutState.Failed,
    ClusterRolloutState.Conflict,
    ClusterRolloutState.Skipped,
  ]),
  reason: z.string().optional(),
  message: z.string().max(4096).optional(),
  /** classRef/version when the rollout first saw the Cluster. */
  original: TopologyTarget.optional(),
  changedAt: timestamp().optional(),
  /** The Cluster's generation the change was made on: the same generation at the original value later means the write never landed. */
  baseGeneration: z.number().int().min(0).optional(),
  healthyAt: timestamp().optional(),
});
export type RolloutClusterStatus = z.infer<typeof RolloutClusterStatus>;

export const RolloutWaveStatus = z.object({
  name: z.string().min(1),
  state: z.enum([
    WaveState.Pending,
    WaveState.Progressing,
    WaveState.Baking,
    WaveState.Succeeded,
    WaveState.Failed,
    WaveState.Aborted,
  ]),
  clusters: z.number().int().min(0),
  startedAt: timestamp().optional(),
  /** When every Cluster of the wave had passed its gate (the bake starts). */
  healthyAt: timestamp().optional(),
  bakeUntil: timestamp().optional(),
  completedAt: timestamp().optional(),
});
export type RolloutWaveStatus = z.infer<typeof RolloutWaveStatus>;

export const RolloutCounts = z.object({
  total: z.number().int().min(0),
  pending: z.number().int().min(0),
  changing: z.number().int().min(0),
  healthy: z.number().int().min(0),
  failed: z.number().int().min(0),
  conflict: z.number().int().min(0),
  skipped: z.number().int().min(0),
  /** Clusters the rollout wrote (changing, healthy, and failed after a write). */
  changed: z.number().int().min(0),
});
export type RolloutCounts = z.infer<typeof RolloutCounts>;

export const ClusterRolloutStatus = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  phase: z.string().optional(),
  /** The wave in progress, 1-based, for `kubectl get` (the last one once completed). */
  currentWave: z.number().int().min(0).optional(),
  /** `changed/total`, for `kubectl get`. */
  progress: z.string().optional(),
  counts: RolloutCounts.optional(),
  /** The `spec.retry` this status has acted on. */
  observedRetry: z.number().int().min(0).optional(),
  /** When the rollout looks again by itself (end of a bake, start of a window, a health gate's timeout). */
  nextCheckAt: timestamp().optional(),
  waves: listMap(RolloutWaveStatus, ['name']).optional(),
  clusters: listMap(RolloutClusterStatus, ['name']).optional(),
  conditions: Conditions.optional(),
});
export type ClusterRolloutStatus = z.infer<typeof ClusterRolloutStatus>;

export const ClusterRollout = z.object({
  apiVersion: z.literal(RolloutApiVersion),
  kind: z.literal(RolloutKind),
  metadata: KubeObjectMeta,
  spec: ClusterRolloutSpec,
  status: ClusterRolloutStatus.optional(),
});
export type ClusterRollout = z.infer<typeof ClusterRollout>;
