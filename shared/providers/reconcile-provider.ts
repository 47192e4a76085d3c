// One pass of the provider operator over one provider object: read it, run the ordered phases (a failing phase sets
// its condition and stops the pass), then write status only when it changed.
import type { ProviderStatus } from '#shared/api/operator/v1alpha2/provider.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { getProvider, listAllProviders } from '#shared/providers/current/get-provider.ts';
import { setFinalizers, writeProviderStatus } from '#shared/providers/apply/write-provider.ts';
import { ProviderComponentsError } from '#shared/providers/desired/provider-components-error.ts';
import { ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';
import { computeSetCondition } from '#shared/providers/phases/compute-conditions.ts';
import { deletePhases, reconcilePhases } from '#shared/providers/phases/provider-phases.ts';
import { PhaseError, providerFinalizer } from '#shared/providers/phases/provider-pass.ts';
import type { ProviderKey } from '#shared/providers/current/get-provider.ts';
import type { Phase, ProviderDeps, ProviderPass } from '#shared/providers/phases/provider-pass.ts';

export type ProviderPassOutcome = {
  readonly result: 'Success' | 'Requeue' | 'Error';
  readonly requeueAfterMs?: number;
  readonly changed: string[];
  readonly error?: string;
  /** The provider's resourceVersion after this pass's own writes. */
  readonly resourceVersion?: string;
};

type PhasesOutcome = Omit<ProviderPassOutcome, 'changed' | 'resourceVersion'>;

function reasonOf(err: unknown, phase: Phase): string {
  if ((err instanceof ProviderComponentsError || err instanceof ProviderFetchError) && err.reason) return err.reason;
  return phase.reason;
}

async function runPhases(pass: ProviderPass, phases: readonly Phase[]): Promise<PhasesOutcome> {
  for (const phase of phases) {
    try {
      const stop = await phase.run(pass);
      if (stop) return stop;
    } catch (err) {
      const now = pass.deps.now();
      if (err instanceof PhaseError) {
        pass.conditions = computeSetCondition(
          pass.conditions,
          {
            type: err.condition,
            status: err.conditionStatus,
            reason: err.conditionReason,
            message: err.message,
          },
          now,
        );
        if (err.wait)
          return { result: 'Requeue', ...(err.requeueAfterMs ? { requeueAfterMs: err.requeueAfterMs } : {}) };
        return { result: 'Error', error: err.message };
      }
      const message = errorMessage(err);
      pass.conditions = computeSetCondition(
        pass.conditions,
        { type: phase.condition, status: 'False', reason: reasonOf(err, phase), message },
        now,
      );
      return { result: 'Error', error: `${phase.name}: ${message}` };
    }
  }
  return { result: 'Success' };
}

/**
 * Reconciles one CoreProvider, BootstrapProvider, … once: preflight, fetch, load, pause, contract,
 * install/upgrade, unpause, health — or, for a provider being deleted, the delete guard and component removal
 * followed by removing the finalizer.
 *
 * @example
 * const outcome = await reconcileProvider(
 *   { kube, fetch, now: () => new Date(), fieldManager: 'capi-serverless-providers' },
 *   { kind: 'CoreProvider', namespace: 'capi-system', name: 'cluster-api' },
 * );
 * outcome.result; // 'Success' | 'Requeue' | 'Error'
 */
export async function reconcileProvider(deps: ProviderDeps, key: ProviderKey): Promise<ProviderPassOutcome> {
  const provider = await getProvider(deps.kube, key);
  if (!provider) return { result: 'Success', changed: [] };
  const allProviders = await listAllProviders(deps.kube);
  const pass: ProviderPass = {
    deps,
    key,
    provider,
    allProviders,
    conditions: [...(provider.status?.conditions ?? [])],
    installedVersion: provider.status?.installedVersion,
    contract: provider.status?.contract,
    changed: [],
  };
  const finalizers = provider.metadata.finalizers ?? [];
  const deleting = provider.metadata.deletionTimestamp !== undefined;

  if (deleting) {
    const outcome = await runPhases(pass, deletePhases);
    if (outcome.result === 'Success') {
      if (finalizers.includes(providerFinalizer)) {
        const rest = finalizers.filter((f) => f !== providerFinalizer);
        const written = await setFinalizers(deps.kube, pass.provider, rest, deps.fieldManager);
        pass.changed.push('removed finalizer');
        return { ...outcome, changed: pass.changed, ...resourceVersionOf(written.metadata.resourceVersion) };
      }
      return { ...outcome, changed: pass.changed };
    }
    return finish(pass, outcome);
  }

  if (!finalizers.includes(providerFinalizer)) {
    pass.provider = await setFinalizers(
      deps.kube,
      pass.provider,
      [...finalizers, providerFinalizer],
      deps.fieldManager,
    );
    pass.changed.push('added finalizer');
  }
  return finish(pass, await runPhases(pass, reconcilePhases));
}

function resourceVersionOf(rv: string | undefined): { resourceVersion?: string } {
  return rv ? { resourceVersion: rv } : {};
}

async function finish(pass: ProviderPass, outcome: PhasesOutcome): Promise<ProviderPassOutcome> {
  const p = pass.provider;
  const status: ProviderStatus = {
    ...p.status,
    conditions: pass.conditions,
    ...(pass.installedVersion === undefined ? {} : { installedVersion: pass.installedVersion }),
    ...(pass.contract === undefined ? {} : { contract: pass.contract }),
    ...(outcome.result === 'Error'
      ? {}
      : p.metadata.generation === undefined
        ? {}
        : { observedGeneration: p.metadata.generation }),
  };
  let written: typeof p;
  try {
    written = await writeProviderStatus(pass.deps.kube, p, status, pass.deps.fieldManager);
    if (written !== p) pass.changed.push('updated status');
  } catch (err) {
    const message = `failed to write status: ${errorMessage(err)}`;
    return {
      result: 'Error',
      changed: pass.changed,
      error: outcome.error ? `${outcome.error}; ${message}` : message,
    };
  }
  return { ...outcome, changed: pass.changed, ...resourceVersionOf(written.metadata.resourceVersion) };
}
