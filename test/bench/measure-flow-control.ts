// How many passes of one controller the shipped priority level serves at once: a real kube-apiserver (default
// server concurrency: 400 + 200 seats) with the chart's files/flow-control.yaml, and N workers as the forwarder's
// ServiceAccount (one user: one flow, as each controller's identity is), each sending a pass's requests one at a
// time (GET its ConfigMap, server-side apply it) over its own connection, as N Lambda executions with one pass each
// would. Per step: requests, 429s, client latency, and from the API server's /metrics the level's seats, its queue
// wait and its rejections. Writes test/bench/results/flow-control.json.
//   unshare -rn sh -c 'ip link set lo up && exec "$@"' sh node --import tsx test/bench/measure-flow-control.ts
//   FLOW_STEPS (50,100,200,400,800), FLOW_STEP_SECONDS (5)
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg } from 'node:os';
import { parseAllDocuments, parse } from 'yaml';
import { applyObject, type KubeClient, type KubeObject } from '#shared/kube/index.ts';
import { startManagementCluster } from '#test/support/harness/clusters.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { percentile } from '#test/bench/stats.ts';
import { chartFile } from '../../infra/chart/chart-files.ts';

const steps = (process.env['FLOW_STEPS'] ?? '50,100,200,400,800').split(',').map(Number);
const stepMs = Number(process.env['FLOW_STEP_SECONDS'] ?? 5) * 1000;
const level = 'capi-serverless';
const namespace = 'capi-serverless-system';
const account = 'capi-serverless-forwarder';
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

type Sample = { labels: Record<string, string>; value: number };

