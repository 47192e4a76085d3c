// The forwarder's container entry point: settings from the environment, in-cluster credentials, the default watch
// list (plus every provider `*Template` kind found among the CRDs), PutEvents to EVENT_BUS_NAME, the HTTP endpoint on
// FORWARDER_HTTP_PORT, the heartbeat Lease with its webhook probe; SIGTERM flushes the outbox and exits. A start-up
// failure is one line on stderr and exit code 1.
import { createKubeClient } from '#shared/kube/client.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { createCredentialsProvider, findCredentialsSource } from '#functions/forwarder/get-aws-credentials.ts';
import { parseForwarderConfig } from '#functions/forwarder/parse-forwarder-config.ts';
import { probeWebhooks } from '#functions/forwarder/probe-webhooks.ts';
import { createPutEventsSink } from '#functions/forwarder/put-events-sink.ts';
import { startHeartbeat } from '#functions/forwarder/renew-heartbeat.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';
import { startHttpServer } from '#functions/forwarder/start-http-server.ts';

const log = (message: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ level: 'INFO', service: 'capi-serverless-forwarder', message, ...fields }));

function exitWith(what: string, err: unknown): never {
  // NOTE: the message only: a stack trace of the minified bundle says nothing to the person reading the pod's log.
  process.stderr.write(`capi-serverless-forwarder: ${what}: ${errorMessage(err).replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const config = parseForwarderConfig(process.env);
  if (findCredentialsSource(process.env) === undefined) {
    throw new Error(
      'no AWS credentials: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run with EKS Pod Identity or IRSA',
    );
  }
  const source = { fromDefault: true } as const;
  const kube = await createKubeClient(source, { userAgent: 'capi-serverless/forwarder' });
  const targets = [...defaultTargets(config.secrets), ...(await discoverProviderTargets(kube))];
  const sink = createPutEventsSink({
    eventBusName: config.eventBusName,
    region: config.region,
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    getCredentials: createCredentialsProvider({ env: process.env, region: config.region }),
  });
  const forwarder = startForwarder({ kube, source, targets, sink, coalesceMs: config.coalesceMs, log });
  const heartbeat = startHeartbeat({
    kube,
    namespace: config.podNamespace,
    holder: config.podName,
    log,
    probe: () => probeWebhooks({ kube }),
  });
  const http = await startHttpServer({
    port: config.httpPort,
    snapshot: () => ({ ...forwarder.snapshot(), webhookProbe: heartbeat.lastProbe() }),
    wedgedAfterMs: config.wedgedAfterMs,
  });
  log('forwarder started', { kinds: targets.map((t) => t.kind), httpPort: http.port });
  const shutdown = async () => {
    log('stopping: flushing pending events');
    heartbeat.stop();
    await forwarder.stop();
    await http.close();
    kube.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

process.on('uncaughtException', (err) => exitWith('stopped', err));
main().catch((err: unknown) => exitWith('cannot start', err));
