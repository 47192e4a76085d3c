import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runPlan } from '#shared/cli/plan.ts';

async function plan(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runPlan(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  const objects = parseAllDocuments(stdout)
    .map(
      (d) =>
        d.toJSON() as {
          kind: string;
          metadata: { name: string; labels?: Record<string, string> };
          spec?: Record<string, unknown>;
        },
    )
    .filter(Boolean);
  return { code, stdout, stderr, objects };
}

describe('capi-serverless plan', () => {
  test('prints the full topology of the Docker example', async () => {
    const { code, objects, stderr } = await plan(['-f', 'examples/docker']);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      objects.map((o) => o.kind),
      [
        'Cluster',
        'DockerCluster',
        'DockerMachineTemplate',
        'KubeadmControlPlane',
        'MachineHealthCheck',
        'KubeadmConfigTemplate',
        'DockerMachineTemplate',
        'MachineDeployment',
      ],
    );
    const md = objects.find((o) => o.kind === 'MachineDeployment')!;
    assert.equal(md.metadata.labels?.['team'], 'payments');
    assert.equal(md.metadata.labels?.['node-role.example.com/worker'], '');
    assert.match(stderr, /created\s+MachineDeployment default\/docker-1-md-0-/);
  });

  test('prints a managed topology with MachinePools and no control plane machines', async () => {
    const { code, objects } = await plan([
      '-f',
      'examples/managed/clusterclass.yaml',
      '-f',
      'examples/managed/cluster.yaml',
    ]);
    assert.equal(code, 0);
    assert.deepEqual(
      objects.filter((o) => o.kind === 'MachinePool').map((o) => o.metadata.name.replace(/-[b-z2-9]{5}$/, '')),
      ['aks-1-apps', 'aks-1-system'],
    );
    const cp = objects.find((o) => o.kind === 'AzureManagedControlPlane')!;
    assert.equal(cp.spec?.['replicas'], undefined);
    assert.equal(cp.spec?.['machineTemplate'], undefined);
    assert.equal(cp.spec?.['version'], 'v1.30.3');
  });

  test('applies variables (defaulted, overridden per MachineDeployment) and patches in the variables-and-patches example', async () => {
    const { code, objects, stderr } = await plan(['-f', 'examples/variables-and-patches']);
    assert.equal(code, 0, stderr);
    const get = (kind: string, prefix: string) =>
      objects.find((o) => o.kind === kind && o.metadata.name.startsWith(prefix))!;
    const cp = get('KubeadmControlPlane', 'patched-1-') as unknown as {
      spec: {
        kubeadmConfigSpec: {
          clusterConfiguration: { imageRepository: string; apiServer: { extraArgs: Record<string, string> } };
        };
      };
    };
    assert.equal(
      cp.spec.kubeadmConfigSpec.clusterConfiguration.imageRepository,
      'registry.k8s.io',
      'top-level default reaches the patch',
    );
    assert.deepEqual(cp.spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs, {
      'admission-control-config-file': '/etc/kubernetes/kube-apiserver-admission-pss.yaml',
      'enforce-level': 'restricted',
      version: '1.30.0',
    });
    const lb = (get('DockerCluster', 'patched-1-').spec as { loadBalancer: unknown }).loadBalancer;
    assert.deepEqual(
      lb,
      { imageRepository: 'kindest', imageTag: 'v20230510-486859a6' },
      'nested defaults reach a template patch',
    );
    const gpu = get('DockerMachineTemplate', 'patched-1-gpu-') as unknown as {
      spec: { template: { spec: { customImage: string; extraMounts: unknown[] } } };
    };
    const md0 = get('DockerMachineTemplate', 'patched-1-md-0-') as unknown as typeof gpu;
    assert.equal(gpu.spec.template.spec.customImage, 'kindest/node:v1.29.4', 'the per-MachineDeployment override wins');
    assert.equal(md0.spec.template.spec.customImage, 'kindest/node:v1.30.0');
    assert.deepEqual(gpu.spec.template.spec.extraMounts.at(-1), {
      containerPath: '/var/lib/patched-1-gpu',
      hostPath: '/tmp/PATCHED-1',
    });
  });

  test('json output is a List of the same objects', async () => {
    const { code, stdout } = await plan(['-f', 'examples/docker', '-o', 'json']);
    assert.equal(code, 0);
    const list = JSON.parse(stdout) as { kind: string; items: unknown[] };
    assert.equal(list.kind, 'List');
    assert.equal(list.items.length, 8);
  });

  test('output is the same on every run', async () => {
    const a = await plan(['-f', 'examples/docker']);
    const b = await plan(['-f', 'examples/docker']);
    assert.equal(a.stdout, b.stdout);
  });

  test('invalid input exits non-zero, names the file, the object and the field, and prints no objects', async () => {
    const { code, stdout, stderr } = await plan([
      '-f',
      'examples/docker/clusterclass.yaml',
      '-f',
      'test/support/fixtures/plan/bad-cluster.yaml',
    ]);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /test\/support\/fixtures\/plan\/bad-cluster\.yaml: invalid Cluster default\/bad: spec\.topology\.workers\.machineDeployments\[0\]\.class: Invalid value: "no-such-class"/,
    );
  });

  test('--diff shows what changes against the given current objects', async () => {
    const first = await plan(['-f', 'examples/docker', '-o', 'json']);
    const items = (JSON.parse(first.stdout) as { items: { kind: string; spec: { replicas?: number } }[] }).items;
    assert.ok(items.length > 0);
    const { code, stdout } = await plan(['-f', 'examples/docker', '--diff']);
    assert.equal(code, 0);
    assert.match(stdout, /# MachineDeployment default\/docker-1-md-0-\w+: created/);
    assert.match(stdout, /\+ kind: MachineDeployment/);
  });
});
