// Files of upstream Go modules (CRDs, e2e data) read at test time from the Go module cache, never committed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '#shared/kube/index.ts';

/** The pinned upstream Cluster API release the harness runs (the newest v1.14.x the Go module proxy serves whole). */
export const upstreamCapiVersion = 'v1.14.2';

const dirs = new Map<string, string>();

/** The source folder of a Go module version, downloaded into the module cache once. */
export function goModuleDir(path: string, version: string): string {
  const id = `${path}@${version}`;
  const known = dirs.get(id);
  if (known) return known;
  // NOTE: `go mod download` needs a module to run in; an empty scratch one is enough.
  const scratch = join(
    process.env['XDG_CACHE_HOME'] ?? join(process.env['HOME'] ?? '/tmp', '.cache'),
    'capi-serverless',
    'go-scratch',
  );
  mkdirSync(scratch, { recursive: true });
  execFileSync('bash', ['-c', 'test -f go.mod || go mod init capi-serverless/scratch >/dev/null 2>&1'], {
    cwd: scratch,
  });
  const out = execFileSync('go', ['mod', 'download', '-json', id], { cwd: scratch, encoding: 'utf8' });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${id} failed: ${info.Error ?? 'no Dir'}`);
  dirs.set(id, info.Dir);
  return info.Dir;
}

/** The objects of a YAML file in a module. */
export function readModuleYaml(path: string, version: string, file: string): KubeObject[] {
  const text = readFileSync(join(goModuleDir(path, version), file), 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}
