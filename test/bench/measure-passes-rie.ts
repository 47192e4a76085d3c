// The controller functions' passes, measured in a Lambda runtime: the topology and addons bundles as `cdk synth` makes
// them, served by the AWS Lambda Runtime Interface Emulator with the Node runtime interface client on Node 22 (as
// measure-webhooks.ts runs the webhooks bundle), against a real kube-apiserver and DynamoDB Local. One warm execution
// environment per function answers, per sample, the object-change events a fleet's changes send it:
//   topology: a new Cluster of the docker example's class (its first pass creates the topology's objects), a replica
//     change of an existing Cluster (the pass runs and patches its MachineDeployment), and the same event again (the
//     pass is skipped: its checkpoint says up to date);
//   addons: a change of the ConfigMap a ClusterResourceSet (strategy Reconcile) applies to one workload cluster (the
//     pass runs and applies it there), and the same event again (skipped).
// Recorded per invocation: the emulator's `INVOKE RTDONE` duration (what Lambda bills, rounded up to the millisecond)
// and the CPU time the runtime process used in it (/proc/<pid>/stat utime + stime, 10 ms ticks), which a memory size
// under one vCPU stretches; for the cold invocation also the runtime's INIT and the CPU used by INIT + that invocation.
//   node --import tsx test/bench/measure-passes-rie.ts
//   PASSES_SAMPLES (20), PASSES_OUT (passes-rie: test/bench/results/<PASSES_OUT>.json)
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseAllDocuments } from 'yaml';
import { createCheckpointStore, createDynamoDBClient, ensureTable } from '#shared/checkpoint/index.ts';
import { applyObject, applyStatus, getObject, type KubeObject } from '#shared/kube/index.ts';
import { objectChangedEvent, type ObjectChange } from '#shared/runtime/events.ts';
import { startDynamoDB } from '#test/support/harness/dynamodb.ts';
import { genericCrd, startManagementCluster, startWorkloadCluster } from '#test/support/harness/clusters.ts';
import {
  getLambdaRuntimeTools,
  resolveEnvironment,
  startEmulatedFunction,
  startSecretsExtension,
  synthesizeApp,
  type EmulatedFunction,
} from '#test/support/harness/lambda-rie.ts';
import { machineDescription, writeFormatted } from '#test/bench/report.ts';
import { median, percentile } from '#test/bench/stats.ts';

const samples = Number(process.env['PASSES_SAMPLES'] ?? 20);
const out = process.env['PASSES_OUT'] ?? 'passes-rie';
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sessionToken = `session-${randomUUID()}`;
const clockTicksPerSecond = 100;
const fieldManager = 'measure-passes-rie';

