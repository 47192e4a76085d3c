// `capi-serverless plan` against objects that exist now, for behaviours upstream's topology controller shows on a
// second pass (issue 17): template rotation, MachineDeployments deferred while the control plane provisions, and the
// owner references upstream's desired state sets.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runPlan } from '#shared/cli/plan.ts';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function plan(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runPlan(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

/**
 * The Docker example's first plan as JSON objects (what exists after the first pass), its Cluster created (a uid)
 * unless `created` is false.
 */
async function firstPass(created = true): Promise<Obj[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plan-first-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'clusterclass.yaml'), readFileSync('examples/docker/clusterclass.yaml', 'utf8'));
  const cluster = readFileSync('examples/docker/cluster.yaml', 'utf8');
  writeFileSync(
    join(dir, 'cluster.yaml'),
    created ? cluster.replace('  name: docker-1\n', '  name: docker-1\n  uid: uid-docker-1\n') : cluster,
  );
  const { code, stdout, stderr } = await plan(['-f', dir, '-o', 'json']);
  assert.equal(code, 0, stderr);
  return (JSON.parse(stdout) as { items: Obj[] }).items;
}

/** A directory with the (edited) Docker ClusterClass file and the given current objects, the Cluster among them. */
function inputDir(current: readonly Obj[], editClass: (text: string) => string = (t) => t): string {
  const dir = mkdtempSync(join(tmpdir(), 'plan-current-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'clusterclass.yaml'), editClass(readFileSync('examples/docker/clusterclass.yaml', 'utf8')));
  writeFileSync(join(dir, 'current.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: current }));
  return dir;
}

const outputObjects = (stdout: string) => (JSON.parse(stdout) as { items: Obj[] }).items;
const withStableControlPlane = (objects: readonly Obj[]): Obj[] =>
  objects.map((o) => (o.kind === 'KubeadmControlPlane' ? { ...o, status: { version: 'v1.30.0' } } : o));
/** The control plane at v1.30.0, every replica up to date and available: an upgrade may start. */
const withIdleControlPlane = (objects: readonly Obj[]): Obj[] =>
  objects.map((o) => {
    if (o.kind !== 'KubeadmControlPlane') return o;
    const replicas = (o.spec as { replicas?: number }).replicas ?? 1;
    const counts = { replicas, upToDateReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas };
    return { ...o, status: { version: 'v1.30.0', ...counts } };
  });
const withTopologyVersion = (objects: readonly Obj[], version: string): Obj[] =>
  objects.map((o) =>
    o.kind === 'Cluster'
      ? { ...o, spec: { ...o.spec, topology: { ...(o.spec?.['topology'] as object), version } } }
      : o,
  );
/** The ClusterClass file with `customImage` added to the DockerMachineTemplate named `name`. */
const withCustomImage = (name: string) => (text: string) =>
  text.replace(
    new RegExp(`(metadata:\\n {2}name: ${name}\\n(?:.*\\n){3} {4}spec:\\n)( +)extraMounts:`),
    '$1$2customImage: kindest/node:custom\n$2extraMounts:',
  );
const customImageOf = (o: Obj | undefined) =>
  (o?.spec as { template: { spec: { customImage?: string } } } | undefined)?.template.spec.customImage;

describe('capi-serverless plan against current objects', () => {
  test('a changed ClusterClass template is rotated: cloned under a new name, the reference switched, the old one replaced', async () => {
    const current = withStableControlPlane(await firstPass());
    const oldMd = current.find((o) => o.kind === 'MachineDeployment')!;
    const oldInfra = current.find(
      (o) => o.kind === 'DockerMachineTemplate' && o.metadata.name.startsWith('docker-1-md-0-'),
    )!;
    const dir = inputDir(current, (text) =>
      text.replace(
        /(metadata:\n {2}name: quick-start-default-worker-machinetemplate\n(?:.*\n){3} {4}spec:\n)( +)extraMounts:/,
        '$1$2customImage: kindest/node:custom\n$2extraMounts:',
      ),
    );
    const { code, stdout, stderr } = await plan(['-f', dir, '-o', 'json']);
    assert.equal(code, 0, stderr);
    const objects = outputObjects(stdout);
    const md = objects.find((o) => o.kind === 'MachineDeployment')!;
    const infraRef = (md.spec as { template: { spec: { infrastructureRef: { name: string } } } }).template.spec
      .infrastructureRef.name;
    assert.equal(md.metadata.name, oldMd.metadata.name, 'the MachineDeployment keeps its name');
    assert.notEqual(infraRef, oldInfra.metadata.name, 'the reference is switched to a new clone');
    assert.match(infraRef, /^docker-1-md-0-[b-z2-9]{5}$/);
    const clone = objects.find((o) => o.kind === 'DockerMachineTemplate' && o.metadata.name === infraRef)!;
    assert.equal(
      (clone.spec as { template: { spec: { customImage: string } } }).template.spec.customImage,
      'kindest/node:custom',
    );
    assert.ok(
      !objects.some((o) => o.metadata.name === oldInfra.metadata.name && o.kind === 'DockerMachineTemplate'),
      'the old template is not among the objects after the pass',
    );
    assert.match(stderr, new RegExp(`created\\s+DockerMachineTemplate default/${infraRef}`));
    assert.match(
      stderr,
      new RegExp(
        `replaced\\s+DockerMachineTemplate default/${oldInfra.metadata.name} by default/${infraRef} \\(goes once unused\\)`,
      ),
    );
    assert.match(stderr, /unchanged KubeadmConfigTemplate default\/docker-1-md-0-/, 'an unchanged template stays');
    assert.match(stderr, /unchanged KubeadmControlPlane /, 'the control plane template did not change');
  });

  test('a template whose only change is metadata is updated in place, not rotated', async () => {
    const current = withStableControlPlane(await firstPass());
    const dir = inputDir(current, (text) =>
      text.replace(
        /(metadata:\n {2}name: quick-start-default-worker-machinetemplate\n)/,
        '$1  annotations:\n    example.com/note: only-metadata\n',
      ),
    );
    const { code, stderr } = await plan(['-f', dir]);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /replaced/);
  });

  test('a MachineDeployment added while the control plane is provisioning is deferred; once it is stable it is created', async () => {
    const current = await firstPass();
    const addMd1 = (objects: readonly Obj[]): Obj[] =>
      objects.map((o) => {
        if (o.kind !== 'Cluster') return o;
        const topology = (o.spec as { topology: { workers: { machineDeployments: unknown[] } } }).topology;
        return {
          ...o,
          spec: {
            ...o.spec,
            topology: {
              ...topology,
              workers: {
                machineDeployments: [...topology.workers.machineDeployments, { class: 'default-worker', name: 'md-1' }],
              },
            },
          },
        };
      });
    const provisioning = await plan(['-f', inputDir(addMd1(current)), '-o', 'json']);
    assert.equal(provisioning.code, 0, provisioning.stderr);
    assert.ok(
      !outputObjects(provisioning.stdout).some((o) => o.metadata.name.startsWith('docker-1-md-1-')),
      'nothing of md-1 while the control plane has no status.version',
    );
    const stable = await plan(['-f', inputDir(addMd1(withStableControlPlane(current))), '-o', 'json']);
    assert.equal(stable.code, 0, stable.stderr);
    assert.deepEqual(
      outputObjects(stable.stdout)
        .filter((o) => o.metadata.name.startsWith('docker-1-md-1-'))
        .map((o) => o.kind),
      ['KubeadmConfigTemplate', 'DockerMachineTemplate', 'MachineDeployment'],
    );
  });

  test('while the control plane upgrade is pending, the ControlPlane and its machine template wait: neither rotated nor changed in place', async () => {
    // The control plane is still provisioning (no status.version): the upgrade to v1.31.0 cannot start.
    const current = withTopologyVersion(await firstPass(), 'v1.31.0');
    const oldCpTemplate = current.find(
      (o) => o.kind === 'DockerMachineTemplate' && /^docker-1-[b-z2-9]{5}$/.test(o.metadata.name),
    )!;
    const dir = inputDir(current, withCustomImage('quick-start-control-plane'));
    const { code, stdout, stderr } = await plan(['-f', dir, '-o', 'json']);
    assert.equal(code, 0, stderr);
    const objects = outputObjects(stdout);
    const cpTemplate = objects.find(
      (o) => o.kind === 'DockerMachineTemplate' && o.metadata.name === oldCpTemplate.metadata.name,
    );
    assert.ok(cpTemplate, 'the control plane keeps its machine template');
    assert.equal(customImageOf(cpTemplate), undefined, 'the class change waits for the upgrade');
    const cp = objects.find((o) => o.kind === 'KubeadmControlPlane')!;
    assert.equal((cp.spec as { version: string }).version, 'v1.30.0');
    assert.doesNotMatch(stderr, /replaced|created/);
    assert.match(
      stderr,
      new RegExp(
        `unchanged DockerMachineTemplate default/${oldCpTemplate.metadata.name} \\(held back while the control plane upgrade is pending\\)`,
      ),
    );
    assert.match(stderr, /unchanged KubeadmControlPlane default\/docker-1-[b-z2-9]{5} \(held back/);
    // Once the control plane is stable the upgrade starts, and the changed template is rotated with it.
    const stable = await plan([
      '-f',
      inputDir(withIdleControlPlane(current), withCustomImage('quick-start-control-plane')),
      '-o',
      'json',
    ]);
    assert.equal(stable.code, 0, stable.stderr);
    const upgraded = outputObjects(stable.stdout).find((o) => o.kind === 'KubeadmControlPlane')!;
    assert.equal((upgraded.spec as { version: string }).version, 'v1.31.0');
    assert.match(
      stable.stderr,
      new RegExp(`replaced\\s+DockerMachineTemplate default/${oldCpTemplate.metadata.name} by`),
    );
  });

  test('while the control plane upgrades, a MachineDeployment waits: its version and its changed template are held back', async () => {
    const current = withTopologyVersion(withIdleControlPlane(await firstPass()), 'v1.31.0');
    const oldMd = current.find((o) => o.kind === 'MachineDeployment')!;
    const oldInfra = current.find(
      (o) => o.kind === 'DockerMachineTemplate' && o.metadata.name.startsWith('docker-1-md-0-'),
    )!;
    const dir = inputDir(current, withCustomImage('quick-start-default-worker-machinetemplate'));
    const { code, stdout, stderr } = await plan(['-f', dir, '-o', 'json']);
    assert.equal(code, 0, stderr);
    const objects = outputObjects(stdout);
    assert.equal(
      (objects.find((o) => o.kind === 'KubeadmControlPlane')!.spec as { version: string }).version,
      'v1.31.0',
      'the control plane upgrade starts',
    );
    const md = objects.find((o) => o.kind === 'MachineDeployment')!;
    assert.deepEqual(md.spec, oldMd.spec, 'the MachineDeployment is left as it is');
    const infra = objects.find((o) => o.kind === 'DockerMachineTemplate' && o.metadata.name === oldInfra.metadata.name);
    assert.ok(infra, 'its machine template is not rotated');
    assert.equal(customImageOf(infra), undefined, 'nor changed in place');
    assert.doesNotMatch(stderr, /replaced/);
    assert.match(
      stderr,
      new RegExp(
        `unchanged MachineDeployment default/${oldMd.metadata.name} \\(held back while the MachineDeployment upgrade is pending or deferred\\)`,
      ),
    );
  });

  test("owner references as upstream's desired state sets them: the Cluster owns the clones and health checks", async () => {
    const created = await firstPass();
    // NOTE: the core Cluster controller adopts both once the Cluster references them (a controller reference); the
    // garbage collector drops the deleted shim's.
    const adopted = created.map((o) =>
      o.kind === 'DockerCluster' || o.kind === 'KubeadmControlPlane'
        ? {
            ...o,
            metadata: {
              ...o.metadata,
              ownerReferences: [
                {
                  apiVersion: 'cluster.x-k8s.io/v1beta2',
                  kind: 'Cluster',
                  name: 'docker-1',
                  uid: 'uid-docker-1',
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
          }
        : o,
    );
    const current = withStableControlPlane(adopted);
    const fresh = await firstPass(false);
    const { code, stdout, stderr } = await plan(['-f', inputDir(current), '-o', 'json']);
    assert.equal(code, 0, stderr);
    const owners = (objects: readonly Obj[]) =>
      Object.fromEntries(
        objects
          .filter((o) => o.kind !== 'Cluster')
          .map((o) => [
            `${o.kind}/${o.metadata.name.replace(/-[b-z2-9]{5}$/, '')}`,
            (o.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}/${r.uid}`).join(','),
          ]),
      );
    // NOTE: as upstream, the cluster shim Secret owns the InfrastructureCluster and ControlPlane until the core
    // controller adds the Cluster; once both exist, the Cluster owns them and no shim is needed.
    assert.deepEqual(owners(outputObjects(stdout)), {
      'DockerCluster/docker-1': 'Cluster/docker-1/uid-docker-1',
      'DockerMachineTemplate/docker-1': 'Cluster/docker-1/uid-docker-1',
      'KubeadmControlPlane/docker-1': 'Cluster/docker-1/uid-docker-1',
      'MachineHealthCheck/docker-1': 'Cluster/docker-1/uid-docker-1',
      'KubeadmConfigTemplate/docker-1-md-0': 'Cluster/docker-1/uid-docker-1',
      'DockerMachineTemplate/docker-1-md-0': 'Cluster/docker-1/uid-docker-1',
      'MachineDeployment/docker-1-md-0': '',
    });
    assert.equal(owners(created)['DockerCluster/docker-1'], 'Secret/docker-1-shim/', 'the shim, not created yet');
    assert.equal(owners(created)['KubeadmControlPlane/docker-1'], 'Secret/docker-1-shim/');
    assert.equal(
      owners(fresh)['KubeadmConfigTemplate/docker-1-md-0'],
      'Cluster/docker-1/',
      "a Cluster not created yet: the reference has an empty uid, as upstream's OwnerReferenceTo",
    );
  });

  test("a topology version without the v prefix is defaulted as upstream's Cluster webhook does; an invalid one names the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-version-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'clusterclass.yaml'), readFileSync('examples/docker/clusterclass.yaml', 'utf8'));
    const cluster = readFileSync('examples/docker/cluster.yaml', 'utf8');
    writeFileSync(join(dir, 'cluster.yaml'), cluster.replace('version: v1.30.0', 'version: 1.30.0'));
    const { code, stdout, stderr } = await plan(['-f', dir, '-o', 'json']);
    assert.equal(code, 0, stderr);
    const versions = outputObjects(stdout).flatMap((o) => {
      const spec = o.spec as {
        topology?: { version?: string };
        version?: string;
        template?: { spec?: { version?: string } };
      };
      return [spec.topology?.version, spec.version, spec.template?.spec?.version].filter((v) => v !== undefined);
    });
    assert.deepEqual([...new Set(versions)], ['v1.30.0']);
    writeFileSync(join(dir, 'cluster.yaml'), cluster.replace('version: v1.30.0', "version: '1.30'"));
    const bad = await plan(['-f', dir]);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /spec\.topology\.version: Invalid value: "v1\.30": version must be a valid semantic version/,
    );
  });
  test('a class listing kubernetesVersions plans a two-minor upgrade step by step and prints the plan', async () => {
    const current = await firstPass();
    const counters = { replicas: 1, upToDateReplicas: 1, readyReplicas: 1, availableReplicas: 1 };
    const upgraded = withStableControlPlane(current).map((o) =>
      o.kind === 'KubeadmControlPlane'
        ? { ...o, status: { ...o.status, ...counters } }
        : o.kind === 'Cluster'
          ? {
              ...o,
              spec: {
                ...o.spec,
                topology: { ...(o.spec as { topology: object }).topology, version: 'v1.32.0' },
              },
            }
          : o,
    );
    const listVersions = (text: string) =>
      text.replace(/\nspec:\n/, '\nspec:\n  kubernetesVersions: [v1.30.0, v1.31.0, v1.32.0]\n');
    const out = await plan(['-f', inputDir(upgraded, listVersions), '-o', 'json']);
    assert.equal(out.code, 0, out.stderr);
    const cp = outputObjects(out.stdout).find((o) => o.kind === 'KubeadmControlPlane');
    assert.equal(cp?.spec?.['version'], 'v1.31.0', 'the control plane takes the intermediate step first');
    const md = outputObjects(out.stdout).find((o) => o.kind === 'MachineDeployment');
    assert.equal((md?.spec as { template: { spec: { version: string } } }).template.spec.version, 'v1.30.0');
    assert.match(
      out.stderr,
      /upgrade plan of Cluster default\/docker-1: control plane v1\.31\.0 → v1\.32\.0; workers v1\.32\.0\n/,
    );
    assert.doesNotMatch(out.stderr, /kubernetesVersions is kept but not used/);

    const oneMinor = await plan(['-f', inputDir(upgraded), '-o', 'json']);
    assert.equal(oneMinor.code, 1);
    assert.match(oneMinor.stderr, /cannot compute an upgrade plan from v1\.30\.0 to v1\.32\.0/);
  });
});
