// Upstream's own current (v1beta2) e2e ClusterClasses and cluster templates, taken at run time from the pinned
// `sigs.k8s.io/cluster-api/test` Go module, parse with the project's v1beta2 schemas.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseObject } from '#shared/api/parse.ts';
import { Cluster, ClusterClass } from '#shared/api/core/v1beta2/index.ts';

const testModule = 'sigs.k8s.io/cluster-api/test@v1.14.2';

function moduleDir(): string {
  const out = execFileSync('go', ['mod', 'download', '-json', testModule], { encoding: 'utf8', cwd: '/tmp' });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${testModule}: ${info.Error ?? 'no Dir'}`);
  return info.Dir;
}

/** Replaces clusterctl's `${VAR}` / `${VAR:-default}` placeholders with values of the right type. */
function envsubst(text: string): string {
  const numeric = /(COUNT|PORT)$/;
  return text
    .replace(/cidrBlocks: \$\{[A-Z0-9_]+\}/g, 'cidrBlocks: ["10.0.0.0/16"]')
    .replace(/\$\{([A-Z0-9_]+)(:[-=]([^}]*\}?))?\}/g, (_m, name: string, _d, dflt: string | undefined) => {
      if (dflt !== undefined && dflt.startsWith('${')) return 'ns1';
      if (dflt !== undefined) return dflt;
      if (numeric.test(name)) return '1';
      if (name === 'KUBERNETES_VERSION') return 'v1.34.0';
      if (name.endsWith('CIDRS')) return '10.0.0.0/16';
      return 'x1';
    });
}

function documents(path: string): { kind?: string; apiVersion?: string }[] {
  return parseAllDocuments(envsubst(readFileSync(path, 'utf8')))
    .map((doc) => doc.toJS() as { kind?: string; apiVersion?: string } | null)
    .filter((doc): doc is { kind?: string; apiVersion?: string } => doc !== null);
}

describe('upstream v1.14 e2e data parses with the v1beta2 schemas', () => {
  const dir = join(moduleDir(), 'e2e', 'data', 'infrastructure-docker', 'main');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') && statSync(join(dir, name)).isFile())
    .filter((name) => name.startsWith('clusterclass-') || name.startsWith('cluster-template-'));
  let parsed = 0;
  for (const name of files) {
    test(`parses every v1beta2 Cluster and ClusterClass in ${name}`, () => {
      for (const doc of documents(join(dir, name))) {
        if (doc.apiVersion !== 'cluster.x-k8s.io/v1beta2') continue;
        if (doc.kind === 'ClusterClass') parseObject(ClusterClass, 'ClusterClass', doc);
        else if (doc.kind === 'Cluster') parseObject(Cluster, 'Cluster', doc);
        else continue;
        parsed++;
      }
    });
  }
  test('found upstream objects to parse', () => assert.ok(parsed >= 3, `parsed ${parsed} objects`));
});
