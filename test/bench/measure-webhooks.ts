// The webhooks function's admission calls, measured in a Lambda runtime: the bundle as `cdk synth` makes it, served by
// the AWS Lambda Runtime Interface Emulator with the Node runtime interface client on Node 22 (as
// test/integration/runtime/lambda-rie.test.ts runs it), pointed at a real kube-apiserver holding the docker example's
// ClusterClass and Cluster. One warm execution environment answers, for each sample, the writes a fleet's changes make
// to a Cluster (a variable change, a version upgrade, a replica change, an annotation), each as the API server sends
// them: the defaulting call, then the validating call. Samples are spaced beyond the ClusterClass cache's TTL, so each
// sample's first call reads the class afresh (an isolated write; a burst hits the cache more often). Recorded per
// call: the emulator's `INVOKE RTDONE` duration (the invocation alone, what Lambda bills) and the CPU time the runtime
// process used in it (/proc/<pid>/stat utime + stime), which is what a smaller memory size slows down.
//   node --import tsx test/bench/measure-webhooks.ts
//   WEBHOOK_SAMPLES (20), WEBHOOK_OUT (webhooks-rie: test/bench/results/<WEBHOOK_OUT>.json)
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseAllDocuments } from 'yaml';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { applyObject, applyStatus, getObject, listObjects, type KubeObject } from '#shared/kube/index.ts';
import { objectChangedEvent } from '#shared/runtime/events.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { genericCrd, startManagementCluster } from '#test/support/harness/clusters.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
} from '#test/support/harness/lambda-rie.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { median, percentile } from '#test/bench/stats.ts';

const samples = Number(process.env['WEBHOOK_SAMPLES'] ?? 20);
const out = process.env['WEBHOOK_OUT'] ?? 'webhooks-rie';
// NOTE: the default WEBHOOK_CLUSTERCLASS_CACHE_TTL_MS (shared/webhooks/create-webhook-deps.ts) and a margin.
const classCacheTtlMs = 5_000;
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sessionToken = `session-${randomUUID()}`;
const pathToken = `bench-${randomUUID()}`;
const clockTicksPerSecond = 100;

/** The writes a fleet's changes make to a Cluster's spec or annotations (what the webhooks' match conditions let in). */
const edits = {
  variable: (c: KubeObject) => {
    const topology = (c['spec'] as { topology: { variables?: { name: string; value: unknown }[] } }).topology;
    topology.variables = [
      ...(topology.variables ?? []).filter((v) => v.name !== 'imageRepository'),
      { name: 'imageRepository', value: `registry-${randomUUID().slice(0, 8)}.example.com` },
    ];
  },
  upgrade: (c: KubeObject) => {
    (c['spec'] as { topology: { version: string } }).topology.version = 'v1.31.0';
  },
  scale: (c: KubeObject) => {
    const md = (c['spec'] as { topology: { workers: { machineDeployments: { replicas: number }[] } } }).topology.workers
      .machineDeployments[0];
    if (md) md.replicas += 1;
  },
  annotation: (c: KubeObject) => {
    c.metadata.annotations = { ...c.metadata.annotations, 'example.com/touched': randomUUID() };
  },
} as const;
type Edit = keyof typeof edits;

const review = (operation: 'UPDATE', object: KubeObject, oldObject: KubeObject) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: randomUUID(),
    kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Cluster' },
    resource: { group: 'cluster.x-k8s.io', version: 'v1beta2', resource: 'clusters' },
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    operation,
    userInfo: { username: 'bench-user' },
    object,
    oldObject,
  },
});
const functionUrlEvent = (path: string, body: unknown) => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: '',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  isBase64Encoded: false,
  requestContext: { http: { method: 'POST', path } },
});

