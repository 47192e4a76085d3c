// The forwarder's container entry point: in-cluster credentials, the default watch list (plus every provider
// `*Template` kind found among the CRDs), PutEvents to EVENT_BUS_NAME; SIGTERM flushes the outbox and exits.
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import * as z from 'zod';
import { createKubeClient } from '#shared/kube/client.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { createEventBridgeSink } from '#functions/forwarder/eventbridge-sink.ts';
import { startHeartbeat } from '#functions/forwarder/renew-heartbeat.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';

const ForwarderEnv = z.object({
  EVENT_BUS_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1),
  /** Milliseconds a change waits for more changes of the same object. */
  COALESCE_MS: z.coerce.number().int().nonnegative().default(500),
  /** Label selector for Secrets (default: all Secrets; narrow it when ClusterResourceSets use labelled Secrets). */
  SECRET_LABEL_SELECTOR: z.string().optional(),
  /** The forwarder's namespace and pod (downward API): where its heartbeat Lease is renewed, and by whom. */
  POD_NAMESPACE: z.string().min(1).default('capi-serverless-system'),
  POD_NAME: z.string().min(1).default('capi-serverless-forwarder'),
});

async function main(): Promise<void> {
  const env = ForwarderEnv.parse(process.env);
  const log = (message: string, fields: Record<string, unknown> = {}) =>
    console.log(JSON.stringify({ level: 'INFO', service: 'capi-serverless-forwarder', message, ...fields }));
  const source = { fromDefault: true } as const;
  const kube = await createKubeClient(source, { userAgent: 'capi-serverless/forwarder' });
  const targets = [...defaultTargets(env.SECRET_LABEL_SELECTOR), ...(await discoverProviderTargets(kube))];
  const sink = createEventBridgeSink({
    client: new EventBridgeClient({ region: env.AWS_REGION }),
    eventBusName: env.EVENT_BUS_NAME,
  });
  const forwarder = startForwarder({ kube, source, targets, sink, coalesceMs: env.COALESCE_MS, log });
  const heartbeat = startHeartbeat({ kube, namespace: env.POD_NAMESPACE, holder: env.POD_NAME, log });
  log('forwarder started', { kinds: targets.map((t) => t.kind) });
  const shutdown = async () => {
    log('stopping: flushing pending events');
    heartbeat.stop();
    await forwarder.stop();
    kube.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

await main();