/** The Node runtime process under the emulator (its only child). */
function findRuntimePid(emulatorPid: number): number {
  const tasks = readdirSync(`/proc/${emulatorPid}/task`);
  const all = tasks.flatMap((t) =>
    readFileSync(`/proc/${emulatorPid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );
  const pid = Number(all[0]);
  if (!Number.isInteger(pid)) throw new Error(`no runtime process under the emulator (pid ${emulatorPid})`);
  return pid;
}
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // NOTE: after the command name, utime and stime are fields 12 and 13 (0-based 11, 12).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
}
const peakRssMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const readRtDone = (output: string) =>
  [...output.matchAll(/INVOKE RTDONE\([^)]*duration: ([\d.]+)ms\)/g)].map((m) => Number(m[1]));
const readInit = (output: string) => Number(/INIT REPORT\(durationMs: ([\d.]+)\)/.exec(output)?.[1] ?? NaN);
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

type PassKind = 'create' | 'change' | 'skip';
type Invocation = { fn: string; kind: PassKind; durationMs: number; cpuMs: number; statuses: string[] };
type Cold = { fn: string; initMs: number; coldInvocationMs: number; initAndInvocationCpuMs: number };

/** The statuses of the passes an invocation ran (Ran/Skipped, with the result of a pass that ran). */
function passStatuses(body: string): string[] {
  const parsed = JSON.parse(body) as { status?: string; passes?: { status: string; result?: string }[] };
  if (parsed.status !== 'Handled') throw new Error(`not handled: ${body}`);
  return (parsed.passes ?? []).map((p) => (p.status === 'Ran' ? `Ran/${p.result ?? '?'}` : p.status));
}

/** Invokes a warm environment with one event and records its duration, its CPU time and its passes. */
async function measure(
  emulated: EmulatedFunction,
  pid: number,
  kind: PassKind,
  change: ObjectChange,
  expect: 'Ran' | 'Skipped',
): Promise<Invocation> {
  const before = emulated.process.logs().length;
  const cpuBefore = cpuMsOf(pid);
  const { status, body } = await emulated.invoke(objectChangedEvent(change, randomUUID(), new Date()));
  if (status !== 200) throw new Error(`${emulated.name} ${kind}: HTTP ${status}: ${body}`);
  // NOTE: the emulator prints RTDONE as it answers; give it a moment.
  await new Promise((r) => setTimeout(r, 50));
  const cpuMs = cpuMsOf(pid) - cpuBefore;
  const [durationMs] = readRtDone(emulated.process.logs().slice(before));
  if (durationMs === undefined) throw new Error(`${emulated.name} ${kind}: no RTDONE line`);
  const statuses = passStatuses(body);
  if (!statuses.some((s) => s.startsWith(expect)))
    throw new Error(`${emulated.name} ${kind}: expected a pass ${expect}, got ${statuses.join(', ')}: ${body}`);
  return { fn: emulated.name, kind, durationMs, cpuMs, statuses };
}

const started = new Date();
const loadBefore = load();
const [tools, assembly, mgmt, ddb] = await Promise.all([
  getLambdaRuntimeTools(),
  synthesizeApp({ kubeconfigSecretName: 'mgmt-kubeconfig', webhookTokenSecretName: 'webhook-token' }),
  startManagementCluster({
    name: 'measure-passes',
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
const invocations: Invocation[] = [];
const colds: Cold[] = [];
const rss: Record<string, number> = {};
const workload = await startWorkloadCluster(mgmt, { namespace: 'default', name: 'w1' });
try {
  const examples = ['clusterclass.yaml', 'cluster.yaml'].flatMap((file) =>
    parseAllDocuments(readFileSync(new URL(`../../examples/docker/${file}`, import.meta.url), 'utf8')).map(
      (d) => d.toJS() as KubeObject,
    ),
  );
  for (const obj of examples) await applyObject(mgmt.kube, obj, { fieldManager, force: true });
  const templateCluster = examples.find((o) => o.kind === 'Cluster');
  if (!templateCluster) throw new Error('no Cluster in examples/docker/cluster.yaml');
  // The addons fixture: a Cluster backed by the workload control plane, a ConfigMap and a ClusterResourceSet.
  const w1: KubeObject = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace: 'default', name: 'w1', labels: { addons: 'bench' } },
    spec: { clusterNetwork: { serviceDomain: 'cluster.local' } },
  };
  await applyObject(mgmt.kube, w1, { fieldManager });
  await applyStatus(
    mgmt.kube,
    { ...w1, status: { initialization: { infrastructureProvisioned: true } } },
    {
      fieldManager,
    },
  );
  const resource = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'default', name: 'bench-addon' },
    data: {
      'addon.yaml': JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'bench-addon' },
        data: { value },
      }),
    },
  });
  await applyObject(mgmt.kube, resource('0'), { fieldManager, force: true });
  await applyObject(
    mgmt.kube,
    {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      metadata: { namespace: 'default', name: 'bench-addon' },
      spec: {
        clusterSelector: { matchLabels: { addons: 'bench' } },
        strategy: 'Reconcile',
        resources: [{ kind: 'ConfigMap', name: 'bench-addon' }],
      },
    },
    { fieldManager, force: true },
  );

  const secrets = new Map<string, string>();
  const extension = await startSecretsExtension(secrets, sessionToken);
  const accountId = '000000000000';
  const region = ddb.region;
  const tableName = `measure-passes-${process.pid}`;
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
  const start = async (controller: string) => {
    const fn = assembly.functions.find((f) => f.controller === controller);
    if (!fn) throw new Error(`no ${controller} function in the assembly`);
    const environment = resolveEnvironment(fn, assembly, {
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
    if (kubeconfigSecret) secrets.set(kubeconfigSecret, mgmt.controlPlane.kubeconfig);
    return startEmulatedFunction(fn, tools, { ...environment, ...runtimeEnvironment });
  };
  /** The cold invocation: INIT, and the CPU of INIT and the first invocation together. */
  const warmUp = async (emulated: EmulatedFunction, change: ObjectChange) => {
    const { status, body } = await emulated.invoke(objectChangedEvent(change, randomUUID(), new Date()));
    if (status !== 200) throw new Error(`${emulated.name} cold: HTTP ${status}: ${body}`);
    await new Promise((r) => setTimeout(r, 200));
    const pid = findRuntimePid(emulated.process.proc.pid ?? 0);
    const output = emulated.process.logs();
    const [coldInvocationMs] = readRtDone(output);
    colds.push({
      fn: emulated.name,
      initMs: readInit(output),
      coldInvocationMs: coldInvocationMs ?? NaN,
      initAndInvocationCpuMs: cpuMsOf(pid),
    });
    return pid;
  };
  const clusterChange = (name: string, type: ObjectChange['type']): ObjectChange => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    namespace: 'default',
    name,
    type,
  });

  const topology = await start('topology');
  try {
    // NOTE: the cold invocation passes the example's ClusterClass, then docker-1 once, so every sample is warm.
    const pid = await warmUp(topology, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'ClusterClass',
      namespace: 'default',
      name: 'quick-start',
      type: 'ADDED',
    });
    await measure(topology, pid, 'create', clusterChange('docker-1', 'ADDED'), 'Ran');
    for (let i = 0; i < samples; i++) {
      const name = `bench-${i}`;
      await applyObject(
        mgmt.kube,
        { ...structuredClone(templateCluster), metadata: { namespace: 'default', name } },
        { fieldManager },
      );
      invocations.push(await measure(topology, pid, 'create', clusterChange(name, 'ADDED'), 'Ran'));
      // NOTE: the example's Cluster as first applied, with another replica count (same field manager).
      const changed = structuredClone(templateCluster);
      const md = (changed['spec'] as { topology: { workers: { machineDeployments: { replicas: number }[] } } }).topology
        .workers.machineDeployments[0];
      if (md) md.replicas = 3 + (i % 3);
      await applyObject(mgmt.kube, changed, { fieldManager, force: true });
      invocations.push(await measure(topology, pid, 'change', clusterChange('docker-1', 'MODIFIED'), 'Ran'));
      invocations.push(await measure(topology, pid, 'skip', clusterChange('docker-1', 'MODIFIED'), 'Skipped'));
      log(`topology #${i + 1}: ${invocations.slice(-3).map((c) => `${c.kind} ${c.durationMs.toFixed(0)} ms`)}`);
    }
    rss['topology'] = peakRssMiB(pid);
  } finally {
    await topology.stop();
  }

  const addons = await start('addons');
  try {
    const configMapChange: ObjectChange = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'bench-addon',
      type: 'MODIFIED',
    };
    const crsChange: ObjectChange = {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      namespace: 'default',
      name: 'bench-addon',
      type: 'ADDED',
    };
    const pid = await warmUp(addons, crsChange);
    await measure(addons, pid, 'skip', crsChange, 'Skipped');
    for (let i = 0; i < samples; i++) {
      await applyObject(mgmt.kube, resource(String(i + 1)), { fieldManager, force: true });
      invocations.push(await measure(addons, pid, 'change', configMapChange, 'Ran'));
      invocations.push(await measure(addons, pid, 'skip', configMapChange, 'Skipped'));
      log(`addons #${i + 1}: ${invocations.slice(-2).map((c) => `${c.kind} ${c.durationMs.toFixed(0)} ms`)}`);
    }
    rss['addons'] = peakRssMiB(pid);
    const applied = await getObject(workload.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'bench-addon',
    });
    if ((applied['data'] as Record<string, string>)['value'] !== String(samples))
      throw new Error(`the workload cluster's ConfigMap is not the last one applied: ${JSON.stringify(applied)}`);
  } finally {
    await addons.stop();
    await extension.stop();
  }
} finally {
  await workload.stop();
  await Promise.all([mgmt.stop(), ddb.stop()]);
  assembly.remove();
}

