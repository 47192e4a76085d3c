// Fault: a burst of Cluster writes at the admission webhooks, and hostile inputs through them. A real kube-apiserver
// (with upstream's core manager running beside capi-serverless, as in docs/beside-upstream.md, making its normal
// traffic) calls the webhooks function as `cdk synth` bundles it, in the AWS Lambda Runtime Interface Emulator, over
// HTTPS through a Function URL stand-in with as many containers as the stack reserves (test/support/harness/function-url-pool.ts
// says what is modelled). 500 topology Clusters are created within 10 s by four writers; every write the API server
// refuses is counted, with the admission latency the API server waited on (p50/p99) and the throttled calls. Then a
// catastrophic-backtracking pattern (ReDoS) and an expensive CEL rule go through the same webhooks (answer time).
// Writes test/faults/results/webhook-burst.json.
//   BURST_WEBHOOK_CONCURRENCY=<n>  containers (default: the stack's webhookReservedConcurrency default)
//   BURST_WEBHOOK_PROVISIONED=<n>  containers initialized before the burst, as provisioned concurrency (default 0)
//   BURST_WRITES=<n>, BURST_WINDOW_MS=<ms>  the burst (default 500 in 10,000 ms)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
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
import { startFunctionUrlPool, type FunctionUrlPool } from '#test/support/harness/function-url-pool.ts';
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

const concurrency = Number(process.env['BURST_WEBHOOK_CONCURRENCY'] ?? defaultWebhookReservedConcurrency);
const provisioned = Number(process.env['BURST_WEBHOOK_PROVISIONED'] ?? 0);
const writes = Number(process.env['BURST_WRITES'] ?? 500);
const windowMs = Number(process.env['BURST_WINDOW_MS'] ?? 10_000);
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

async function waitForWebhooks(): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    let last: unknown;
    try {
      await createObject(mgmt.kube, asKube(cluster('probe', 'missing')), { fieldManager, dryRun: true });
    } catch (err) {
      if (err instanceof KubeInvalidError && err.message.includes('ClusterClass default/missing does not exist'))
        return;
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
  for (let i = 0; i < concurrency; i++)
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
  await waitForWebhooks();
  // NOTE: a request without the path token: the function refuses it before reading anything.
  await pool.warm(provisioned, {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/warm/validate',
    rawQueryString: '',
    headers: {},
    body: '',
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/warm/validate' } },
  });
});

after(async () => {
  writeFileSync(
    resultsPath,
    JSON.stringify({ date: new Date().toISOString().slice(0, 10), concurrency, provisioned, rows }, null, 2) + '\n',
  );
  await pool?.stop();
  await Promise.all(containers.map((c) => c.stop()));
  await extension?.stop();
  await mgmt?.stop();
  assembly?.remove();
});

describe('admission under a burst and hostile inputs, through the bundled webhooks function', () => {
  test(`${writes} Cluster writes within ${windowMs / 1000} s beside upstream's core manager: none refused`, async () => {
    await applyObject(mgmt.kube, asKube(clusterClass('burst', { type: 'integer', minimum: 1 })), { fieldManager });
    const clients: KubeClient[] = [];
    for (let i = 0; i < writers; i++)
      clients.push(await createKubeClient({ kubeconfig: mgmt.controlPlane.kubeconfig }));
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
            await createObject(clients[i % writers] as KubeClient, asKube(cluster(`b-${i}`, 'burst', 2)), {
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
    const admitted = calls.filter((r) => r.status === 200).map((r) => r.durationMs);
    // NOTE: a loaded machine's API server may not answer the LIST within the client's 30 s: ask again (3 times).
    const listClusters = () =>
      listObjects(mgmt.kube, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default' });
    const { items } = await listClusters().catch(listClusters).catch(listClusters);
    const created = items.filter((c) => /^b-\d+$/.test(c.metadata.name ?? '')).length;
    const row = {
      fault: `webhook burst: ${writes} topology Cluster creates in ${windowMs / 1000} s (${writers} writers) beside upstream's core manager`,
      concurrency,
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
              .replace(/b-\d+/g, '<name>')
              .replace(/127\.0\.0\.1:\d+/g, '<server>')
              .replace(/burst-[0-9a-f-]+/g, '<token>')
              .slice(0, 300),
          ),
        ),
      ].slice(0, 5),
      writeP50Ms: percentile(latencies, 50),
      writeP99Ms: percentile(latencies, 99),
      admissionCalls: calls.length,
      admissionP50Ms: percentile(admitted, 50),
      admissionP99Ms: percentile(admitted, 99),
      admissionMaxMs: Math.max(0, ...admitted),
      throttled: calls.filter((r) => r.status === 429).length,
      functionFailed: calls.filter((r) => r.status === 502).length,
      coldStarts: calls.filter((r) => r.cold).length,
      coldStartP50Ms: percentile(
        calls.filter((r) => r.cold).map((r) => r.durationMs),
        50,
      ),
      peakDemandedConcurrency: pool.peakDemand(),
      containersUsed: new Set(calls.map((r) => r.container).filter((c) => c !== undefined)).size,
      upstreamCoreReconciles: reconcilesAfter - reconcilesBefore,
      upstreamCoreRequests: requestsAfter - requestsBefore,
      lost: 0,
      duplicated: 0,
      wrong: 0,
    };
    rows.push(row);
    process.stdout.write(`\n${JSON.stringify(row, null, 2)}\n`);
    assert.ok(row.upstreamCoreReconciles > 0, `upstream's core manager reconciled meanwhile (${JSON.stringify(row)})`);
    assert.equal(row.refused, 0, `no write refused (${JSON.stringify(row)})`);
    assert.equal(row.created, writes, JSON.stringify(row));
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

  test("an expensive CEL rule (O(n²) over a 3,000-item list) is answered; today's answer time recorded", async () => {
    const items = 3_000;
    await applyObject(
      mgmt.kube,
      asKube(
        // NOTE: upstream refuses rules on a top-level array (no CEL declarations for it), so the list is a field.
        clusterClass('cel-cost', {
          type: 'object',
          properties: { list: { type: 'array', items: { type: 'integer' } } },
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
      fault: `CEL cost: rule 'self.list.all(x, self.list.exists(y, y == x))' over ${items} integers through the real webhooks (no cost limit yet)`,
      answerMs,
      answer:
        err === undefined ? 'admitted' : `refused: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
      lost: 0,
      duplicated: 0,
      wrong: 0,
    };
    rows.push(row);
    process.stdout.write(`\n${JSON.stringify(row)}\n`);
    // NOTE: no assertion on time: CEL cost limits are being built elsewhere; this row records today's answer.
    assert.ok(answerMs > 0);
  });
});
