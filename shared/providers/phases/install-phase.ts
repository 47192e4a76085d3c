// Install / upgrade / reconfigure. With a current components cache (cache phase), the provider is up to date when
// its status says this version is installed; otherwise the cached objects are applied as they are (no source
// needed). Without one, the components are processed as clusterctl does, the old ones removed when the version
// changed (CRDs, namespace and user objects kept), the new ones applied with server-side apply, then the cache
// Secret written and the operator's applied-spec hash set on it and on the provider.
// Unchanged: only component Deployments that drifted (deleted by hand or changed) are put back.
// The handoff (compute-handoff.ts) is the last processing step unless the provider opts out; a cache without it (the
// operator's, or ours from before an opt-out was removed) gets it on top: the objects it changes are applied, then
// the cache Secret and the applied-spec hash are written again over what is now installed.
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { applyObject } from '#shared/kube/index.ts';
import type { KubeObject } from '#shared/kube/index.ts';
import { getAdditionalManifests } from '#shared/providers/current/get-config-variables.ts';
import { getComponentsCache } from '#shared/providers/current/get-components-cache.ts';
import {
  applyComponents,
  deleteComponents,
  reconcileComponentDeployments,
} from '#shared/providers/apply/apply-components.ts';
import { listProviderDeployments } from '#shared/providers/current/list-provider-objects.ts';
import { patchProvider } from '#shared/providers/apply/write-provider.ts';
import {
  compressedAnnotation,
  computeComponentsCacheSecret,
  computeOperatorHash,
  maxUncompressedComponents,
} from '#shared/providers/desired/compute-components-cache.ts';
import {
  computeHandoffComponents,
  isHandoffEnabled,
  listChangedObjects,
} from '#shared/providers/desired/compute-handoff.ts';
import {
  computeFeatureGateConflict,
  ExtensionConfigDiscovery,
  featureGatesCondition,
} from '#shared/providers/desired/compute-feature-gate-conflict.ts';
import { computeProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { providerTypeWords } from '#shared/providers/fetch/config-map-releases.ts';
import { computeDeleteCondition, isConditionTrue } from '#shared/providers/phases/compute-conditions.ts';
import { computePausedObjects } from '#shared/providers/phases/compute-paused-objects.ts';
import {
  appliedHashAnnotation,
  ConditionReason,
  PhaseError,
  ProviderCondition,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase, ProviderPass } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';
import { isProviderPaused } from '#shared/providers/desired/is-provider-paused.ts';

function who(pass: ProviderPass): string {
  return describeObject(pass.provider.kind, pass.provider.metadata.namespace, pass.provider.metadata.name);
}

async function applyPaused(pass: ProviderPass, objects: readonly ComponentObject[], version: string): Promise<void> {
  const paused = computePausedObjects(objects, pass.deployments ?? [], isProviderPaused(pass.provider));
  try {
    pass.changed.push(...(await applyComponents(pass.deps.kube, paused, pass.deps.fieldManager)));
  } catch (err) {
    throw new PhaseError(
      `failed to install ${who(pass)} ${version}: ${errorMessage(err)}`,
      { type: ProviderCondition.ProviderInstalled, reason: ConditionReason.InstallFailed },
      { cause: err },
    );
  }
}

function recordInstalled(pass: ProviderPass, version: string): void {
  const previous = pass.installedVersion;
  pass.deployments = undefined;
  pass.installedVersion = version;
  pass.contract = pass.newContract;
  setPassCondition(pass, {
    type: ProviderCondition.ProviderInstalled,
    status: 'True',
    reason: ConditionReason.ProviderInstalled,
    message: 'Provider installed successfully',
  });
  if (previous !== undefined && previous !== version) {
    setPassCondition(pass, {
      type: ProviderCondition.ProviderUpgraded,
      status: 'True',
      reason: ConditionReason.ProviderUpgraded,
      message: `Provider upgraded successfully from ${previous} to ${version}`,
    });
  }
}

/** Writes the cache Secret with the hash of what it holds, then the same hash on the provider. */
async function recordCache(pass: ProviderPass, objects: readonly ComponentObject[], componentsSize: number) {
  const { kube, fieldManager } = pass.deps;
  const secret = computeComponentsCacheSecret({
    provider: pass.provider,
    typeWord: providerTypeWords[pass.provider.kind],
    objects,
    componentsSize,
    contract: pass.newContract,
    handoffApplied: isHandoffEnabled(pass.provider),
  });
  // Read again: the fetch phase may have written spec.version, which selects the ConfigMap the hash covers.
  const { hashInput } = await getComponentsCache(kube, pass.provider);
  const hash = computeOperatorHash({ ...hashInput, cacheData: secret.data });
  const annotations = { ...secret.metadata.annotations, [appliedHashAnnotation]: hash };
  await applyObject(kube, { ...secret, metadata: { ...secret.metadata, annotations } } as KubeObject, {
    fieldManager,
    force: true,
  });
  pass.changed.push(`applied ${describeObject('Secret', secret.metadata.namespace, secret.metadata.name)}`);
  if (pass.provider.metadata.annotations?.[appliedHashAnnotation] !== hash) {
    pass.provider = await patchProvider(
      kube,
      pass.provider,
      { metadata: { annotations: { [appliedHashAnnotation]: hash } } },
      fieldManager,
    );
  }
}

/** Puts back component Deployments deleted by hand or changed by another manager (a dry run each when none drifted). */
async function repairDrift(pass: ProviderPass, objects: readonly ComponentObject[]): Promise<void> {
  const { kube, fieldManager } = pass.deps;
  const deployments = pass.deployments ?? (await listProviderDeployments(kube, pass.provider));
  const desired = computePausedObjects(objects, deployments, isProviderPaused(pass.provider));
  const repaired = await reconcileComponentDeployments(kube, desired, deployments, fieldManager);
  if (repaired.length > 0) {
    pass.changed.push(...repaired);
    pass.deployments = undefined;
  }
}

/** The components as installed: with the handoff as the last step, unless the provider opts out. */
function withHandoff(pass: ProviderPass, objects: readonly ComponentObject[]): readonly ComponentObject[] {
  return isHandoffEnabled(pass.provider) ? computeHandoffComponents(pass.provider.kind, objects) : objects;
}

/**
 * Sets `FeatureGatesCompatible` False on the provider when the components run its manager with feature gates that
 * cannot work beside capi-serverless (compute-feature-gate-conflict.ts); removes it otherwise, so a provider without a
 * conflict carries no extra condition. A warning: the components are installed as asked.
 */
function recordFeatureGateConflict(pass: ProviderPass, objects: readonly ComponentObject[]): void {
  const discovery = pass.deps.extensionConfigDiscovery ?? ExtensionConfigDiscovery.capiServerless;
  const conflict = computeFeatureGateConflict(pass.provider.kind, objects, discovery);
  if (conflict === undefined) {
    pass.conditions = computeDeleteCondition(pass.conditions, featureGatesCondition);
    return;
  }
  setPassCondition(pass, { type: featureGatesCondition, status: 'False', ...conflict });
}

/** A components size that keeps the cache Secret's compression as it is (upstream decides it by the file's size). */
function cachedComponentsSize(pass: ProviderPass): number {
  const compressed = pass.componentsCache?.secret?.metadata.annotations?.[compressedAnnotation] === 'true';
  return compressed ? maxUncompressedComponents + 1 : 0;
}

export const installPhase: Phase = {
  name: 'install',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ComponentsFetchError,
  async run(pass) {
    const version = pass.provider.spec?.version ?? '';
    const installed =
      pass.installedVersion === version && isConditionTrue(pass.conditions, ProviderCondition.ProviderInstalled);
    if (pass.cached) {
      const cached = pass.cached.objects;
      const objects = withHandoff(pass, cached);
      recordFeatureGateConflict(pass, objects);
      const handoff = listChangedObjects(cached, objects);
      if (installed) {
        if (handoff.length > 0) {
          await applyPaused(pass, handoff, version);
          pass.deployments = undefined;
        }
        await repairDrift(pass, objects);
      } else {
        await applyPaused(pass, objects, version);
        recordInstalled(pass, version);
      }
      if (handoff.length > 0) await recordCache(pass, objects, cachedComponentsSize(pass));
      return undefined;
    }

    const { kube } = pass.deps;
    const release = pass.release;
    if (!release) throw new Error('install phase needs the fetch phase');
    const additionalManifestsYaml = await getAdditionalManifests(kube, pass.provider);
    const components = computeProviderComponents({
      provider: pass.provider,
      version: release.version,
      componentsYaml: release.componentsYaml,
      ...(additionalManifestsYaml === undefined ? {} : { additionalManifestsYaml }),
      configVariables: pass.variables ?? {},
    });
    pass.components = components;

    const previous = pass.installedVersion;
    if (previous !== undefined) {
      try {
        pass.changed.push(...(await deleteComponents(kube, pass.provider)));
      } catch (err) {
        throw new PhaseError(
          `failed to remove the ${previous} components of ${who(pass)}: ${errorMessage(err)}`,
          { type: ProviderCondition.ProviderUpgraded, reason: ConditionReason.ComponentsUpgradeError },
          { cause: err },
        );
      }
    }
    const objects = withHandoff(pass, components.objects);
    recordFeatureGateConflict(pass, objects);
    await applyPaused(pass, objects, release.version);
    await recordCache(pass, objects, Buffer.byteLength(release.componentsYaml, 'utf8'));
    recordInstalled(pass, release.version);
    return undefined;
  },
};
