// Liveness of what no invocation sees fail: the forwarder renews a Kubernetes Lease (its heartbeat), a check reads it
// and reports what is wrong as the `Unhealthy` metric the stack's one alarm watches (infra/alarms.ts).
export * from '#shared/health/forwarder-heartbeat.ts';
export * from '#shared/health/webhook-probe.ts';
export * from '#shared/health/compute-forwarder-health.ts';
export * from '#shared/health/check-health.ts';
