// What one provider pass carries from phase to phase, the phase contract (a function that continues, stops or throws
// a PhaseError), and the condition types and reasons the phases report (upstream's, plus ours for pausing/deleting).
import type { Condition } from '#shared/api/core/v1beta1/condition.ts';
import type { Provider } from '#shared/api/operator/v1alpha2/provider.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import type { ComponentsCacheState } from '#shared/providers/current/get-components-cache.ts';
import type { ProviderKey } from '#shared/providers/current/get-provider.ts';
import type { ProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import type { FetchPolicy } from '#shared/providers/fetch/fetch-policy.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import type { ExtensionConfigDiscovery } from '#shared/providers/desired/compute-feature-gate-conflict.ts';
import type { ProviderRelease } from '#shared/providers/fetch/provider-release.ts';

export type ProviderDeps = {
  readonly kube: KubeClient;
  /** The transport; every download goes through `createGuardedFetch(fetch, fetchPolicy)`. */
  readonly fetch: FetchFn;
  /** Where downloads may go (default `defaultFetchPolicy`: HTTPS to public addresses, GitLab on gitlab.com). */
  readonly fetchPolicy?: FetchPolicy;
  readonly now: () => Date;
  readonly fieldManager: string;
  /**
   * Who writes ExtensionConfig status (EXTENSION_CONFIG_DISCOVERY; default capi-serverless): checked against the
   * core manager's RuntimeSDK gate.
   */
  readonly extensionConfigDiscovery?: ExtensionConfigDiscovery;
};

/** Upstream condition types (`api/v1alpha2/conditions_consts.go`, Cluster API `Ready`) plus `Deleting`. */
export const ProviderCondition = {
  PreflightCheckPassed: 'PreflightCheckPassed',
  ProviderInstalled: 'ProviderInstalled',
  ProviderUpgraded: 'ProviderUpgraded',
  Ready: 'Ready',
  Deleting: 'Deleting',
} as const;
export type ProviderCondition = (typeof ProviderCondition)[keyof typeof ProviderCondition];

/** Upstream reasons, spelled as upstream spells them, then the ones for behaviour upstream never built. */
export const ConditionReason = {
  PreflightChecksPassed: 'PreflightChecksPassed',
  MoreThanOneExists: 'MoreThanOneExists',
  IncorrectVersionFormat: 'IncorrectVersionFormat',
  IncorrectCoreProviderName: 'IncorrectCoreProviderNameReason',
  FetchConfigValidationError: 'FetchConfigValidationError',
  UnknownProvider: 'UnknownProvider',
  CAPIVersionIncompatibility: 'CAPIVersionIncompatibility',
  ComponentsFetchError: 'ComponentsFetchError',
  ComponentsCustomizationError: 'ComponentsCustomizationError',
  ComponentsUpgradeError: 'ComponentsUpgradeError',
  OldComponentsDeletionError: 'OldComponentsDeletionError',
  WaitingForCoreProviderReady: 'WaitingForCoreProviderReady',
  NoDeploymentAvailable: 'NoDeploymentAvailableConditionReason',
  DeploymentAvailable: 'DeploymentAvailable',
  UnsupportedProviderDowngrade: 'UnsupportedProviderDowngradeReason',
  InstallFailed: 'InstallFailed',
  ProviderInstalled: 'ProviderInstalled',
  ProviderUpgraded: 'ProviderUpgraded',
  // capi-serverless (the proposal's pause/contract-change/delete rules):
  ContractChangeRequiresPause: 'ContractChangeRequiresPause',
  ProvidersOnOldContract: 'ProvidersOnOldContract',
  ProviderPaused: 'ProviderPaused',
  WaitingForClustersDeletion: 'WaitingForClustersDeletion',
  WaitingForProvidersDeletion: 'WaitingForProvidersDeletion',
  DeletingComponents: 'DeletingComponents',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

/** Finalizer upstream puts on every provider. */
export const providerFinalizer = 'provider.cluster.x-k8s.io';
/**
 * The Cluster API Operator's applied-spec hash (bare hex SHA-256, see `computeOperatorHash`), on the provider and on
 * its components cache Secret.
 */
export const appliedHashAnnotation = 'operator.cluster.x-k8s.io/applied-spec-hash';

/** Mutable state of one pass; each phase reads what earlier phases found and adds its own. */
export type ProviderPass = {
  readonly deps: ProviderDeps;
  readonly key: ProviderKey;
  /** The provider as last read or written by this pass. */
  provider: Provider;
  /** Every provider of every kind, read once at the start. */
  readonly allProviders: readonly Provider[];
  /** Working copy of status.conditions; written at the end when it differs. */
  conditions: Condition[];
  installedVersion: string | undefined;
  contract: string | undefined;
  /** Decoded data of the config Secret, read by the fetch phase. */
  variables?: Record<string, string>;
  /** Read by the cache phase: the cache Secret of spec.version and the other hash inputs. */
  componentsCache?: ComponentsCacheState;
  /** Set by the cache phase when the cache is current: fetch and load are skipped, install uses these objects. */
  cached?: { readonly objects: readonly ComponentObject[]; readonly hash: string };
  /** Found by the fetch phase. */
  release?: ProviderRelease;
  /** Contract of `release.version`, found by the load phase. */
  newContract?: string;
  /** The provider's live Deployments (read by the pause phase). */
  deployments?: KubeObject[] | undefined;
  components?: ProviderComponents;
  changed: string[];
};

export type PhaseStop = { readonly result: 'Success' | 'Requeue'; readonly requeueAfterMs?: number };
/** A phase continues (undefined) or ends the pass early without an error (waiting, nothing to do). */
export type PhaseResult = PhaseStop | undefined;

export type Phase = {
  readonly name: string;
  /** The condition an unexpected failure of this phase is reported on, and its reason. */
  readonly condition: ProviderCondition;
  readonly reason: string;
  run(pass: ProviderPass): Promise<PhaseResult>;
};

/**
 * A phase failure that ends up in a condition. `wait` marks a state the user or another provider must change
 * (the pass requeues instead of failing).
 */
export class PhaseError extends CapiError {
  readonly condition: ProviderCondition;
  readonly conditionReason: string;
  readonly conditionStatus: 'True' | 'False';
  readonly wait: boolean;
  readonly requeueAfterMs: number | undefined;

  constructor(
    message: string,
    condition: {
      type: ProviderCondition;
      reason: string;
      status?: 'True' | 'False';
      wait?: boolean;
      requeueAfterMs?: number;
    },
    options?: { cause?: unknown },
  ) {
    super(message, { reason: condition.reason }, options);
    this.condition = condition.type;
    this.conditionReason = condition.reason;
    this.conditionStatus = condition.status ?? 'False';
    this.wait = condition.wait ?? false;
    this.requeueAfterMs = condition.requeueAfterMs;
  }
}

/** How long to wait before looking again at a provider that waits for something else. */
export const waitRequeueMs = 30_000;
/** How long to wait before checking a Deployment's availability again. */
export const readinessRequeueMs = 10_000;
