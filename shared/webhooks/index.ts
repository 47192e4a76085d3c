// Admission webhooks (validating and mutating) for ClusterClass, Cluster topologies, ClusterResourceSets and provider
// objects, served by one Lambda behind a Function URL; the rules reuse the topology engine's validation code.
export * from '#shared/webhooks/admission-review.ts';
export * from '#shared/webhooks/admission-status.ts';
export * from '#shared/webhooks/create-webhooks-handler.ts';
export * from '#shared/webhooks/current/webhook-reader.ts';
export * from '#shared/webhooks/review-admission.ts';
