// INIT of the bundled functions, measured in a Lambda runtime: each function's bundle as `cdk synth` makes it, served
// by the AWS Lambda Runtime Interface Emulator running the Node runtime interface client on Node 22 (as
// test/integration/runtime/lambda-rie.test.ts runs them), pointed at a real kube-apiserver and DynamoDB Local. Each
// sample starts a fresh emulator (a new execution environment), invokes it once cold and once warm, and records the
// emulator's INIT duration (runtime start to its first /next: Node, the runtime client, the bundle's module load and
// its top-level code, which Lambda bills as INIT) and both invocations' durations. NOTE: the emulator's REPORT line
// says `Init Duration` of its own (well under 1 ms) and folds INIT into the first `Duration`; its `INIT REPORT` log
// line is the runtime's INIT.
//   node --import tsx test/bench/measure-init.ts
//   INIT_SAMPLES (10), INIT_OUT (init-rie: test/bench/results/<INIT_OUT>.json), INIT_FUNCTIONS (every function)
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { applyObject, type KubeObject } from '#shared/kube/index.ts';
import { tickEvent } from '#shared/runtime/events.ts';
import { genericCrd, startManagementCluster } from '#test/support/harness/clusters.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
  type SynthesizedFunction,
} from '#test/support/harness/lambda-rie.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { median, percentile } from '#test/bench/stats.ts';

const samples = Number(process.env['INIT_SAMPLES'] ?? 10);
const out = process.env['INIT_OUT'] ?? 'init-rie';
const only = process.env['INIT_FUNCTIONS']?.split(',');
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sessionToken = `session-${randomUUID()}`;

/**
 * What the emulator logged for the invocations of one execution environment, in order: `INIT REPORT(durationMs: …)`
 * (runtime start to its first /next; cold only) and each `INVOKE RTDONE(… duration: …ms)` (the invocation alone).
 */
function readReports(output: string): { initMs?: number; invocationsMs: number[] } {
  const init = /INIT REPORT\(durationMs: ([\d.]+)\)/.exec(output)?.[1];
  const invocationsMs = [...output.matchAll(/INVOKE RTDONE\([^)]*duration: ([\d.]+)ms\)/g)].map((m) => Number(m[1]));
  return { ...(init ? { initMs: Number(init) } : {}), invocationsMs };
}

/** The event an execution environment is invoked with: a tick for a controller, an unauthorized URL call for webhooks. */
function eventFor(fn: SynthesizedFunction): unknown {
  if (fn.controller === 'webhooks')
    return {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/not-the-token/validate-cluster',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      requestContext: { http: { method: 'POST', path: '/not-the-token/validate-cluster' } },
      body: '{}',
      isBase64Encoded: false,
    };
  return tickEvent(fn.controller as Parameters<typeof tickEvent>[0], randomUUID(), new Date());
}

