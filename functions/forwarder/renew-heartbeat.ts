// The forwarder's heartbeat: it renews a Kubernetes Lease (free, in its own namespace) every minute, so a check
// elsewhere (shared/health/) can tell a forwarder that stopped from a quiet fleet, and the stack's alarm fires.
import { applyObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { forwarderHeartbeatIntervalSeconds, forwarderHeartbeatLease } from '#shared/health/forwarder-heartbeat.ts';

export type HeartbeatOptions = {
  readonly kube: KubeClient;
  /** The forwarder's namespace (the Lease is created there). */
  readonly namespace?: string;
  /** Who renews it (the pod's name). */
  readonly holder: string;
  readonly intervalSeconds?: number;
  readonly now?: () => Date;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
};

export type Heartbeat = {
  /** Renews the Lease once now (the timer calls it every interval). */
  renew(): Promise<void>;
  stop(): void;
};

/**
 * The heartbeat Lease as the forwarder applies it (server-side apply, field manager capi-serverless-forwarder).
 *
 * @example
 * computeHeartbeatLease('capi-serverless-system', 'forwarder-abc', new Date(), 60);
 */
export function computeHeartbeatLease(
  namespace: string,
  holder: string,
  now: Date,
  intervalSeconds: number,
): KubeObject {
  return {
    apiVersion: forwarderHeartbeatLease.apiVersion,
    kind: forwarderHeartbeatLease.kind,
    metadata: { namespace, name: forwarderHeartbeatLease.name },
    spec: {
      holderIdentity: holder,
      // NOTE: three missed renewals before the check calls the heartbeat stale.
      leaseDurationSeconds: 3 * intervalSeconds,
      // NOTE: MicroTime, which the API server wants with microseconds.
      renewTime: now.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    },
  } as KubeObject;
}

/**
 * Renews the heartbeat now and then every interval; a failed renewal is logged and retried at the next one.
 *
 * @example
 * const heartbeat = startHeartbeat({ kube, holder: process.env.HOSTNAME ?? 'forwarder' });
 * process.on('SIGTERM', () => heartbeat.stop());
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const interval = options.intervalSeconds ?? forwarderHeartbeatIntervalSeconds;
  const namespace = options.namespace ?? forwarderHeartbeatLease.namespace;
  const now = options.now ?? (() => new Date());
  const renew = async () => {
    try {
      await applyObject(options.kube, computeHeartbeatLease(namespace, options.holder, now(), interval), {
        fieldManager: 'capi-serverless-forwarder',
        force: true,
      });
    } catch (err) {
      options.log?.('heartbeat renewal failed', { error: err instanceof Error ? err.message : String(err) });
    }
  };
  const timer = setInterval(() => void renew(), interval * 1000);
  timer.unref();
  void renew();
  return { renew, stop: () => clearInterval(timer) };
}