const figures = (these: readonly Invocation[]) => ({
  invocations: these.length,
  passes: [...new Set(these.flatMap((c) => c.statuses))].sort(),
  durationMs: summarize(these.map((c) => c.durationMs)),
  billedMs: billedMsOf(these.map((c) => c.durationMs)),
  cpuMs: summarize(these.map((c) => c.cpuMs)),
});
const functions = Object.fromEntries(
  ['topology', 'addons'].map((fn) => {
    const cold = colds.find((c) => c.fn === fn);
    const passes = Object.fromEntries(
      (['create', 'change', 'skip'] as const).flatMap((kind) => {
        const these = invocations.filter((c) => c.fn === fn && c.kind === kind);
        return these.length > 0 ? [[kind, figures(these)]] : [];
      }),
    );
    return [fn, { maxRssMiB: Math.round((rss[fn] ?? 0) * 10) / 10, cold, passes }];
  }),
);
const result = {
  date: started.toISOString(),
  finished: new Date().toISOString(),
  machine: machineDescription(),
  node: process.version,
  loadAverage: { before: loadBefore, after: load() },
  method:
    "aws-lambda-rie + aws-lambda-ric on Node 22, one warm execution environment per function, a real kube-apiserver and DynamoDB Local: per sample, topology: a new Cluster of the docker example's class (create), a replica change of docker-1 (change) and its event again (skip); addons: a change of the ConfigMap a ClusterResourceSet (Reconcile) applies to a workload cluster (change) and its event again (skip); INVOKE RTDONE duration (billedMs: rounded up per invocation to the millisecond, as Lambda bills) and the runtime process CPU time (utime + stime, 10 ms ticks) per invocation; cold: the emulator's INIT REPORT and the CPU of INIT and the first invocation",
  samples,
  functions,
};
const target = new URL(`results/${out}.json`, import.meta.url);
await writeFormatted(target, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${target.pathname}`);