/** The samples of one metric family in Prometheus text, filtered by the level. */
function samplesOf(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

const sumOf = (text: string, name: string, where: (l: Record<string, string>) => boolean = () => true) =>
  samplesOf(text, name)
    .filter((s) => s.labels['priority_level'] === level && where(s.labels))
    .reduce((a, s) => a + s.value, 0);

async function scrape(kube: KubeClient): Promise<string> {
  return kube.request<string>({
    method: 'GET',
    path: '/metrics',
    accept: 'text/plain',
    target: { verb: 'get', kind: 'metrics' },
  });
}

type Step = {
  readonly workers: number;
  readonly requests: number;
  readonly throttled429: number;
  readonly otherErrors: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly level: {
    readonly nominalSeats: number;
    readonly currentSeatsMax: number;
    readonly executingMax: number;
    readonly inQueueMax: number;
    readonly rejected: number;
    readonly queuedRequests: number;
    readonly meanQueueWaitMs: number;
  };
  readonly loadAverage1m: number;
};

async function main(): Promise<void> {
  const started = new Date();
  const mgmt = await startManagementCluster({ name: 'flow-control', crds: 'none' });
  try {
    const apply = (o: KubeObject) => applyObject(mgmt.kube, o, { fieldManager: 'flow-bench', force: true });
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace } });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'flow-bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
    } as KubeObject);
    for (const doc of parseAllDocuments(readFileSync(chartFile('flow-control.yaml'), 'utf8')))
      await apply(doc.toJS() as KubeObject);
    const token = (
      await mgmt.kube.request<{ status: { token: string } }>({
        method: 'POST',
        path: `/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`,
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
        target: { verb: 'create', kind: 'TokenRequest', namespace, name: account },
      })
    ).status.token;
    const kubeconfig = parse(mgmt.controlPlane.kubeconfig) as { clusters: { cluster: Record<string, string> }[] };
    const ca = Buffer.from(kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
    const server = new URL(mgmt.controlPlane.server);
    // NOTE: the server's flow-control configuration follows the objects asynchronously.
    for (let i = 0; ; i++) {
      if (
        samplesOf(await scrape(mgmt.kube), 'apiserver_flowcontrol_nominal_limit_seats').some(
          (s) => s.labels['priority_level'] === level,
        )
      )
        break;
      if (i > 60) throw new Error(`priority level ${level} not seen in /metrics`);
      await new Promise((r) => setTimeout(r, 500));
    }

    const results: Step[] = [];
    for (const workers of steps) {
      const agent = new Agent({ keepAlive: true, maxSockets: workers, ca });
      const send = (method: string, path: string, body?: string) =>
        new Promise<{ status: number; ms: number }>((resolve) => {
          const t0 = performance.now();
          const req = request(
            {
              host: server.hostname,
              port: server.port,
              method,
              path,
              agent,
              headers: {
                authorization: `Bearer ${token}`,
                accept: 'application/json',
                ...(body === undefined ? {} : { 'content-type': 'application/apply-patch+yaml' }),
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
            },
          );
          req.on('error', () => resolve({ status: -1, ms: performance.now() - t0 }));
          req.end(body);
        });
      const before = await scrape(mgmt.kube);
      const latencies: number[] = [];
      let throttled = 0;
      let other = 0;
      let currentSeatsMax = 0;
      let executingMax = 0;
      let inQueueMax = 0;
      const stopAt = Date.now() + stepMs;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const text = await scrape(mgmt.kube);
          currentSeatsMax = Math.max(currentSeatsMax, sumOf(text, 'apiserver_flowcontrol_current_limit_seats'));
          executingMax = Math.max(executingMax, sumOf(text, 'apiserver_flowcontrol_current_executing_seats'));
          inQueueMax = Math.max(inQueueMax, sumOf(text, 'apiserver_flowcontrol_current_inqueue_requests'));
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      const t0 = Date.now();
      await Promise.all(
        Array.from({ length: workers }, async (_, w) => {
          const name = `flow-${workers}-${w}`;
          const path = `/api/v1/namespaces/default/configmaps/${name}`;
          const body = JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace: 'default' },
            data: { worker: String(w) },
          });
          for (let round = 0; Date.now() < stopAt; round++) {
            for (const [method, p, b] of [
              ['GET', path, undefined],
              ['PATCH', `${path}?fieldManager=flow-bench&force=true`, body],
            ] as const) {
              const r = await send(method, p, b);
              latencies.push(r.ms);
              if (r.status === 429) throttled++;
              else if (r.status >= 400 && !(r.status === 404 && method === 'GET')) other++;
              else if (r.status < 0) other++;
            }
          }
        }),
      );
      const elapsedS = (Date.now() - t0) / 1000;
      sampling = false;
      await sampler;
      agent.destroy();
      const after = await scrape(mgmt.kube);
      const delta = (name: string, where?: (l: Record<string, string>) => boolean) =>
        sumOf(after, name, where) - sumOf(before, name, where);
      const queued = delta('apiserver_flowcontrol_request_wait_duration_seconds_count', (l) => l['execute'] === 'true');
      const waitSum = delta('apiserver_flowcontrol_request_wait_duration_seconds_sum', (l) => l['execute'] === 'true');
      const step: Step = {
        workers,
        requests: latencies.length,
        throttled429: throttled,
        otherErrors: other,
        requestsPerSecond: Math.round(latencies.length / elapsedS),
        latencyMs: {
          p50: Math.round(percentile(latencies, 0.5)),
          p99: Math.round(percentile(latencies, 0.99)),
          max: Math.round(Math.max(...latencies)),
        },
        level: {
          nominalSeats: sumOf(after, 'apiserver_flowcontrol_nominal_limit_seats'),
          currentSeatsMax,
          executingMax,
          inQueueMax,
          rejected: delta('apiserver_flowcontrol_rejected_requests_total'),
          queuedRequests: queued,
          meanQueueWaitMs: queued > 0 ? Math.round((waitSum / queued) * 1000 * 10) / 10 : 0,
        },
        loadAverage1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      };
      results.push(step);
      log(JSON.stringify(step));
    }
    await writeFormatted(
      new URL('./results/flow-control.json', import.meta.url),
      JSON.stringify({
        what: 'passes of one controller (one flow: one ServiceAccount, FlowSchema ByUser) against the shipped priority level',
        command: `unshare -rn sh -c 'ip link set lo up && exec "$@"' sh node --import tsx test/bench/measure-flow-control.ts`,
        date: started.toISOString(),
        servers:
          'kube-apiserver v1.34.4 + etcd v3.6.4 (test/support/harness), default --max-requests-inflight=400 --max-mutating-requests-inflight=200',
        priorityLevel:
          'infra/chart/capi-serverless/files/flow-control.yaml (nominalConcurrencyShares 100, lendablePercent 90, queues 16, handSize 4, queueLengthLimit 50)',
        workerPattern:
          'each worker: GET its ConfigMap, server-side apply it, repeat for the step; one connection per worker',
        stepSeconds: stepMs / 1000,
        machine: machineDescription(),
        steps: results,
      }),
    );
  } finally {
    await mgmt.stop();
  }
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
