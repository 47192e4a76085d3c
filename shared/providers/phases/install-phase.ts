// Install / upgrade / reconfigure: processes the components as clusterctl does, and when the hash of the inputs
// differs from the one last applied, removes the old components (CRDs, namespace and user objects kept) and applies
// the new ones with server-side apply. Unchanged inputs: only component Deployments that drifted (deleted by hand or
// changed) are put back.
import { describeObject, errorMessage } from '#shared/errors/index.ts';
import { getAdditionalManifests } from '#shared/providers/current/get-config-variables.ts';
import {
  applyComponents,
  deleteComponents,
  reconcileComponentDeployments,
} from '#shared/providers/apply/apply-components.ts';
import { listProviderDeployments } from '#shared/providers/current/list-provider-objects.ts';
import { patchProvider } from '#shared/providers/apply/write-provider.ts';
import { computeInputsHash } from '#shared/providers/desired/compute-inputs-hash.ts';
import { computeProviderComponents } from '#shared/providers/desired/compute-provider-components.ts';
import { isConditionTrue } from '#shared/providers/phases/compute-conditions.ts';
import { computePausedObjects } from '#shared/providers/phases/compute-paused-objects.ts';
import {
  appliedHashAnnotation,
  ConditionReason,
  PhaseError,
  ProviderCondition,
} from '#shared/providers/phases/provider-pass.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { setPassCondition } from '#shared/providers/phases/set-pass-condition.ts';

export const installPhase: Phase = {
  name: 'install',
  condition: ProviderCondition.ProviderInstalled,
  reason: ConditionReason.ComponentsFetchError,
  async run(pass) {
    const { kube, fieldManager } = pass.deps;
    const release = pass.release;
    if (!release) throw new Error('install phase needs the fetch phase');
    const additionalManifestsYaml = await getAdditionalManifests(kube, pass.provider);
    const input = {
      provider: pass.provider,
      version: release.version,
      componentsYaml: release.componentsYaml,
      ...(additionalManifestsYaml === undefined ? {} : { additionalManifestsYaml }),
      configVariables: pass.variables ?? {},
    };
    const components = computeProviderComponents(input);
    pass.components = components;
    const hash = computeInputsHash({ ...input, metadataYaml: release.metadataYaml });
    const applied = pass.provider.metadata.annotations?.[appliedHashAnnotation];
    const upToDate =
      applied === hash &&
      pass.installedVersion === release.version &&
      isConditionTrue(pass.conditions, ProviderCondition.ProviderInstalled);
    if (upToDate) {
      const deployments = pass.deployments ?? (await listProviderDeployments(kube, pass.provider));
      const desired = computePausedObjects(components.objects, deployments, pass.provider.spec?.paused === true);
      const repaired = await reconcileComponentDeployments(kube, desired, deployments, fieldManager);
      if (repaired.length > 0) {
        pass.changed.push(...repaired);
        pass.deployments = undefined;
      }
      return undefined;
    }

    const who = describeObject(pass.provider.kind, pass.provider.metadata.namespace, pass.provider.metadata.name);
    const previous = pass.installedVersion;
    if (previous !== undefined) {
      try {
        pass.changed.push(...(await deleteComponents(kube, pass.provider)));
      } catch (err) {
        throw new PhaseError(
          `failed to remove the ${previous} components of ${who}: ${errorMessage(err)}`,
          { type: ProviderCondition.ProviderUpgraded, reason: ConditionReason.ComponentsUpgradeError },
          { cause: err },
        );
      }
    }
    const objects = computePausedObjects(
      components.objects,
      pass.deployments ?? [],
      pass.provider.spec?.paused === true,
    );
    try {
      pass.changed.push(...(await applyComponents(kube, objects, fieldManager)));
    } catch (err) {
      throw new PhaseError(
        `failed to install ${who} ${release.version}: ${errorMessage(err)}`,
        { type: ProviderCondition.ProviderInstalled, reason: ConditionReason.InstallFailed },
        { cause: err },
      );
    }
    pass.provider = await patchProvider(
      kube,
      pass.provider,
      { metadata: { annotations: { [appliedHashAnnotation]: hash } } },
      fieldManager,
    );
    pass.deployments = undefined;
    pass.installedVersion = release.version;
    pass.contract = pass.newContract;
    setPassCondition(pass, {
      type: ProviderCondition.ProviderInstalled,
      status: 'True',
      reason: ConditionReason.ProviderInstalled,
      message: 'Provider installed successfully',
    });
    if (previous !== undefined && previous !== release.version) {
      setPassCondition(pass, {
        type: ProviderCondition.ProviderUpgraded,
        status: 'True',
        reason: ConditionReason.ProviderUpgraded,
        message: `Provider upgraded successfully from ${previous} to ${release.version}`,
      });
    }
    return undefined;
  },
};
