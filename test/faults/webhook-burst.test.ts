// Fault: a burst of Cluster writes at the admission webhooks, admission faults as a kubectl user meets them, and
// hostile inputs through the webhooks. A real kube-apiserver (with upstream's core manager running beside
// capi-serverless, as in docs/beside-upstream.md, making its normal traffic) calls the webhooks function as `cdk synth`
// bundles it, in the AWS Lambda Runtime Interface Emulator, over HTTPS through a Function URL stand-in
// (test/support/harness/function-url-pool.ts says what is modelled).
// The burst is sized to what this machine runs: a calibration (20 writes, one at a time) measures the slowest
// admission call, and the burst (topology Cluster creates within 10 s by four writers, open loop) is sized to ask for
// at most half of the containers (default 10, each initialized and given one admission first); none may be refused.
// The same burst at a reserved concurrency of 1, below the concurrency the first burst asked for, must be refused in
// part (so the check can fail). From the first burst's measured call durations and cold starts, the row models the concurrency
// issue 34's burst (500 within 10 s) asks for, against the stack's default reservation. Then the webhook made slow,
// throttled and unreachable in turn: what `kubectl apply` prints, and that every refused write is stored when resent.
// Then a catastrophic-backtracking pattern (ReDoS) and an expensive CEL rule go through the same webhooks.
// Writes test/faults/results/webhook-burst.json.
//   BURST_WEBHOOK_CONTAINERS=<n>   emulated containers (default 10: what 2 cores run beside the API server)
//   BURST_WEBHOOK_CONCURRENCY=<n>  reserved concurrency of the fitting burst (default: the containers)
//   BURST_WEBHOOK_PROVISIONED=<n>  containers initialized before the bursts, as provisioned concurrency (default: all)
//   BURST_WRITES=<n>, BURST_WINDOW_MS=<ms>  the burst (default: sized by the calibration, within 10,000 ms)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import {
  applyObject,
  createKubeClient,
  createObject,
  KubeInvalidError,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { ClusterBuilder, ClusterClassBuilder } from '#test/support/builders/topology.ts';
import {
  startFunctionUrlPool,
  type FunctionUrlPool,
  type FunctionUrlRecord,
} from '#test/support/harness/function-url-pool.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
  type CloudAssembly,
  type EmulatedFunction,
} from '#test/support/harness/lambda-rie.ts';
import { startUpstreamManagementCluster } from '#test/support/harness/upstream-capi.ts';
import { loadWebhookConfigurations } from '../../infra/webhooks/webhook-manifests.ts';
import { defaultWebhookReservedConcurrency } from '../../infra/webhooks/webhooks-function.ts';

const containerCount = Number(process.env['BURST_WEBHOOK_CONTAINERS'] ?? 10);
const concurrency = Number(process.env['BURST_WEBHOOK_CONCURRENCY'] ?? containerCount);
const provisioned = Number(process.env['BURST_WEBHOOK_PROVISIONED'] ?? containerCount);
const writesOverride = process.env['BURST_WRITES'] === undefined ? undefined : Number(process.env['BURST_WRITES']);
const windowMs = Number(process.env['BURST_WINDOW_MS'] ?? 10_000);
// NOTE: issue 34's burst, for the modelled sizing: 500 topology Cluster creates within 10 s.
const targetWrites = 500;
const targetWindowMs = 10_000;
const belowNeedConcurrency = 1;
// NOTE: the fitting burst asks for at most half the reserved containers at the calibration's slowest call.
const headroom = 2;
const calibrationWrites = 20;
const writers = 4;
const fieldManager = 'burst-test';
const pathToken = `burst-${randomUUID()}`;
const sessionToken = `session-${randomUUID()}`;
const resultsPath = new URL('./results/webhook-burst.json', import.meta.url);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Mgmt = Awaited<ReturnType<typeof startUpstreamManagementCluster>>;
let mgmt: Mgmt;
let assembly: CloudAssembly;
let extension: Awaited<ReturnType<typeof startSecretsExtension>>;
let pool: FunctionUrlPool;
const containers: EmulatedFunction[] = [];
let coldStartsMs: number[] = [];
let firstAdmissionsMs: number[] = [];

