// `cluster.x-k8s.io/v1beta2` schemas: the engine's one internal shape (the hub). The v1beta1 schemas in
// `shared/api/*.ts` stay for the edge conversion.
export * from '#shared/api/core/v1beta2/common.ts';
export * from '#shared/api/core/v1beta2/variables.ts';
export * from '#shared/api/core/v1beta2/machine.ts';
export * from '#shared/api/core/v1beta2/machine-health-check.ts';
export * from '#shared/api/core/v1beta2/machine-deployment.ts';
export * from '#shared/api/core/v1beta2/machine-pool.ts';
export * from '#shared/api/core/v1beta2/cluster.ts';
export * from '#shared/api/core/v1beta2/cluster-class.ts';
export * from '#shared/api/core/v1beta2/conditions.ts';
