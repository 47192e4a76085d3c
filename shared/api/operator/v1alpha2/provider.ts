// `operator.cluster.x-k8s.io/v1alpha2` provider kinds of the Cluster API Provider Operator (CoreProvider,
// BootstrapProvider, …) sharing ProviderSpec/ProviderStatus, plus clusterctl's `metadata.yaml` (Metadata).
import * as z from 'zod';
import { Conditions } from '#shared/api/core/v1beta1/condition.ts';
import type { KindInfo } from '#shared/api/kind-info.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';
import { duration, listMap, preserveUnknown } from '#shared/api/meta.ts';
import { KubeObjectMeta, LocalObjectReference, StringMap } from '#shared/api/object-meta.ts';

export const operatorGroup = 'operator.cluster.x-k8s.io';
export const operatorVersion = 'v1alpha2';
export const operatorApiVersion = `${operatorGroup}/${operatorVersion}`;

const int32 = () => z.number().int().min(-2147483648).max(2147483647);

/** `corev1.Toleration`. */
export const Toleration = z.object({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().int().optional(),
});
export type Toleration = z.infer<typeof Toleration>;

/** `corev1.EnvVar`; `valueFrom` is kept as is (its shape is the API server's business). */
export const EnvVar = z.object({
  name: z.string().min(1),
  value: z.string().optional(),
  valueFrom: preserveUnknown().optional(),
});
export type EnvVar = z.infer<typeof EnvVar>;

const Quantity = z.union([z.string(), z.number()]).meta({ 'x-kubernetes-int-or-string': true });

