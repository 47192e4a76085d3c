// The only door to Kubernetes: a counted HTTP client from a kubeconfig, typed object reads and writes with
// server-side apply, and errors mapped once to NotFound / Conflict / Invalid / Forbidden with the server's message.
export * from '#shared/kube/client.ts';
export * from '#shared/kube/errors.ts';
export * from '#shared/kube/objects.ts';
export * from '#shared/kube/resources.ts';
export * from '#shared/kube/workload.ts';
export * from '#shared/kube/crds.ts';
export * from '#shared/kube/watch.ts';
export * from '#shared/kube/versions.ts';
export * from '#shared/kube/hub-objects.ts';
