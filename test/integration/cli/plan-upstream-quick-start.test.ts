// `capi-serverless plan` on upstream Cluster API's own current v1beta2 quick-start: the Docker ClusterClass and the
// development Cluster template that `clusterctl generate cluster --flavor development` renders, read from the pinned
// upstream module's e2e data (test/support/harness/fetch-upstream.sh; nothing upstream is committed here).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runPlan } from '#shared/cli/plan.ts';
import { resolveUpstreamManifests } from '#test/support/harness/upstream-crds.ts';

type Planned = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown> };

/** clusterctl's variable substitution: `${NAME}` and `${NAME:=default}`, the given values first. */
function substitute(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([A-Z_]+)(?::=(.*?))?\}/g, (_, name: string, fallback: string | undefined) => {
    const value = values[name] ?? fallback;
    assert.ok(value !== undefined, `no value for \${${name}}`);
    return value;
  });
}

function dig(o: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
}

describe("plan on upstream's v1beta2 quick-start", () => {
  const upstream = resolveUpstreamManifests();
  const templates = join(upstream.dir, 'e2e', 'docker-templates');
  const dir = mkdtempSync(join(tmpdir(), 'plan-quick-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function plan(imageRepository: string) {
    const cluster = substitute(readFileSync(join(templates, 'cluster-template-development.yaml'), 'utf8'), {
      CLUSTER_NAME: 'capi-quickstart',
      NAMESPACE: 'default',
      KUBERNETES_VERSION: 'v1.34.0',
      CONTROL_PLANE_MACHINE_COUNT: '3',
      WORKER_MACHINE_COUNT: '2',
    }).replace(/name: imageRepository\n(\s+)value: ""/, `name: imageRepository\n$1value: "${imageRepository}"`);
    writeFileSync(join(dir, 'cluster.yaml'), cluster);
    writeFileSync(join(dir, 'clusterclass.yaml'), readFileSync(join(templates, 'clusterclass-quick-start.yaml')));
    let stdout = '';
    let stderr = '';
    const code = await runPlan(['-f', dir], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
    });
    const objects = parseAllDocuments(stdout)
      .map((d) => d.toJSON() as Planned)
      .filter(Boolean);
    return { code, stderr, objects, of: (kind: string) => objects.filter((o) => o.kind === kind) };
  }

  test('prints the full topology in v1beta2, the control plane in its v1beta2 contract shape', async () => {
    const { code, stderr, objects, of } = await plan('');
    assert.equal(code, 0, stderr);
    assert.deepEqual(objects.map((o) => o.kind).sort(), [
      'Cluster',
      'DevCluster',
      'DevMachineTemplate',
      'DevMachineTemplate',
      'KubeadmConfigTemplate',
      'KubeadmControlPlane',
      'MachineDeployment',
      'MachineHealthCheck',
      'MachineHealthCheck',
    ]);
    for (const o of objects.filter((o) => /(^|\.)cluster\.x-k8s\.io\//.test(o.apiVersion) && o.kind !== 'Cluster')) {
      assert.match(o.apiVersion, /\/v1beta2$/, `${o.kind} ${o.metadata.name}`);
    }
    const [kcp] = of('KubeadmControlPlane');
    const infraRef = dig(kcp, 'spec', 'machineTemplate', 'spec', 'infrastructureRef') as Record<string, unknown>;
    assert.deepEqual(Object.keys(infraRef).sort(), ['apiGroup', 'kind', 'name'], 'a v1beta2 contract reference');
    assert.equal(infraRef['kind'], 'DevMachineTemplate');
    assert.ok(
      of('DevMachineTemplate').some((t) => t.metadata.name === infraRef['name']),
      'the reference names the planned template',
    );
    assert.equal(dig(kcp, 'spec', 'machineTemplate', 'infrastructureRef'), undefined, 'no v1beta1 contract field');
    assert.equal(dig(kcp, 'spec', 'replicas'), 3);
    assert.equal(dig(kcp, 'spec', 'version'), 'v1.34.0');
    const [md] = of('MachineDeployment');
    assert.equal(dig(md, 'spec', 'replicas'), 2);
    assert.equal(dig(md, 'spec', 'template', 'spec', 'version'), 'v1.34.0');
  });

  test("the class's inline patches run: enabledIf templates decide, variables reach the control plane", async () => {
    const withoutRepository = await plan('');
    const [kcp] = withoutRepository.of('KubeadmControlPlane');
    const clusterConfiguration = dig(kcp, 'spec', 'kubeadmConfigSpec', 'clusterConfiguration');
    assert.equal(dig(clusterConfiguration, 'imageRepository'), undefined, 'enabledIf "ne .imageRepository """');
    // NOTE: podSecurityStandard.enabled is true in the template: its patch adds the PodSecurity admission config.
    const files = (dig(kcp, 'spec', 'kubeadmConfigSpec', 'files') ?? []) as { path?: string; content?: string }[];
    const pss = files.find((f) => f.path === '/etc/kubernetes/kube-apiserver-admission-pss.yaml');
    assert.ok(pss, 'the PodSecurity admission file is added');
    assert.match(pss.content ?? '', /enforce: "baseline"/);

    const withRepository = await plan('registry.example.com/capi');
    const [patched] = withRepository.of('KubeadmControlPlane');
    assert.equal(
      dig(patched, 'spec', 'kubeadmConfigSpec', 'clusterConfiguration', 'imageRepository'),
      'registry.example.com/capi',
    );
  });
});
