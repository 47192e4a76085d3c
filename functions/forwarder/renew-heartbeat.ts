// The forwarder's heartbeat: it renews a Kubernetes Lease (free, in its own namespace) every minute, so a check
// elsewhere (shared/health/) can tell a forwarder that stopped from a quiet fleet, and the stack's alarm fires. Each
// renewal carries the result of a fresh probe of the webhooks (probe-webhooks.ts) in an annotation.
import type { KubeClient } from '#shared/kube/client.ts';
import { applyObject, type KubeObject } from '#shared/kube/objects.ts';
import { forwarderHeartbeatIntervalSeconds, forwarderHeartbeatLease } from '#shared/health/forwarder-heartbeat.ts';
import { webhookProbeAnnotation, type WebhookProbeResult } from '#shared/health/webhook-probe.ts';

export type HeartbeatOptions = {
  readonly kube: KubeClient;
  /** The forwarder's namespace (the Lease is created there). */
  readonly namespace?: string;
  /** Who renews it (the pod's name). */
  readonly holder: string;
  readonly intervalSeconds?: number;
  readonly now?: () => Date;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /** Probes the webhooks before each renewal; its result is written on the Lease (none: no annotation). */
  readonly probe?: () => Promise<WebhookProbeResult>;
};

export type Heartbeat = {
  /** Probes and renews the Lease once now (the timer calls it every interval). */
  renew(): Promise<void>;
  /** The last probe's result (for `/metrics`); undefined before the first or without a probe. */
  lastProbe(): WebhookProbeResult | undefined;
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
  probe?: WebhookProbeResult,
): KubeObject {
  return {
    apiVersion: forwarderHeartbeatLease.apiVersion,
    kind: forwarderHeartbeatLease.kind,
    metadata: {
      namespace,
      name: forwarderHeartbeatLease.name,
      ...(probe === undefined ? {} : { annotations: { [webhookProbeAnnotation]: JSON.stringify(probe) } }),
    },
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
  let last: WebhookProbeResult | undefined;
  const renew = async () => {
    try {
      if (options.probe) {
        last = await options.probe();
        const failed = last.targets.filter((t) => t.error !== undefined);
        if (failed.length > 0) options.log?.('webhooks unreachable', { targets: failed });
      }
      await applyObject(options.kube, computeHeartbeatLease(namespace, options.holder, now(), interval, last), {
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
  return { renew, lastProbe: () => last, stop: () => clearInterval(timer) };
}