/** A Function URL event (payload format 2.0), as the pool makes of a request. */
function functionUrlEvent(path: string, body: string) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
    requestContext: { http: { method: 'POST', path } },
  };
}
const rows: Record<string, unknown>[] = [];

const asKube = (o: unknown) => o as KubeObject;
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

function clusterClass(name: string, schema: Record<string, unknown>): ClusterClass {
  return new ClusterClassBuilder(name)
    .variables([{ name: 'v', required: false, schema: { openAPIV3Schema: schema } }])
    .build();
}

function cluster(name: string, className: string, value?: unknown): Cluster {
  return new ClusterBuilder(name)
    .with((c) => {
      delete c.metadata.uid;
      c.spec!.topology!.classRef = { name: className };
      if (value === undefined) delete c.spec!.topology!.variables;
      else c.spec!.topology!.variables = [{ name: 'v', value }];
    })
    .build();
}

/** The sum of a Prometheus counter's series on the core manager's diagnostics endpoint. */
async function coreManagerCounter(name: string): Promise<number> {
  const url = mgmt.upstream.managers.core?.diagnosticsUrl;
  if (!url) return 0;
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Runs the kubectl on PATH against the management cluster. */
function kubectl(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '--namespace', 'default', ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - startedAt,
        }),
    );
  });
}

/** kubectl's error without the patch it prints before the server's message on a refused update. */
function summarizeKubectlError(stderr: string): string {
  const first = stderr.trim().split('\n')[0] ?? '';
  const message = /Internal error occurred: .*/.exec(stderr)?.[0];
  return message === undefined || first.includes(message) ? first : `${first} … ${message}`;
}

/** kube-apiserver's `apiserver_admission_webhook_rejection_count`, summed by webhook and error type. */
async function admissionRejections(): Promise<Record<string, number>> {
  const { stdout } = await kubectl(['get', '--raw', '/metrics']);
  const counts: Record<string, number> = {};
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_admission_webhook_rejection_count{')) continue;
    const name = /name="([^"]*)"/.exec(line)?.[1] ?? '';
    const errorType = /error_type="([^"]*)"/.exec(line)?.[1] ?? '';
    const key = `${name} ${errorType}`;
    counts[key] = (counts[key] ?? 0) + Number(line.split(' ').at(-1));
  }
  return counts;
}

async function waitForWebhooks(): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    let last: unknown;
    const calls = pool.records.length;
    try {
      // NOTE: a Cluster of a missing class is admitted with a warning (as upstream): what tells that the webhooks
      // were called is the Function URL's record of the call.
      await createObject(mgmt.kube, asKube(cluster('probe', 'missing')), { fieldManager, dryRun: true });
      if (pool.records.slice(calls).some((r) => r.status === 200)) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `webhooks were not called within 90 s: ${String(last)}; calls ${JSON.stringify(pool.records)}\n` +
          containers.map((c) => c.process.tail(20)).join('\n'),
      );
    await sleep(500);
  }
}

