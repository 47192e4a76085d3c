// Feature-gate combinations of the core manager that cannot work beside capi-serverless (docs/beside-upstream.md,
// in-place updates): upstream's in-place updates need its Runtime SDK client, and the Runtime SDK gate decides which
// side writes ExtensionConfig status. Pure: the providers pass reports the result as a condition on the provider.
import type { ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import { parseFeatureGates } from '#shared/providers/desired/customize-deployment.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';

/** Who discovers ExtensionConfigs and writes their status: capi-serverless's ExtensionConfig pass, or upstream's. */
export const ExtensionConfigDiscovery = { capiServerless: 'capi-serverless', upstream: 'upstream' } as const;
export type ExtensionConfigDiscovery = (typeof ExtensionConfigDiscovery)[keyof typeof ExtensionConfigDiscovery];

/** The condition a conflict sets (False) on the core provider; removed when there is none. */
export const featureGatesCondition = 'FeatureGatesCompatible';

export const FeatureGateConflictReason = {
  InPlaceUpdatesRequiresRuntimeSDK: 'InPlaceUpdatesRequiresRuntimeSDK',
  TwoExtensionConfigWriters: 'TwoExtensionConfigWriters',
  NoExtensionConfigWriter: 'NoExtensionConfigWriter',
} as const;
export type FeatureGateConflictReason = (typeof FeatureGateConflictReason)[keyof typeof FeatureGateConflictReason];

export type FeatureGateConflict = { readonly reason: FeatureGateConflictReason; readonly message: string };

/** The core manager's gates (`--feature-gates` of the `manager` container of its Deployment), or none found. */
function computeCoreManagerGates(objects: readonly ComponentObject[]): Map<string, boolean> | undefined {
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const deployment = deployments.find((o) => (o.metadata.name ?? '').endsWith('-controller-manager')) ?? deployments[0];
  const spec = deployment?.['spec'] as
    { template?: { spec?: { containers?: { name?: string; args?: string[] }[] } } } | undefined;
  const manager = spec?.template?.spec?.containers?.find((c) => c.name === 'manager');
  return manager?.args ? parseFeatureGates(manager.args) : undefined;
}

/**
 * The first conflict between the core manager's feature gates (as the components will run it) and capi-serverless's
 * ExtensionConfig discovery setting, or undefined. Only the core provider's gates matter: its MachineDeployment and
 * Machine controllers refuse to start with `InPlaceUpdates` on and `RuntimeSDK` off (upstream v1.12+: "RuntimeClient
 * must not be nil when InPlaceUpdates feature gate is enabled"), and with `RuntimeSDK` on its ExtensionConfig
 * controller discovers every ExtensionConfig and writes its status (it cannot be switched to read-only).
 *
 * @example
 * computeFeatureGateConflict('CoreProvider', coreObjectsWithInPlaceUpdatesOnly, 'capi-serverless')?.reason;
 * // 'InPlaceUpdatesRequiresRuntimeSDK'
 */
export function computeFeatureGateConflict(
  kind: ProviderKind,
  objects: readonly ComponentObject[],
  discovery: ExtensionConfigDiscovery,
): FeatureGateConflict | undefined {
  if (kind !== 'CoreProvider') return undefined;
  const gates = computeCoreManagerGates(objects);
  if (gates === undefined) return undefined;
  const runtimeSDK = gates.get('RuntimeSDK') === true;
  if (gates.get('InPlaceUpdates') === true && !runtimeSDK) {
    return {
      reason: FeatureGateConflictReason.InPlaceUpdatesRequiresRuntimeSDK,
      message:
        'the core manager runs with InPlaceUpdates=true and RuntimeSDK=false: its MachineDeployment and Machine ' +
        'controllers refuse to start without a Runtime SDK client, so the manager exits; set RuntimeSDK=true ' +
        '(EXP_RUNTIME_SDK: "true" in the config Secret) and EXTENSION_CONFIG_DISCOVERY=upstream on capi-serverless, ' +
        'or turn InPlaceUpdates off',
    };
  }
  if (runtimeSDK && discovery !== ExtensionConfigDiscovery.upstream) {
    return {
      reason: FeatureGateConflictReason.TwoExtensionConfigWriters,
      message:
        "the core manager runs with RuntimeSDK=true, so upstream's ExtensionConfig controller discovers " +
        'ExtensionConfigs and writes their status, and so does capi-serverless (EXTENSION_CONFIG_DISCOVERY=' +
        `${discovery}); set EXTENSION_CONFIG_DISCOVERY=upstream on capi-serverless's functions`,
    };
  }
  if (!runtimeSDK && discovery === ExtensionConfigDiscovery.upstream) {
    return {
      reason: FeatureGateConflictReason.NoExtensionConfigWriter,
      message:
        'capi-serverless leaves ExtensionConfig discovery to upstream (EXTENSION_CONFIG_DISCOVERY=upstream) but the ' +
        'core manager runs with RuntimeSDK=false: nothing discovers ExtensionConfigs; set RuntimeSDK=true ' +
        '(EXP_RUNTIME_SDK: "true") or unset EXTENSION_CONFIG_DISCOVERY',
    };
  }
  return undefined;
}
