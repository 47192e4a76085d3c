import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { convertToHub, type Unstructured } from '#shared/api/conversion/index.ts';
import { runPlan } from '#shared/cli/plan.ts';

async function plan(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runPlan(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  const objects = parseAllDocuments(stdout)
    .map((d) => d.toJSON() as { apiVersion: string; kind: string; spec?: Record<string, unknown> })
    .filter(Boolean);
  return { code, stderr, objects };
}

const capi = (o: { apiVersion: string }) => /^(addons\.)?cluster\.x-k8s\.io\//.test(o.apiVersion);

/** examples/v1beta1/docker with every Cluster API object converted to v1beta2 by the edge conversion. */
function dockerExampleInV1beta2(dir: string): string {
  for (const file of ['cluster.yaml', 'clusterclass.yaml']) {
    const docs = parseAllDocuments(readFileSync(join('examples/v1beta1/docker', file), 'utf8')).map(
      (d) => d.toJSON() as Unstructured,
    );
    const converted = docs.filter(Boolean).map((o) => (capi(o as { apiVersion: string }) ? convertToHub(o) : o));
    writeFileSync(join(dir, file), converted.map((o) => stringify(o)).join('---\n'));
  }
  return dir;
}

describe('capi-serverless plan in both API versions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-v1beta2-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('prints v1beta1 input in v1beta1', async () => {
    const { code, objects, stderr } = await plan(['-f', 'examples/v1beta1/docker']);
    assert.equal(code, 0, stderr);
    const versions = new Set(objects.filter(capi).map((o) => o.apiVersion));
    assert.deepEqual([...versions], ['cluster.x-k8s.io/v1beta1']);
    const cluster = objects.find((o) => o.kind === 'Cluster');
    assert.equal((cluster?.spec?.['topology'] as Record<string, unknown>)['class'], 'quick-start');
  });

  test('prints v1beta1 input in v1beta2 when --output-version v1beta2 asks', async () => {
    const { code, objects, stderr } = await plan(['-f', 'examples/v1beta1/docker', '--output-version', 'v1beta2']);
    assert.equal(code, 0, stderr);
    assert.deepEqual([...new Set(objects.filter(capi).map((o) => o.apiVersion))], ['cluster.x-k8s.io/v1beta2']);
    const md = objects.find((o) => o.kind === 'MachineDeployment');
    const template = (md?.spec?.['template'] as { spec: Record<string, unknown> }).spec;
    assert.deepEqual(Object.keys(template['infrastructureRef'] as object).sort(), ['apiGroup', 'kind', 'name']);
  });

  test('prints v1beta2 input in v1beta2, the same objects as from the v1beta1 input', async () => {
    const fromV1beta1 = await plan(['-f', 'examples/v1beta1/docker', '--output-version', 'v1beta2']);
    const fromV1beta2 = await plan(['-f', dockerExampleInV1beta2(dir)]);
    assert.equal(fromV1beta2.code, 0, fromV1beta2.stderr);
    assert.deepEqual(fromV1beta2.objects, fromV1beta1.objects);
  });

  test('rejects an unknown --output-version naming the choices', async () => {
    const { code, stderr } = await plan(['-f', 'examples/v1beta1/docker', '--output-version', 'v1alpha4']);
    assert.equal(code, 1);
    assert.match(stderr, /--output-version must be v1beta2 or v1beta1, got "v1alpha4"/);
  });
});
