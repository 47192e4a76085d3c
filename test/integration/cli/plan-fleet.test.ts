// `capi-serverless plan` for a fleet on a real kube-apiserver (upstream's core CRDs, generic provider kinds): 5
// Clusters on `quick-start`, 2 on `small`, made converged by the topology pass itself (no managers). Forecasts a class
// change (a worker template rotates), a version change and a rebase (one Cluster refused with upstream's message),
// live and offline (the same objects as files), and checks in the API server's audit log that plan wrote nothing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { runPlan } from '#shared/cli/plan.ts';
import {
  applyObject,
  applyStatus,
  getObject,
  listObjects,
  type KubeClient,
  type KubeObject,
} from '#shared/kube/index.ts';
import { reconcileClusterClass, reconcileTopology, type TopologyDeps } from '#shared/topology/index.ts';
import { ClusterBuilder, sequentialSuffix, templates } from '#test/support/builders/topology.ts';
import { allRequestsAuditPolicy, createAuditLog, type AuditLog } from '#test/support/harness/audit-log.ts';
import { genericCrd, startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import { testClusterClass } from '#test/integration/topology/setup.ts';

const ns = 'fleet';
const capi = 'cluster.x-k8s.io/v1beta2';
const infra = 'infrastructure.cluster.x-k8s.io/v1beta2';
const user = { fieldManager: 'test-user', force: true };
const quickStart = ['c1', 'c2', 'c3', 'c4', 'c5'];
const small = ['s1', 's2'];

let mgmt: TestCluster;
let audit: AuditLog;
let pass: { kube: KubeClient };
let deps: TopologyDeps;
let dir: string;

const put = (obj: object) => applyObject(mgmt.kube, obj as KubeObject, user);

/** The `small` class: quick-start without the `big-worker` MachineDeployment class. */
function smallClass(): ClusterClass {
  const cc = testClusterClass(ns);
  cc.metadata.name = 'small';
  cc.spec.workers!.machineDeployments = cc.spec.workers!.machineDeployments!.filter((c) => c.class !== 'big-worker');
  return cc;
}

function fleetCluster(name: string, className: string, mds: { class: string; name: string; replicas: number }[]) {
  return new ClusterBuilder(name)
    .with((c) => {
      c.metadata = { namespace: ns, name, labels: { fleet: className } };
      c.spec!.topology!.classRef = { name: className };
    })
    .machineDeployments(mds)
    .build();
}

async function converge(name: string): Promise<void> {
  const key = { namespace: ns, name };
  const first = await reconcileTopology(deps, key);
  assert.equal(first.result, 'Success', first.error);
  const cluster = await getObject(mgmt.kube, { apiVersion: capi, kind: 'Cluster', ...key });
  const ref = (cluster['spec'] as { controlPlaneRef: { kind: string; name: string } }).controlPlaneRef;
  await applyStatus(
    mgmt.kube,
    {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: ref.kind,
      metadata: { namespace: ns, name: ref.name },
      status: { version: 'v1.30.0', replicas: 3, upToDateReplicas: 3, readyReplicas: 3, availableReplicas: 3 },
    },
    { fieldManager: 'kubeadm-control-plane', force: true },
  );
  const second = await reconcileTopology(deps, key);
  assert.equal(second.result, 'Success', second.error);
}

async function plan(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runPlan(args, {
    stdout: { write: (s) => (stdout += s) },
    stderr: { write: (s) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

/** The new quick-start: md class default-worker on a new worker template; a new label on control plane machines. */
function writeNewClass(): string {
  const v2 = templates.workerMachine();
  const template = {
    ...v2,
    metadata: { namespace: ns, name: 'quick-start-worker-v2' },
    spec: {
      template: {
        spec: { customImage: 'kindest/node:v1', extraMounts: [{ containerPath: '/var/lib/x', hostPath: '/x' }] },
      },
    },
  };
  const cc = testClusterClass(ns);
  cc.spec.workers!.machineDeployments![0]!.infrastructure = {
    templateRef: { apiVersion: infra, kind: 'DockerMachineTemplate', name: 'quick-start-worker-v2' },
  };
  cc.spec.controlPlane.metadata = { labels: { 'fleet.example.com/wave': 'one' } };
  const file = join(dir, 'new-class.yaml');
  writeFileSync(file, [template, cc].map((o) => stringify(o)).join('---\n'));
  return file;
}

/** The fleet as `kubectl get -o yaml` would give it, one file per kind. */
async function writeFleetFiles(): Promise<string> {
  const out = join(dir, 'fleet');
  mkdirSync(out, { recursive: true });
  const kinds: [string, string][] = [
    [capi, 'Cluster'],
    [capi, 'ClusterClass'],
    [capi, 'MachineDeployment'],
    [capi, 'MachineHealthCheck'],
    [capi, 'Machine'],
    [infra, 'DockerClusterTemplate'],
    [infra, 'DockerCluster'],
    [infra, 'DockerMachineTemplate'],
    ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlaneTemplate'],
    ['controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'],
    ['bootstrap.cluster.x-k8s.io/v1beta2', 'KubeadmConfigTemplate'],
  ];
  for (const [apiVersion, kind] of kinds) {
    const { items } = await listObjects(mgmt.kube, { apiVersion, kind, namespace: ns });
    writeFileSync(join(out, `${kind}.yaml`), stringify({ apiVersion: 'v1', kind: 'List', items }));
  }
  return out;
}

type Forecast = {
  kind: string;
  summary: Record<string, number>;
  clusters: {
    name: string;
    result: string;
    error?: string;
    machines: { controlPlane: number; workers: number };
    rollouts: { owner: string; topologyName?: string; replicas: number; reasons: string[] }[];
    rotations: { kind: string; name: string; replacedBy: string; usedBy: string }[];
    inPlace: { kind: string; name: string }[];
  }[];
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plan-fleet-'));
  audit = createAuditLog(allRequestsAuditPolicy);
  mgmt = await startManagementCluster({
    crds: 'upstream-core',
    extraCrds: [
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerClusterTemplate'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerCluster'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlaneTemplate'),
      genericCrd('controlplane.cluster.x-k8s.io', 'v1beta2', 'KubeadmControlPlane'),
      genericCrd('bootstrap.cluster.x-k8s.io', 'v1beta2', 'KubeadmConfigTemplate'),
      genericCrd('infrastructure.cluster.x-k8s.io', 'v1beta2', 'DockerMachineTemplate'),
    ],
    extraApiServerArgs: audit.apiServerArgs,
  });
  pass = await mgmt.newClient();
  deps = { kube: pass.kube, randomSuffix: sequentialSuffix(), now: () => new Date('2026-11-27T10:00:00Z') };
  await put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const t of Object.values(templates)) {
    const template = t();
    await put({ ...template, metadata: { ...template.metadata, namespace: ns } });
  }
  for (const cc of [testClusterClass(ns), smallClass()]) {
    await put(cc);
    const outcome = await reconcileClusterClass(deps, { namespace: ns, name: cc.metadata.name ?? '' });
    assert.equal(outcome.result, 'Success', outcome.error);
  }
  for (const name of quickStart) {
    const mds = [{ class: 'default-worker', name: 'md-a', replicas: 2 }];
    if (name === 'c5') mds.push({ class: 'big-worker', name: 'md-b', replicas: 1 });
    await put(fleetCluster(name, 'quick-start', mds));
    await converge(name);
  }
  for (const name of small) {
    await put(fleetCluster(name, 'small', [{ class: 'default-worker', name: 'md-a', replicas: 3 }]));
    await converge(name);
  }
  audit.readNew();
});

after(async () => {
  pass?.kube.close();
  await mgmt?.stop();
  audit?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('plan for a fleet', () => {
  test('a class change: the Clusters of the class, the rotating worker template, Machines from replicas', async (t) => {
    const out = await plan(['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-f', writeNewClass()]);
    t.diagnostic(out.stdout);
    assert.equal(out.code, 0, out.stderr);
    const summary = out.stdout.trim().split('\n').at(-1);
    assert.equal(summary, '5 Clusters change; 5 roll 10 worker Machines, 0 roll their control planes (0 Machines)');
    for (const name of quickStart)
      assert.match(out.stdout, new RegExp(`^Cluster fleet/${name}: quick-start@v1.30.0: changes$`, 'm'));
    for (const name of small) assert.doesNotMatch(out.stdout, new RegExp(`Cluster fleet/${name}`));
    assert.match(
      out.stdout,
      /^ {2}rotates {3}DockerMachineTemplate fleet\/c1-md-a-\w+ → c1-md-a-\w+ \(MachineDeployment md-a\)$/m,
    );
    assert.match(
      out.stdout,
      /^ {2}rolls {5}MachineDeployment md-a \(fleet\/c1-md-a-\w+\): 2 Machines \(infrastructure template rotates\)$/m,
    );
    assert.match(out.stdout, /^ {2}in place {2}KubeadmControlPlane fleet\/c1-\w+$/m);
    assert.doesNotMatch(out.stdout, /rolls {5}MachineDeployment md-b/, 'big-worker did not change');
    assert.doesNotMatch(out.stdout, /creates/, 'a rotation clone is named once');
  });

  test('-o json: the same forecast for tools, stable between runs', async () => {
    const args = ['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-f', writeNewClass(), '-o', 'json'];
    const first = await plan(args);
    const second = await plan(args);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, second.stdout, 'deterministic');
    const forecast = JSON.parse(first.stdout) as Forecast;
    assert.equal(forecast.kind, 'FleetForecast');
    assert.deepEqual(
      forecast.clusters.map((c) => c.name),
      quickStart,
    );
    assert.equal(forecast.summary['workerMachines'], 10);
    const c5 = forecast.clusters.find((c) => c.name === 'c5')!;
    assert.deepEqual(c5.machines, { controlPlane: 0, workers: 2 });
    assert.deepEqual(
      c5.rotations.map((r) => [r.kind, r.usedBy]),
      [['DockerMachineTemplate', 'MachineDeployment md-a']],
    );
    assert.deepEqual(
      c5.rollouts.map((r) => [r.topologyName, r.replicas, r.reasons]),
      [['md-a', 2, ['infrastructure template rotates']]],
    );
  });

  test('the unchanged class: nothing changes', async () => {
    const file = join(dir, 'same-class.yaml');
    writeFileSync(file, stringify(testClusterClass(ns)));
    const out = await plan(['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-f', file]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(
      out.stdout.trim().split('\n').at(-1),
      '0 Clusters change; 0 roll 0 worker Machines, 0 roll their control planes (0 Machines); 5 unchanged',
    );
  });

  test('a version change for a selector: control plane and workers roll, counted from replicas', async (t) => {
    const out = await plan([
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '--version',
      'v1.31.0',
      '-l',
      'fleet=small',
    ]);
    t.diagnostic(out.stdout);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^Cluster fleet\/s1: small@v1.30.0 → small@v1.31.0: changes$/m);
    assert.match(
      out.stdout,
      /^ {2}rolls {5}control plane KubeadmControlPlane fleet\/s1-\w+: 3 Machines \(version v1.30.0 → v1.31.0\)$/m,
    );
    assert.match(
      out.stdout,
      /^ {2}rolls {5}MachineDeployment md-a \(fleet\/s1-md-a-\w+\): 3 Machines \(version v1.30.0 → v1.31.0\)$/m,
    );
    assert.equal(
      out.stdout.trim().split('\n').at(-1),
      '2 Clusters change; 2 roll 6 worker Machines, 2 roll their control planes (6 Machines)',
    );
  });

  test("a version downgrade fails validation with upstream's message", async () => {
    const out = await plan([
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '--version',
      'v1.29.0',
      '-l',
      'fleet=small',
      '-o',
      'json',
    ]);
    assert.equal(out.code, 1);
    const forecast = JSON.parse(out.stdout) as Forecast;
    assert.equal(forecast.summary['invalid'], 2);
    assert.match(
      forecast.clusters[0]!.error ?? '',
      /^Cluster\.cluster\.x-k8s\.io "s1" is invalid: spec\.topology\.version: Invalid value: "v1\.29\.0": version cannot be decreased/,
    );
  });

  test("a rebase: compatible Clusters change, one using a class the target lacks fails with upstream's message", async (t) => {
    const out = await plan([
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '--rebase-to',
      'small',
      '-l',
      'fleet=quick-start',
    ]);
    t.diagnostic(out.stdout);
    assert.equal(out.code, 1, 'a Cluster fails validation');
    assert.match(
      out.stdout,
      /^Cluster fleet\/c1: .*: changes\n {2}only the Cluster changes \(spec\.topology\); no other object changes$/m,
    );
    for (const name of ['c1', 'c2', 'c3', 'c4'])
      assert.match(
        out.stdout,
        new RegExp(`^Cluster fleet/${name}: quick-start@v1.30.0 → small@v1.30.0: changes$`, 'm'),
      );
    assert.match(
      out.stdout,
      /^Cluster fleet\/c5: quick-start@v1.30.0 → small@v1.30.0: fails validation: Cluster\.cluster\.x-k8s\.io "c5" is invalid: .*big-worker/m,
    );
    assert.match(out.stdout.trim().split('\n').at(-1) ?? '', /^4 Clusters change; .*; 1 fails validation: fleet\/c5$/);
  });

  test('offline: the same objects as files give the same forecast', async () => {
    const fleet = await writeFleetFiles();
    const newClass = writeNewClass();
    const live = await plan(['--kubeconfig', mgmt.controlPlane.kubeconfigPath, '-f', newClass, '-o', 'json']);
    const offline = await plan(['--current', fleet, '-f', newClass, '-o', 'json']);
    assert.equal(offline.code, 0, offline.stderr);
    assert.deepEqual(JSON.parse(offline.stdout), JSON.parse(live.stdout));
    const live_ = ['--kubeconfig', mgmt.controlPlane.kubeconfigPath];
    const offline_ = ['--current', fleet];
    for (const change of [
      ['--rebase-to', 'small', '-l', 'fleet=quick-start'],
      ['--version', 'v1.31.0', '-l', 'fleet=small'],
      ['--version', 'v1.31.0', '--rebase-to', 'small', '-l', 'fleet=small'],
    ]) {
      const fromCluster = await plan([...live_, ...change, '-o', 'json']);
      const fromFiles = await plan([...offline_, ...change, '-o', 'json']);
      assert.equal(fromFiles.stderr.includes('error'), false, fromFiles.stderr);
      assert.deepEqual(JSON.parse(fromFiles.stdout), JSON.parse(fromCluster.stdout), change.join(' '));
      assert.equal(fromFiles.code, fromCluster.code, change.join(' '));
    }
    const rebase = await plan([...offline_, '--rebase-to', 'small', '-l', 'fleet=quick-start', '-o', 'json']);
    assert.equal((JSON.parse(rebase.stdout) as Forecast).summary['invalid'], 1);
    const version = await plan([...offline_, '--version', 'v1.31.0', '-l', 'fleet=small', '-o', 'json']);
    assert.deepEqual((JSON.parse(version.stdout) as Forecast).summary, {
      ...(JSON.parse(version.stdout) as Forecast).summary,
      changed: 2,
      controlPlaneMachines: 6,
      workerMachines: 6,
    });
  });

  test('progress lines on stderr every N Clusters', async () => {
    const out = await plan([
      '--kubeconfig',
      mgmt.controlPlane.kubeconfigPath,
      '--version',
      'v1.31.0',
      '--progress-every',
      '3',
      '--concurrency',
      '2',
    ]);
    assert.deepEqual(
      out.stderr.split('\n').filter((l) => l.startsWith('planned')),
      ['planned 3/7 Clusters', 'planned 6/7 Clusters', 'planned 7/7 Clusters'],
    );
  });

  test('plan wrote nothing: no mutating request from plan reached the API server', () => {
    const events = audit.readNew().filter((e) => (e.userAgent ?? '').startsWith('capi-serverless/plan'));
    assert.ok(events.length > 0, 'plan requests are in the audit log');
    const writes = events.filter((e) => !['get', 'list', 'watch'].includes(e.verb));
    assert.deepEqual(
      writes.map((e) => `${e.verb} ${e.requestURI}`),
      [],
    );
  });
});