before(async () => {
  let tools: { rie: string; ric: string };
  [tools, assembly, mgmt] = await Promise.all([
    getLambdaRuntimeTools(),
    synthesizeApp({ kubeconfigSecretName: 'mgmt-kubeconfig', webhookTokenSecretName: 'webhook-token' }),
    startUpstreamManagementCluster({ name: 'burst', upstream: { managers: ['core'] } }),
  ]);
  const fn = assembly.functions.find((f) => f.controller === 'webhooks');
  assert.ok(fn, 'the template has the webhooks function');
  const secrets = new Map<string, string>();
  extension = await startSecretsExtension(secrets, sessionToken);
  const environment = resolveEnvironment(fn, assembly, {
    refsByType: {
      'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}`,
    },
    region: 'us-east-1',
    accountId: '000000000000',
  });
  for (const [variable, value] of [
    ['KUBECONFIG_SECRET_ARN', mgmt.controlPlane.kubeconfig],
    ['WEBHOOK_TOKEN_SECRET_ARN', pathToken],
  ] as const) {
    const id = environment[variable];
    assert.ok(id, `the webhooks function names ${variable}`);
    secrets.set(id, value);
  }
  // NOTE: the stack's 9 s function timeout, under the webhooks' 10 s timeoutSeconds.
  for (let i = 0; i < containerCount; i++)
    containers.push(
      await startEmulatedFunction(
        fn,
        tools,
        {
          ...environment,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
          AWS_SESSION_TOKEN: sessionToken,
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
          POWERTOOLS_TRACE_ENABLED: 'false',
          POWERTOOLS_LOG_LEVEL: 'WARN',
        },
        9,
      ),
    );
  pool = await startFunctionUrlPool(containers);
  for (const object of loadWebhookConfigurations({ baseUrl: `${pool.url}/${pathToken}`, caBundle: pool.caBundle }))
    await applyObject(mgmt.kube, object, { fieldManager });
  await applyObject(mgmt.kube, asKube(clusterClass('burst', { type: 'integer', minimum: 1 })), { fieldManager });
  // NOTE: a request without the path token: the function refuses it before reading anything, so this is the init
  // that provisioned concurrency runs. One container after the other, so each cold start is measured alone.
  coldStartsMs = await pool.warm(provisioned, functionUrlEvent('/warm/validate', ''));
  // NOTE: then one dry-run admission each: a container's first admission also builds its Kubernetes client and reads
  // its token and the ClusterClass (provisioned concurrency does not do this part; earlier traffic does).
  firstAdmissionsMs = await pool.warm(
    provisioned,
    functionUrlEvent(
      `/${pathToken}/mutate`,
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: randomUUID(),
          kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Cluster' },
          resource: { group: 'cluster.x-k8s.io', version: 'v1beta2', resource: 'clusters' },
          name: 'warm',
          namespace: 'default',
          operation: 'CREATE',
          object: cluster('warm', 'burst', 2),
          dryRun: true,
          userInfo: { username: 'warm-up' },
        },
      }),
    ),
  );
  await waitForWebhooks();
});

after(async () => {
  writeFileSync(
    resultsPath,
    JSON.stringify(
      {
        date: new Date().toISOString().slice(0, 10),
        containers: containerCount,
        concurrency,
        provisioned,
        coldStartsMs,
        firstAdmissionsMs,
        rows,
      },
      null,
      2,
    ) + '\n',
  );
  await pool?.stop();
  await Promise.all(containers.map((c) => c.stop()));
  await extension?.stop();
  await mgmt?.stop();
  assembly?.remove();
});

/** The most calls in flight at once among `calls` (throttled ones included): the concurrency the traffic asked for. */
function peakOf(calls: readonly FunctionUrlRecord[]): number {
  const edges = calls.flatMap((c) => [
    [c.startedAt, 1],
    [c.startedAt + c.durationMs, -1],
  ]);
  edges.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let now = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (now += step as number));
  return peak;
}

