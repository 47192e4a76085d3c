// Where the forwarder's heartbeat is kept and how often it is renewed: one Lease in the forwarder's namespace, the
// facts the forwarder (writer) and the health check (reader) share.

/** The heartbeat Lease (coordination.k8s.io/v1) in the forwarder's namespace. */
export const forwarderHeartbeatLease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  namespace: 'capi-serverless-system',
  name: 'capi-serverless-forwarder-heartbeat',
} as const;

/** How often the forwarder renews the Lease (its `spec.leaseDurationSeconds` is three times this). */
export const forwarderHeartbeatIntervalSeconds = 60;