/** The Node runtime process under the emulator (its only child), and its CPU time so far in ms. */
function findRuntimePid(emulatorPid: number): number {
  const children = readFileSync(`/proc/${emulatorPid}/task/${emulatorPid}/children`, 'utf8').trim().split(/\s+/);
  const tasks = readdirSync(`/proc/${emulatorPid}/task`);
  const all = tasks.flatMap((t) =>
    readFileSync(`/proc/${emulatorPid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );
  const pid = Number([...children, ...all].find(Boolean));
  if (!Number.isInteger(pid)) throw new Error(`no runtime process under the emulator (pid ${emulatorPid})`);
  return pid;
}
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // NOTE: after the command name, utime and stime are fields 12 and 13 (0-based 11, 12).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
}
const readRtDone = (output: string) =>
  [...output.matchAll(/INVOKE RTDONE\([^)]*duration: ([\d.]+)ms\)/g)].map((m) => Number(m[1]));
const summarize = (values: readonly number[]) => ({
  median: median(values),
  p90: percentile(values, 0.9),
  min: Math.min(...values),
  max: Math.max(...values),
  mean: Math.round((values.reduce((s, v) => s + v, 0) / Math.max(1, values.length)) * 100) / 100,
});
// NOTE: Lambda bills each invocation's duration rounded up to the next millisecond.
const billedMsOf = (durations: readonly number[]) =>
  Math.round((durations.reduce((s, d) => s + Math.ceil(d), 0) / Math.max(1, durations.length)) * 100) / 100;
const load = () => loadavg().map((l) => Number(l.toFixed(2)));

const started = new Date();
const loadBefore = load();
const [tools, assembly, mgmt, ddb] = await Promise.all([
  getLambdaRuntimeTools(),
  synthesizeApp({ kubeconfigSecretName: 'mgmt-kubeconfig', webhookTokenSecretName: 'webhook-token' }),
  startManagementCluster({
    name: 'measure-webhooks',
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
type Call = { edit: Edit; path: 'mutate' | 'validate'; durationMs: number; cpuMs: number; allowed: boolean };
const calls: Call[] = [];
let memoryMiB = 0;
try {
  const examples = ['clusterclass.yaml', 'cluster.yaml'].flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(`../../examples/docker/${file}`, import.meta.url), 'utf8')).map(
      (d) => d.toJS() as KubeObject,
    ),
  );
  // NOTE: a variable the class declares, so a variable change is admitted (and defaulted) as in a real fleet.
  const clusterClass = examples.find((o) => o.kind === 'ClusterClass');
  if (clusterClass)
    (clusterClass['spec'] as Record<string, unknown>)['variables'] = [
      {
        name: 'imageRepository',
        required: false,
        schema: { openAPIV3Schema: { type: 'string', default: 'registry.k8s.io' } },
      },
    ];
  for (const obj of examples) await applyObject(mgmt.kube, obj, { fieldManager: 'measure-webhooks', force: true });
  const secrets = new Map<string, string>();
  const extension = await startSecretsExtension(secrets, sessionToken);
  const accountId = '000000000000';
  const region = ddb.region;
  const tableName = `measure-webhooks-${process.pid}`;
  const store = createCheckpointStore({ client: createDynamoDBClient(ddb), tableName });
  await ensureTable(store);
  store.client.destroy();
  const runtimeEnvironment = {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: ddb.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: ddb.credentials.secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
    DYNAMODB_ENDPOINT: ddb.endpoint,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
    POWERTOOLS_TRACE_ENABLED: 'false',
  };
  const environmentOf = (f: (typeof assembly.functions)[number]) => {
    const environment = resolveEnvironment(f, assembly, {
      refsByType: {
        'AWS::DynamoDB::Table': tableName,
        'AWS::Events::EventBus': undefined,
        'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:${region}:${accountId}:secret:${id}`,
      },
      arnsByType: { 'AWS::IAM::Role': (id) => `arn:aws:iam::${accountId}:role/${id}` },
      region,
      accountId,
    });
    const kubeconfigSecret = environment['KUBECONFIG_SECRET_ARN'];
    const tokenSecret = environment['WEBHOOK_TOKEN_SECRET_ARN'];
    if (kubeconfigSecret) secrets.set(kubeconfigSecret, mgmt.controlPlane.kubeconfig);
    if (tokenSecret) secrets.set(tokenSecret, pathToken);
    return { ...environment, ...runtimeEnvironment };
  };
  // NOTE: one topology pass (the bundle, in the emulator) stamps the Cluster's objects, as in a converged fleet: its
  // control plane, MachineDeployment and templates, which a version change's validation reads.
  const topologyFn = assembly.functions.find((f) => f.controller === 'topology');
  if (!topologyFn) throw new Error('no topology function in the assembly');
  const topology = await startEmulatedFunction(topologyFn, tools, environmentOf(topologyFn));
  try {
    for (const ref of [
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'ClusterClass', namespace: 'default', name: 'quick-start' },
      { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'docker-1' },
    ]) {
      const event = objectChangedEvent({ ...ref, type: 'ADDED' }, randomUUID(), new Date());
      const { status, body } = await topology.invoke(event);
      if (status !== 200 || !body.includes('"result":"Success"'))
        throw new Error(`topology pass for ${ref.kind}: HTTP ${status}: ${body}\n${topology.process.tail(40)}`);
    }
  } finally {
    await topology.stop();
  }
  // NOTE: the control plane and Machines at the Cluster's version, as their controllers would report them.
  const cp = await listObjects(mgmt.kube, {
    apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmControlPlane',
    namespace: 'default',
  });
  for (const kcp of cp.items)
    await applyStatus(
      mgmt.kube,
      {
        apiVersion: kcp.apiVersion,
        kind: kcp.kind,
        metadata: { name: kcp.metadata.name, namespace: kcp.metadata.namespace },
        status: { version: 'v1.30.0', replicas: 1, readyReplicas: 1, upToDateReplicas: 1 },
      } as KubeObject,
      { fieldManager: 'measure-webhooks', force: true },
    );
  const fn = assembly.functions.find((f) => f.controller === 'webhooks');
  if (!fn) throw new Error('no webhooks function in the assembly');
  const emulated = await startEmulatedFunction(fn, tools, environmentOf(fn));
  try {
    const key = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'default', name: 'docker-1' };
    const call = async (edit: Edit, path: 'mutate' | 'validate', object: KubeObject, old: KubeObject) => {
      const { status, body } = await emulated.invoke(
        functionUrlEvent(`/${pathToken}/${path}`, review('UPDATE', object, old)),
      );
      const result = JSON.parse(body) as { statusCode?: number; body?: string };
      if (status !== 200 || result.statusCode !== 200)
        throw new Error(`${edit} ${path}: HTTP ${status}/${result.statusCode}: ${body}\n${emulated.process.tail(40)}`);
      const { response } = JSON.parse(String(result.body)) as {
        response: { allowed: boolean; status?: { message?: string } };
      };
      if (!response.allowed) throw new Error(`${edit} ${path}: refused: ${response.status?.message ?? body}`);
      return response.allowed;
    };
    // The cold invocation (INIT, the token read) is measured by measure-init.ts; here it only warms the environment.
    const current = await getObject(mgmt.kube, key);
    await call('annotation', 'validate', current, current);
    const runtimePid = findRuntimePid(emulated.process.proc.pid ?? 0);
    for (let i = 0; i < samples; i++) {
      await new Promise((r) => setTimeout(r, classCacheTtlMs + 500));
      for (const edit of Object.keys(edits) as Edit[]) {
        const old = await getObject(mgmt.kube, key);
        const changed = structuredClone(old);
        edits[edit](changed);
        for (const path of ['mutate', 'validate'] as const) {
          const before = emulated.process.logs().length;
          const cpuBefore = cpuMsOf(runtimePid);
          const allowed = await call(edit, path, changed, old);
          // NOTE: the emulator prints RTDONE as it answers; give it a moment.
          await new Promise((r) => setTimeout(r, 50));
          const cpuMs = cpuMsOf(runtimePid) - cpuBefore;
          const [durationMs] = readRtDone(emulated.process.logs().slice(before));
          if (durationMs === undefined)
            throw new Error(`${edit} ${path}: no RTDONE line\n${emulated.process.tail(20)}`);
          calls.push({ edit, path, durationMs, cpuMs, allowed });
        }
      }
      const status = readFileSync(`/proc/${runtimePid}/status`, 'utf8');
      memoryMiB = Math.max(memoryMiB, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
      const last = calls.slice(-8);
      log(`#${i + 1}: ${last.map((c) => `${c.edit}/${c.path} ${c.durationMs.toFixed(1)} ms`).join(', ')}`);
    }
  } finally {
    await emulated.stop();
    await extension.stop();
  }
} finally {
  await Promise.all([mgmt.stop(), ddb.stop()]);
  assembly.remove();
}
const byKind = Object.fromEntries(
  (Object.keys(edits) as Edit[]).flatMap((edit) =>
    (['mutate', 'validate'] as const).map((path) => {
      const these = calls.filter((c) => c.edit === edit && c.path === path);
      return [
        `${edit}/${path}`,
        {
          allowed: these.every((c) => c.allowed),
          durationMs: summarize(these.map((c) => c.durationMs)),
          billedMs: billedMsOf(these.map((c) => c.durationMs)),
          cpuMs: summarize(these.map((c) => c.cpuMs)),
        },
      ];
    }),
  ),
);
const result = {
  date: started.toISOString(),
  finished: new Date().toISOString(),
  machine: machineDescription(),
  node: process.version,
  loadAverage: { before: loadBefore, after: load() },
  method:
    'aws-lambda-rie + aws-lambda-ric on Node 22, one warm execution environment, a real kube-apiserver with the docker example: per sample a Cluster UPDATE of each kind, its /mutate then its /validate call (as the API server sends them); INVOKE RTDONE duration (billedMs: its mean rounded up per call to the millisecond, as Lambda bills) and the runtime process CPU time (utime + stime, 10 ms ticks) per call; samples spaced beyond the ClusterClass cache TTL',
  samples,
  maxRssMiB: Math.round(memoryMiB * 10) / 10,
  all: {
    calls: calls.length,
    durationMs: summarize(calls.map((c) => c.durationMs)),
    billedMs: billedMsOf(calls.map((c) => c.durationMs)),
    cpuMs: summarize(calls.map((c) => c.cpuMs)),
  },
  calls: byKind,
};
const target = new URL(`results/${out}.json`, import.meta.url);
await writeFormatted(target, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${target.pathname}: mean ${result.all.durationMs.mean} ms, CPU ${result.all.cpuMs.mean} ms per call`);