const summarize = (values: readonly number[]) => ({
  median: median(values),
  p90: percentile(values, 0.9),
  min: Math.min(...values),
  max: Math.max(...values),
  mean: Math.round((values.reduce((s, v) => s + v, 0) / Math.max(1, values.length)) * 100) / 100,
});
const load = () => loadavg().map((l) => Number(l.toFixed(2)));
const started = new Date();
const loadBefore = load();
const [tools, assembly, mgmt, ddb] = await Promise.all([
  getLambdaRuntimeTools(),
  synthesizeApp({ kubeconfigSecretName: 'mgmt-kubeconfig', webhookTokenSecretName: 'webhook-token' }),
  startManagementCluster({
    name: 'measure-init',
    extraCrds: [
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
      genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
    ],
  }),
  startDynamoDB(),
]);
const results: Record<string, unknown> = {};
try {
  const tableName = `measure-init-${process.pid}`;
  const store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName });
  await ensureTable(store);
  store.client.destroy();
  const examples = ['clusterclass.yaml', 'cluster.yaml'].flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(`../../examples/docker/${file}`, import.meta.url), 'utf8')).map(
      (d) => d.toJS() as KubeObject,
    ),
  );
  for (const obj of examples) await applyObject(mgmt.kube, obj, { fieldManager: 'measure-init', force: true });
  const secrets = new Map<string, string>();
  const extension = await startSecretsExtension(secrets, sessionToken);
  try {
    for (const fn of assembly.functions) {
      if (only && !only.includes(fn.controller)) continue;
      const accountId = '000000000000';
      const environment = resolveEnvironment(fn, assembly, {
        refsByType: {
          'AWS::DynamoDB::Table': tableName,
          'AWS::Events::EventBus': undefined,
          'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:${ddb.region}:${accountId}:secret:${id}`,
        },
        arnsByType: { 'AWS::IAM::Role': (id) => `arn:aws:iam::${accountId}:role/${id}` },
        region: ddb.region,
        accountId,
      });
      const kubeconfigSecret = environment['KUBECONFIG_SECRET_ARN'];
      const tokenSecret = environment['WEBHOOK_TOKEN_SECRET_ARN'];
      if (kubeconfigSecret) secrets.set(kubeconfigSecret, mgmt.controlPlane.kubeconfig);
      if (tokenSecret) secrets.set(tokenSecret, `init-${randomUUID()}`);
      const bundleBytes = readdirSync(fn.assetDir)
        .filter((f) => /\.(m?js|cjs)$/.test(f))
        .reduce((s, f) => s + statSync(join(fn.assetDir, f)).size, 0);
      const cold: { initMs: number; coldMs: number; warmMs: number; loadAverage1m: number }[] = [];
      for (let i = 0; i < samples; i++) {
        // NOTE: the load average when each sample starts is kept with it: this 2-core machine is shared.
        const emulated = await startEmulatedFunction(fn, tools, {
          ...environment,
          AWS_REGION: ddb.region,
          AWS_DEFAULT_REGION: ddb.region,
          AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
          AWS_SESSION_TOKEN: sessionToken,
          DYNAMODB_ENDPOINT: ddb.endpoint,
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
          POWERTOOLS_TRACE_ENABLED: 'false',
        });
        try {
          const first = await emulated.invoke(eventFor(fn));
          const second = await emulated.invoke(eventFor(fn));
          if (first.status !== 200 || second.status !== 200)
            throw new Error(`${fn.controller}: HTTP ${first.status}/${second.status}\n${emulated.process.tail(40)}`);
          // NOTE: the emulator prints REPORT after it answers; give it a moment.
          await new Promise((r) => setTimeout(r, 200));
          const { initMs, invocationsMs } = readReports(emulated.process.tail(400));
          const [coldMs, warmMs] = invocationsMs;
          if (initMs === undefined || coldMs === undefined || warmMs === undefined)
            throw new Error(`${fn.controller}: no INIT REPORT or RTDONE lines\n${emulated.process.tail(40)}`);
          cold.push({ initMs, coldMs, warmMs, loadAverage1m: load()[0] ?? 0 });
          log(`${fn.controller} #${i + 1}: INIT ${initMs} ms, cold ${coldMs} ms, warm ${warmMs} ms`);
        } finally {
          await emulated.stop();
        }
      }
      results[fn.controller] = {
        bundleBytes,
        event: fn.controller === 'webhooks' ? 'a Function URL call with a wrong path token (answered 404)' : 'a tick',
        initMs: summarize(cold.map((c) => c.initMs)),
        coldInvocationMs: summarize(cold.map((c) => c.coldMs)),
        warmInvocationMs: summarize(cold.map((c) => c.warmMs)),
        samples: cold,
      };
    }
  } finally {
    await extension.stop();
  }
} finally {
  await Promise.all([mgmt.stop(), ddb.stop()]);
  assembly.remove();
}
const result = {
  date: started.toISOString(),
  finished: new Date().toISOString(),
  machine: machineDescription(),
  node: process.version,
  loadAverage: { before: loadBefore, after: load() },
  method:
    "aws-lambda-rie + aws-lambda-ric on Node 22, one fresh emulator per sample: the emulator's INIT REPORT durationMs (runtime start to first /next) and the INVOKE RTDONE duration of a cold and a warm invocation",
  samplesPerFunction: samples,
  functions: results,
};
const target = new URL(`results/${out}.json`, import.meta.url);
await writeFormatted(target, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${target.pathname}`);
