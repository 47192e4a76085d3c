// The provider operator: installs, upgrades and deletes Cluster API providers declared as CoreProvider,
// BootstrapProvider, … objects, processing their components exactly as clusterctl and the upstream operator do.
export * from '#shared/providers/desired/compute-image-overrides.ts';
export * from '#shared/providers/desired/compute-inputs-hash.ts';
export * from '#shared/providers/desired/compute-manifest-patches.ts';
export * from '#shared/providers/desired/compute-metadata-contract.ts';
export * from '#shared/providers/desired/compute-provider-components.ts';
export * from '#shared/providers/desired/compute-target-namespace.ts';
export * from '#shared/providers/desired/compute-variable-substitution.ts';
export * from '#shared/providers/desired/customize-deployment.ts';
export * from '#shared/providers/desired/label-selector.ts';
export * from '#shared/providers/desired/parse-components-yaml.ts';
export * from '#shared/providers/desired/provider-components-error.ts';
export * from '#shared/providers/desired/semver.ts';
export * from '#shared/providers/desired/sha256.ts';