/** `corev1.ResourceRequirements`. */
export const ResourceRequirements = z.object({
  limits: z.record(z.string(), Quantity).optional(),
  requests: z.record(z.string(), Quantity).optional(),
  claims: listMap(z.object({ name: z.string().min(1), request: z.string().optional() }), ['name']).optional(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirements>;

/** `corev1.Affinity`, kept as is: it is copied verbatim into the provider Deployment. */
export const Affinity = z
  .object({
    nodeAffinity: preserveUnknown().optional(),
    podAffinity: preserveUnknown().optional(),
    podAntiAffinity: preserveUnknown().optional(),
  })
  .meta({ 'x-kubernetes-preserve-unknown-fields': true });
export type Affinity = z.infer<typeof Affinity>;

/** component-base `LeaderElectionConfiguration`. */
export const LeaderElectionConfiguration = z.object({
  leaderElect: z.boolean().optional(),
  leaseDuration: duration().optional(),
  renewDeadline: duration().optional(),
  retryPeriod: duration().optional(),
  resourceLock: z.string().optional(),
  resourceName: z.string().optional(),
  resourceNamespace: z.string().optional(),
});
export type LeaderElectionConfiguration = z.infer<typeof LeaderElectionConfiguration>;

export const ControllerConfigurationSpec = z.object({
  groupKindConcurrency: z.record(z.string(), z.number().int()).optional(),
  /** Go `time.Duration` in nanoseconds, as upstream serialises it. */
  cacheSyncTimeout: z.number().int().optional(),
  recoverPanic: z.boolean().optional(),
});

export const ControllerMetrics = z.object({
  bindAddress: z.string().optional(),
  diagnosticsAddress: z.string().optional(),
  insecureDiagnostics: z.boolean().optional(),
});

export const ControllerHealth = z.object({
  healthProbeBindAddress: z.string().optional(),
  readinessEndpointName: z.string().optional(),
  livenessEndpointName: z.string().optional(),
});

export const ControllerWebhook = z.object({
  port: z.number().int().optional(),
  host: z.string().optional(),
  certDir: z.string().optional(),
});

/** ManagerSpec: controller-runtime settings rendered into the manager container's flags. */
export const ManagerSpec = z.object({
  syncPeriod: duration().optional(),
  leaderElection: LeaderElectionConfiguration.optional(),
  cacheNamespace: z.string().optional(),
  gracefulShutDown: duration().optional(),
  controller: ControllerConfigurationSpec.optional(),
  metrics: ControllerMetrics.optional(),
  health: ControllerHealth.optional(),
  webhook: ControllerWebhook.optional(),
  profilerAddress: z.string().optional(),
  maxConcurrentReconciles: z.number().int().min(1).optional(),
  /** Defaults to 1 upstream; unset means 1 here too. */
  verbosity: z.number().int().min(0).optional(),
  featureGates: z.record(z.string(), z.boolean()).optional(),
  additionalArgs: StringMap.optional(),
});
export type ManagerSpec = z.infer<typeof ManagerSpec>;

/** Per-container overrides of a provider Deployment. */
export const ContainerSpec = z.object({
  name: z.string().min(1),
  imageUrl: z.string().optional(),
  args: StringMap.optional(),
  env: z.array(EnvVar).optional(),
  resources: ResourceRequirements.optional(),
  command: z.array(z.string()).optional(),
});
export type ContainerSpec = z.infer<typeof ContainerSpec>;

export const DeploymentSpec = z.object({
  replicas: z.number().int().min(0).optional(),
  nodeSelector: StringMap.optional(),
  tolerations: z.array(Toleration).optional(),
  affinity: Affinity.optional(),
  containers: z.array(ContainerSpec).optional(),
  serviceAccountName: z.string().optional(),
  imagePullSecrets: z.array(LocalObjectReference).optional(),
});
export type DeploymentSpec = z.infer<typeof DeploymentSpec>;

export const SecretReference = z.object({ name: z.string().min(1), namespace: z.string().optional() });
export type SecretReference = z.infer<typeof SecretReference>;

export const ConfigmapReference = z.object({ name: z.string().min(1), namespace: z.string().optional() });
export type ConfigmapReference = z.infer<typeof ConfigmapReference>;

const oneFetchSource = 'Must specify one and only one of {oci, url, selector}';
export const FetchConfiguration = z
  .object({ oci: z.string().optional(), url: z.string().optional(), selector: LabelSelector.optional() })
  .refine((f) => [f.oci, f.url, f.selector].filter((x) => x !== undefined).length === 1, { message: oneFetchSource })
  .meta({
    'x-kubernetes-validations': [
      { rule: '[has(self.oci), has(self.url), has(self.selector)].exists_one(x,x)', message: oneFetchSource },
    ],
  });
export type FetchConfiguration = z.infer<typeof FetchConfiguration>;

/** Which rendered objects a `patches[]` entry applies to; empty fields match everything. */
export const PatchSelector = z.object({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  labelSelector: z.string().optional(),
});
export type PatchSelector = z.infer<typeof PatchSelector>;

export const Patch = z.object({ patch: z.string().optional(), target: PatchSelector.optional() });
export type Patch = z.infer<typeof Patch>;

export const AdditionalDeployments = z.object({
  manager: ManagerSpec.optional(),
  deployment: DeploymentSpec.optional(),
});
export type AdditionalDeployments = z.infer<typeof AdditionalDeployments>;

const onePatchKind = "Cannot set both 'patches' and 'manifestPatches'";
export const ProviderSpec = z
  .object({
    version: z.string().optional(),
    manager: ManagerSpec.optional(),
    deployment: DeploymentSpec.optional(),
    configSecret: SecretReference.optional(),
    fetchConfig: FetchConfiguration.optional(),
    additionalManifests: ConfigmapReference.optional(),
    manifestPatches: z.array(z.string()).optional(),
    patches: z.array(Patch).optional(),
    additionalDeployments: z.record(z.string(), AdditionalDeployments).optional(),
    /** capi-serverless extension: when true the operator leaves the provider's components alone. */
    paused: z.boolean().optional(),
  })
  .refine((s) => !(s.manifestPatches !== undefined && s.patches !== undefined), { message: onePatchKind })
  .meta({
    'x-kubernetes-validations': [{ rule: '!(has(self.manifestPatches) && has(self.patches))', message: onePatchKind }],
  });
export type ProviderSpec = z.infer<typeof ProviderSpec>;

export const ProviderStatus = z.object({
  contract: z.string().optional(),
  conditions: Conditions.optional(),
  observedGeneration: z.number().int().optional(),
  installedVersion: z.string().optional(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

/** clusterctl provider types, as `clusterctl.cluster.x-k8s.io/v1alpha3` Provider.type spells them. */
export const ProviderType = {
  CoreProvider: 'CoreProvider',
  BootstrapProvider: 'BootstrapProvider',
  ControlPlaneProvider: 'ControlPlaneProvider',
  InfrastructureProvider: 'InfrastructureProvider',
  AddonProvider: 'AddonProvider',
  IPAMProvider: 'IPAMProvider',
  RuntimeExtensionProvider: 'RuntimeExtensionProvider',
} as const;
export type ProviderType = (typeof ProviderType)[keyof typeof ProviderType];

/**
 * Every operator kind: its plural and short name, the clusterctl provider type it installs, and the prefix clusterctl
 * puts before the provider name in the `cluster.x-k8s.io/provider` label (`infrastructure-aws`).
 */
export const providerKinds = {
  CoreProvider: { plural: 'coreproviders', shortName: 'cacp', providerType: 'CoreProvider', prefix: '' },
  BootstrapProvider: {
    plural: 'bootstrapproviders',
    shortName: 'cabp',
    providerType: 'BootstrapProvider',
    prefix: 'bootstrap-',
  },
  ControlPlaneProvider: {
    plural: 'controlplaneproviders',
    shortName: 'cacpp',
    providerType: 'ControlPlaneProvider',
    prefix: 'control-plane-',
  },
  InfrastructureProvider: {
    plural: 'infrastructureproviders',
    shortName: 'caip',
    providerType: 'InfrastructureProvider',
    prefix: 'infrastructure-',
  },
  AddonProvider: { plural: 'addonproviders', shortName: 'caap', providerType: 'AddonProvider', prefix: 'addon-' },
  IPAMProvider: { plural: 'ipamproviders', shortName: 'caipamp', providerType: 'IPAMProvider', prefix: 'ipam-' },
  RuntimeExtensionProvider: {
    plural: 'runtimeextensionproviders',
    shortName: 'carep',
    providerType: 'RuntimeExtensionProvider',
    prefix: 'runtime-extension-',
  },
} as const satisfies Record<
  ProviderType,
  { plural: string; shortName: string; providerType: ProviderType; prefix: string }
>;
export type ProviderKind = keyof typeof providerKinds;
export const providerKindNames = Object.keys(providerKinds) as ProviderKind[];

function providerSchema<K extends ProviderKind>(kind: K) {
  return z.object({
    apiVersion: z.literal(operatorApiVersion),
    kind: z.literal(kind),
    metadata: KubeObjectMeta,
    spec: ProviderSpec.optional(),
    status: ProviderStatus.optional(),
  });
}

export const CoreProvider = providerSchema('CoreProvider');
export type CoreProvider = z.infer<typeof CoreProvider>;
export const BootstrapProvider = providerSchema('BootstrapProvider');
export type BootstrapProvider = z.infer<typeof BootstrapProvider>;
export const ControlPlaneProvider = providerSchema('ControlPlaneProvider');
export type ControlPlaneProvider = z.infer<typeof ControlPlaneProvider>;
export const InfrastructureProvider = providerSchema('InfrastructureProvider');
export type InfrastructureProvider = z.infer<typeof InfrastructureProvider>;
export const AddonProvider = providerSchema('AddonProvider');
export type AddonProvider = z.infer<typeof AddonProvider>;
export const IPAMProvider = providerSchema('IPAMProvider');
export type IPAMProvider = z.infer<typeof IPAMProvider>;
export const RuntimeExtensionProvider = providerSchema('RuntimeExtensionProvider');
export type RuntimeExtensionProvider = z.infer<typeof RuntimeExtensionProvider>;

/** Any provider object; `kind` tells which. */
export const Provider = z.discriminatedUnion('kind', [
  CoreProvider,
  BootstrapProvider,
  ControlPlaneProvider,
  InfrastructureProvider,
  AddonProvider,
  IPAMProvider,
  RuntimeExtensionProvider,
]);
export type Provider = z.infer<typeof Provider>;

export const providerSchemas = {
  CoreProvider,
  BootstrapProvider,
  ControlPlaneProvider,
  InfrastructureProvider,
  AddonProvider,
  IPAMProvider,
  RuntimeExtensionProvider,
} as const satisfies Record<ProviderKind, z.ZodType>;

/** True for the seven operator kinds. */
export function isProviderKind(kind: string): kind is ProviderKind {
  return Object.hasOwn(providerKinds, kind);
}

/**
 * clusterctl's manifest label for a provider: type prefix + name (`infrastructure-aws`, `cluster-api`).
 *
 * @example
 * computeManifestLabel('InfrastructureProvider', 'aws'); // 'infrastructure-aws'
 */
export function computeManifestLabel(kind: ProviderKind, name: string): string {
  return `${providerKinds[kind].prefix}${name}`;
}

/** CRD registration data for the operator kinds (for `shared/api/kinds.ts`). */
export const operatorKinds: readonly KindInfo[] = providerKindNames.map((kind) => ({
  group: operatorGroup,
  version: operatorVersion,
  kind,
  plural: providerKinds[kind].plural,
  singular: kind.toLowerCase(),
  namespaced: true,
  shortNames: [providerKinds[kind].shortName],
  schema: providerSchemas[kind],
  printerColumns: [
    { name: 'InstalledVersion', type: 'string', jsonPath: '.status.installedVersion' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
  ],
}));

/** One `releaseSeries` entry of a provider's metadata.yaml. */
export const ReleaseSeries = z.object({
  major: int32().min(0).optional(),
  minor: int32().min(0).optional(),
  contract: z.string().optional(),
});
export type ReleaseSeries = z.infer<typeof ReleaseSeries>;

/** clusterctl `metadata.yaml` (`clusterctl.cluster.x-k8s.io/v1alpha3` Metadata). */
export const Metadata = z.object({
  apiVersion: z.literal('clusterctl.cluster.x-k8s.io/v1alpha3'),
  kind: z.literal('Metadata'),
  metadata: z.looseObject({}).optional(),
  releaseSeries: z.array(ReleaseSeries).optional(),
});
export type Metadata = z.infer<typeof Metadata>;