/** `writes` topology Cluster creates named `<prefix><i>`, open loop within `windowMs` by four clients. */
async function runBurst(
  prefix: string,
  reserved: number,
  writes: number,
): Promise<Record<string, unknown> & BurstFigures> {
  pool.setReservedConcurrency(reserved);
  const clients: KubeClient[] = [];
  for (let i = 0; i < writers; i++) clients.push(await createKubeClient({ kubeconfig: mgmt.controlPlane.kubeconfig }));
  const recordsBefore = pool.records.length;
  const [reconcilesBefore, requestsBefore] = await Promise.all([
    coreManagerCounter('controller_runtime_reconcile_total'),
    coreManagerCounter('rest_client_requests_total'),
  ]);
  const errors: string[] = [];
  const latencies: number[] = [];
  const startedAt = Date.now();
  try {
    // NOTE: open loop: write i is sent at i × window / writes whatever the earlier ones are doing.
    await Promise.all(
      Array.from({ length: writes }, async (_, i) => {
        await sleep(startedAt + (i * windowMs) / writes - Date.now());
        const sentAt = Date.now();
        try {
          await createObject(clients[i % writers] as KubeClient, asKube(cluster(`${prefix}${i}`, 'burst', 2)), {
            fieldManager,
          });
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err));
        }
        latencies.push(Date.now() - sentAt);
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  const burstMs = Date.now() - startedAt;
  // The core manager's traffic while the burst lasted and a little after (it reconciles the new Clusters).
  await sleep(5_000);
  const [reconcilesAfter, requestsAfter] = await Promise.all([
    coreManagerCounter('controller_runtime_reconcile_total'),
    coreManagerCounter('rest_client_requests_total'),
  ]);
  const calls = pool.records.slice(recordsBefore);
  const served = calls.filter((r) => r.status !== 429);
  const admitted = calls.filter((r) => r.status === 200).map((r) => r.durationMs);
  // NOTE: Little's law: the mean concurrency the calls kept busy is their total duration over the time they spanned.
  const spanMs = Math.max(...calls.map((c) => c.startedAt + c.durationMs)) - Math.min(...calls.map((c) => c.startedAt));
  const busyMs = served.reduce((sum, c) => sum + c.durationMs, 0);
  // NOTE: a loaded machine's API server may not answer the LIST within the client's 30 s: ask again (3 times).
  const listClusters = () =>
    listObjects(mgmt.kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default' });
  const { items } = await listClusters().catch(listClusters).catch(listClusters);
  const created = items.filter((c) => new RegExp(`^${prefix}\\d+$`).test(c.metadata.name ?? '')).length;
  return {
    fault: `webhook burst: ${writes} topology Cluster creates in ${windowMs / 1000} s (${writers} writers) beside upstream's core manager, reserved concurrency ${reserved}`,
    reservedConcurrency: reserved,
    provisioned,
    writes,
    burstMs,
    // NOTE: a write the client gave up on (no answer within its 30 s) may still have been stored: what counts as
    // refused is a Cluster that does not exist at the end.
    refused: writes - created,
    created,
    clientErrors: errors.length,
    clientTimeouts: errors.filter((m) => m.includes('did not answer')).length,
    throttledWrites: errors.filter((m) => m.includes('too many requests')).length,
    webhookTimeouts: errors.filter((m) => m.includes('context deadline exceeded')).length,
    errorMessages: [
      ...new Set(
        errors.map((m) =>
          m
            .replace(new RegExp(`${prefix}\\d+`, 'g'), '<name>')
            .replace(/127\.0\.0\.1:\d+/g, '<server>')
            .replace(/burst-[0-9a-f-]+/g, '<token>')
            .slice(0, 300),
        ),
      ),
    ].slice(0, 5),
    writeP50Ms: percentile(latencies, 50),
    writeP99Ms: percentile(latencies, 99),
    admissionCalls: calls.length,
    admissionMeanMs: Math.round(admitted.reduce((a, b) => a + b, 0) / Math.max(1, admitted.length)),
    admissionP50Ms: percentile(admitted, 50),
    admissionP99Ms: percentile(admitted, 99),
    admissionMaxMs: Math.max(0, ...admitted),
    throttled: calls.filter((r) => r.status === 429).length,
    functionFailed: calls.filter((r) => r.status === 502).length,
    coldStarts: calls.filter((r) => r.cold).length,
    callsPerSecond: Math.round((calls.length / spanMs) * 1000 * 10) / 10,
    meanConcurrency: Math.round((busyMs / spanMs) * 100) / 100,
    peakDemandedConcurrency: peakOf(calls),
    containersUsed: new Set(calls.map((r) => r.container).filter((c) => c !== undefined)).size,
    upstreamCoreReconciles: reconcilesAfter - reconcilesBefore,
    upstreamCoreRequests: requestsAfter - requestsBefore,
  };
}

type BurstFigures = {
  readonly writes: number;
  readonly refused: number;
  readonly created: number;
  readonly throttled: number;
  readonly admissionCalls: number;
  readonly admissionMeanMs: number;
  readonly admissionP99Ms: number;
  readonly meanConcurrency: number;
  readonly peakDemandedConcurrency: number;
  readonly upstreamCoreReconciles: number;
};

let fitting: (Record<string, unknown> & BurstFigures) | undefined;

describe('admission under a burst and hostile inputs, through the bundled webhooks function', () => {
  test(`a burst sized from the measured call duration to fit reserved concurrency ${concurrency}, beside upstream's core manager: none refused`, async () => {
    // Calibration: one write at a time; the slowest admission call sizes the burst.
    const calibrationStart = pool.records.length;
    for (let i = 0; i < calibrationWrites; i++)
      await createObject(mgmt.kube, asKube(cluster(`cal-${i}`, 'burst', 2)), { fieldManager });
    const calibrationCalls = pool.records.slice(calibrationStart).filter((r) => r.status === 200);
    const slowestCallMs = Math.max(...calibrationCalls.map((r) => r.durationMs));
    const calibrationCallsPerWrite = calibrationCalls.length / calibrationWrites;
    // NOTE: concurrency asked = calls/s × call duration; at the slowest call it is 1/headroom of the reservation.
    const fittingCallsPerSecond = concurrency / headroom / (slowestCallMs / 1000);
    const writes =
      writesOverride ??
      Math.max(
        10,
        Math.min(targetWrites, Math.floor(((fittingCallsPerSecond / calibrationCallsPerWrite) * windowMs) / 1000)),
      );
    const row = {
      ...(await runBurst('b-', concurrency, writes)),
      calibration: {
        writes: calibrationWrites,
        calls: calibrationCalls.length,
        p50Ms: percentile(
          calibrationCalls.map((r) => r.durationMs),
          50,
        ),
        slowestCallMs,
        sizedWrites: writes,
      },
    };
    fitting = row;
    // Modelled, from this burst's measured calls: what issue 34's burst asks of the deployed function.
    const callsPerWrite = row.admissionCalls / row.writes;
    const targetCallsPerSecond = (targetWrites * callsPerWrite) / (targetWindowMs / 1000);
    const coldStartP50Ms = percentile(coldStartsMs, 50);
    const model = {
      modelled: `${targetWrites} writes in ${targetWindowMs / 1000} s = ${Math.round(targetCallsPerSecond)} admission calls/s (${callsPerWrite.toFixed(2)} per write, measured); need = calls/s × call duration (Little's law)`,
      warmNeedAtMean: Math.ceil((targetCallsPerSecond * row.admissionMeanMs) / 1000),
      warmNeedAtP99: Math.ceil((targetCallsPerSecond * row.admissionP99Ms) / 1000),
      coldStartP50Ms,
      coldBurstNeed: Math.ceil((targetCallsPerSecond * (coldStartP50Ms + row.admissionMeanMs)) / 1000),
      defaultReservedConcurrency: defaultWebhookReservedConcurrency,
      functionUrlRequestsPerSecondCap: 10 * defaultWebhookReservedConcurrency,
    };
    rows.push({ ...row, model, lost: 0, duplicated: 0, wrong: 0 });
    process.stdout.write(`\n${JSON.stringify({ ...row, model }, null, 2)}\n`);
    assert.ok(row.upstreamCoreReconciles > 0, `upstream's core manager reconciled meanwhile (${JSON.stringify(row)})`);
    assert.equal(row.refused, 0, `no write refused (${JSON.stringify(row)})`);
    assert.equal(row.created, row.writes, JSON.stringify(row));
  });

  test(`the same burst at reserved concurrency ${belowNeedConcurrency}, below the concurrency it asks for, is refused in part`, async () => {
    assert.ok(fitting, 'the fitting burst ran first');
    // NOTE: the premise: the traffic asked for more than one container at once in the fitting burst.
    assert.ok(fitting.peakDemandedConcurrency > belowNeedConcurrency, JSON.stringify(fitting));
    const row = await runBurst('u-', belowNeedConcurrency, fitting.writes);
    pool.setReservedConcurrency(containerCount);
    rows.push({ ...row, lost: 0, duplicated: 0, wrong: 0 });
    process.stdout.write(`\n${JSON.stringify(row, null, 2)}\n`);
    assert.ok(row.throttled > 0, `calls were throttled (${JSON.stringify(row)})`);
    assert.ok(row.refused > 0, `writes were refused (${JSON.stringify(row)})`);
  });

  // The webhook slow, throttled and unreachable, one at a time, as a kubectl user meets it: a new Cluster and a change
  // to an existing one are applied during the fault, then again once it cleared (what the user does after an error).
  const admissionFaults = [
    {
      fault: 'webhook slow: each call answered after 3 s (under timeoutSeconds 10)',
      inject: () => pool.setDelay(3_000),
      clear: () => pool.setDelay(0),
      refused: false,
    },
    {
      fault: 'webhook slow: each call answered after 11 s (past timeoutSeconds 10)',
      inject: () => pool.setDelay(11_000),
      clear: () => pool.setDelay(0),
      refused: true,
    },
    {
      fault: 'webhook throttled: reserved concurrency 0 (every call 429 TooManyRequestsException)',
      inject: () => pool.setReservedConcurrency(0),
      clear: () => pool.setReservedConcurrency(containerCount),
      refused: true,
    },
    {
      fault: 'webhook unreachable: the Function URL refuses connections',
      inject: () => pool.pause(),
      clear: () => pool.resume(),
      refused: true,
    },
  ] as const;
  admissionFaults.forEach((scenario, index) => {
    test(`${scenario.fault}: what kubectl apply prints, and every write stored once resent`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'capi-admission-fault-'));
      try {
        const existing = `adm-${index}-existing`;
        const created = `adm-${index}-new`;
        const file = (name: string, value: number) => {
          const path = join(dir, `${name}-${value}.json`);
          writeFileSync(path, JSON.stringify(cluster(name, 'burst', value)));
          return path;
        };
        const before = await kubectl(['apply', '-f', file(existing, 2)]);
        assert.equal(before.code, 0, before.stderr);
        const rejectionsBefore = await admissionRejections();
        const callsBefore = pool.records.length;
        await scenario.inject();
        const during = [
          await kubectl(['apply', '-f', file(created, 2)]),
          await kubectl(['apply', '-f', file(existing, 3)]),
        ];
        await scenario.clear();
        const calls = pool.records.slice(callsBefore);
        const rejections = await admissionRejections();
        const afterFault = [
          await kubectl(['apply', '-f', file(created, 2)]),
          await kubectl(['apply', '-f', file(existing, 3)]),
        ];
        const valueOf = async (name: string) => {
          const got = await kubectl(['get', 'cluster', name, '-o', 'jsonpath={.spec.topology.variables[0].value}']);
          return got.code === 0 ? got.stdout : `missing (${got.stderr.trim()})`;
        };
        const stored = { [created]: await valueOf(created), [existing]: await valueOf(existing) };
        const row = {
          fault: scenario.fault,
          kubectlDuringFault: during.map((r) => ({
            exitCode: r.code,
            seconds: Math.round(r.ms / 100) / 10,
            // NOTE: kubectl prints the whole patch before the server's message on a refused update: keep its first
            // line and the message.
            stderr: summarizeKubectlError(r.stderr)
              .replace(/127\.0\.0\.1:\d+/g, '<url>')
              .replace(/burst-[0-9a-f-]+/g, '<token>')
              .slice(0, 400),
          })),
          kubectlAfterFault: afterFault.map((r) => r.code),
          functionCalls: {
            answered: calls.filter((c) => c.status === 200).length,
            throttled: calls.filter((c) => c.status === 429).length,
          },
          apiserverRejections: Object.fromEntries(
            Object.entries(rejections)
              .map(([k, v]) => [k, v - (rejectionsBefore[k] ?? 0)] as const)
              .filter(([, v]) => v > 0),
          ),
          storedAfterResend: stored,
          lost: (stored[created] === '2' ? 0 : 1) + (stored[existing] === '3' ? 0 : 1),
          duplicated: 0,
          wrong: 0,
        };
        rows.push(row);
        process.stdout.write(`\n${JSON.stringify(row, null, 2)}\n`);
        for (const r of during) assert.equal(r.code !== 0, scenario.refused, JSON.stringify(row));
        assert.deepEqual(
          afterFault.map((r) => r.code),
          [0, 0],
          JSON.stringify(row),
        );
        assert.equal(row.lost, 0, JSON.stringify(row));
      } finally {
        await scenario.clear();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  test('a catastrophic-backtracking variable pattern is refused with its OpenAPI message, as fast as a plain bad value', async () => {
    await applyObject(mgmt.kube, asKube(clusterClass('redos', { type: 'string', pattern: '^(a+)+$' })), {
      fieldManager,
    });
    await applyObject(mgmt.kube, asKube(clusterClass('plain', { type: 'string', maxLength: 3 })), { fieldManager });
    // The same webhooks refusing an ordinary bad value, for comparison.
    const baselineStart = performance.now();
    await assert.rejects(
      createObject(mgmt.kube, asKube(cluster('plain', 'plain', 'abcd')), { fieldManager }),
      KubeInvalidError,
    );
    const baselineMs = Math.round(performance.now() - baselineStart);
    const value = `${'a'.repeat(40)}!`;
    const start = performance.now();
    const err = await createObject(mgmt.kube, asKube(cluster('redos', 'redos', value)), { fieldManager }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const answerMs = Math.round(performance.now() - start);
    assert.ok(err instanceof KubeInvalidError, String(err));
    assert.match(err.message, /should match '\^\(a\+\)\+\$'/);
    const row = {
      fault: "ReDoS: pattern '^(a+)+$' against 40 × 'a' + '!' through the real webhooks",
      answerMs,
      baselineMs,
      answer: 'refused (Invalid): should match',
      lost: 0,
      duplicated: 0,
      wrong: 0,
    };
    rows.push(row);
    process.stdout.write(`\n${JSON.stringify(row)}\n`);
    // NOTE: JavaScript's backtracking RegExp took minutes on this input; RE2 semantics answer like any bad value. The
    // bound is the webhooks' timeout less a margin, as a loaded machine adds seconds to every write alike.
    assert.ok(answerMs < 8_000, JSON.stringify(row));
  });

  test('an expensive CEL rule (O(n²) over a 1,000-item list) is refused at the per-call cost limit, within the timeout', async () => {
    // NOTE: maxItems 1,000 keeps the rule under upstream's static cost estimate, so the class is admitted and the value
    // is refused by the per-call runtime limit (as in test/integration/webhooks/webhooks.test.ts).
    const items = 1_000;
    await applyObject(
      mgmt.kube,
      asKube(
        // NOTE: upstream refuses rules on a top-level array (no CEL declarations for it), so the list is a field.
        clusterClass('cel-cost', {
          type: 'object',
          properties: { list: { type: 'array', maxItems: items, items: { type: 'integer' } } },
          'x-kubernetes-validations': [{ rule: 'self.list.all(x, self.list.exists(y, y == x))' }],
        }),
      ),
      { fieldManager },
    );
    const start = performance.now();
    const err = await createObject(
      mgmt.kube,
      asKube(cluster('cel-cost', 'cel-cost', { list: Array.from({ length: items }, (_, i) => i) })),
      { fieldManager },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    const answerMs = Math.round(performance.now() - start);
    const row = {
      fault: `CEL cost: rule 'self.list.all(x, self.list.exists(y, y == x))' over ${items} integers through the real webhooks`,
      answerMs,
      answer:
        err === undefined ? 'admitted' : `refused: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
      lost: 0,
      duplicated: 0,
      wrong: 0,
    };
    rows.push(row);
    process.stdout.write(`\n${JSON.stringify(row)}\n`);
    assert.ok(err instanceof KubeInvalidError, String(err));
    assert.match(err.message, /call cost exceeds limit for rule/);
    // NOTE: as for the ReDoS input: the webhooks' timeout less a margin (before the cost limits: admitted after 11 s).
    assert.ok(answerMs < 8_000, JSON.stringify(row));
  });
});
