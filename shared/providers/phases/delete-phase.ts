// Delete (the proposal): refused while workload Clusters use the provider, and for the core provider while other
// providers exist — the `Deleting` condition names what blocks it; otherwise the components are removed as
// clusterctl removes them (CRDs and namespace kept). A provider that never installed goes at once.
import { errorMessage } from '#shared/errors/index.ts';
import { providerRef } from '#shared/providers/current/get-provider.ts';
import { listBlockingClusters } from '#shared/providers/current/list-blocking-clusters.ts';
import { deleteComponents } from '#shared/providers/apply/apply-components.ts';
import {
  ConditionReason,
  PhaseError,
  ProviderCondition,
  waitRequeueMs,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';

function blocked(reason: string, message: string): never {
  throw new PhaseError(message, {
    type: ProviderCondition.Deleting,
    status: 'True',
    reason,
    wait: true,
    requeueAfterMs: waitRequeueMs,
  });
}

export const deleteGuardPhase: Phase = {
  name: 'delete-guard',
  condition: ProviderCondition.Deleting,
  reason: ConditionReason.DeletingComponents,
  async run(pass) {
    const p = pass.provider;
    // NOTE: a provider that never installed (a refused duplicate, a second CoreProvider) serves no Cluster and no
    // other provider: it goes at once, as the operator lets it.
    if (pass.installedVersion === undefined) return undefined;
    if (p.kind === 'CoreProvider') {
      const others = pass.allProviders.filter((o) => o.kind !== 'CoreProvider');
      if (others.length > 0) {
        blocked(
          ConditionReason.WaitingForProvidersDeletion,
          `cannot delete ${providerRef(p)} while other providers exist: ${others.map(providerRef).join(', ')}`,
        );
      }
    }
    const clusters = await listBlockingClusters(pass.deps.kube, p);
    if (clusters.length > 0) {
      blocked(
        ConditionReason.WaitingForClustersDeletion,
        `cannot delete ${providerRef(p)} while workload Clusters use it: ${clusters.map((c) => `Cluster ${c}`).join(', ')}`,
      );
    }
    return undefined;
  },
};

export const deleteComponentsPhase: Phase = {
  name: 'delete-components',
  condition: ProviderCondition.Deleting,
  reason: ConditionReason.OldComponentsDeletionError,
  async run(pass) {
    // NOTE: a provider that never installed has nothing of its own; the objects carrying its inventory labels belong
    // to its installed twin of the same kind and name in another namespace (clusterctl, in the operator, would
    // delete that twin's cluster-scoped webhooks).
    if (pass.installedVersion === undefined) return undefined;
    try {
      pass.changed.push(...(await deleteComponents(pass.deps.kube, pass.provider)));
    } catch (err) {
      throw new PhaseError(
        `failed to delete the components of ${providerRef(pass.provider)}: ${errorMessage(err)}`,
        { type: ProviderCondition.Deleting, status: 'True', reason: ConditionReason.OldComponentsDeletionError },
        { cause: err },
      );
    }
    return undefined;
  },
};
