// Upstream Cluster API's CRD schemas, read at run time from the pinned Go module in the module cache (downloaded
// through the Go proxy when missing; nothing upstream is committed here), and a comparison of a project schema with
// them: the contract that every field path the project reads or writes exists upstream with the same type.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The upstream release the contract is checked against (v1.14.3's module is not on the proxy; v1.14.2 is). */
export const upstreamCapiVersion = process.env['CAPI_VERSION'] ?? 'v1.14.2';

/** The `sigs.k8s.io/cluster-api` module directory, downloaded into the module cache when missing. */
export function resolveCapiModuleDir(): string {
  const fromEnv = process.env['CAPI_MODULE_DIR'];
  if (fromEnv) return fromEnv;
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const dir = join(cache, `sigs.k8s.io/cluster-api@${upstreamCapiVersion}`);
  if (existsSync(dir)) return dir;
  const scratch = mkdtempSync(join(tmpdir(), 'capi-mod-'));
  execFileSync('go', ['mod', 'init', 'scratch'], { cwd: scratch, stdio: 'ignore' });
  const out = execFileSync('go', ['mod', 'download', '-json', `sigs.k8s.io/cluster-api@${upstreamCapiVersion}`], {
    cwd: scratch,
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

export type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
};

/** The openAPIV3Schema of `version` in upstream's CRD of `plural.group`. */
export function readUpstreamSchema(group: string, plural: string, version: string): JsonSchema {
  const file = join(resolveCapiModuleDir(), 'core/config/crd/bases', `${group}_${plural}.yaml`);
  const crd = parseYaml(readFileSync(file, 'utf8')) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: JsonSchema } }[] };
  };
  const found = crd.spec.versions.find((v) => v.name === version);
  if (!found) throw new Error(`${file}: no version ${version}`);
  return found.schema.openAPIV3Schema;
}

const typeOf = (s: JsonSchema): string =>
  s['x-kubernetes-int-or-string'] === true ? 'int-or-string' : (s.type ?? 'any');

/**
 * Every difference between `ours` and `upstream` that breaks the contract: a field path we declare that upstream
 * lacks, a different type, or a different set of required fields on an object both declare. Paths under a field
 * upstream keeps as free-form (preserve-unknown-fields) are not compared.
 */
export function computeContractViolations(ours: JsonSchema, upstream: JsonSchema, path = ''): string[] {
  const out: string[] = [];
  if (upstream['x-kubernetes-preserve-unknown-fields'] === true && upstream.properties === undefined) return out;
  if (ours.type !== undefined || ours['x-kubernetes-int-or-string'] === true) {
    if (typeOf(ours) !== typeOf(upstream))
      out.push(`${path || '<root>'}: type ${typeOf(ours)}, upstream ${typeOf(upstream)}`);
  }
  if (ours.properties) {
    const ourRequired = [...(ours.required ?? [])].sort();
    const theirRequired = [...(upstream.required ?? [])].sort();
    if (JSON.stringify(ourRequired) !== JSON.stringify(theirRequired)) {
      out.push(`${path || '<root>'}: required [${ourRequired.join(', ')}], upstream [${theirRequired.join(', ')}]`);
    }
    for (const [name, schema] of Object.entries(ours.properties)) {
      const theirs = upstream.properties?.[name];
      const child = path ? `${path}.${name}` : name;
      if (theirs === undefined) {
        if (upstream['x-kubernetes-preserve-unknown-fields'] !== true) out.push(`${child}: not declared upstream`);
        continue;
      }
      out.push(...computeContractViolations(schema, theirs, child));
    }
  }
  if (ours.items && upstream.items) out.push(...computeContractViolations(ours.items, upstream.items, `${path}[]`));
  if (typeof ours.additionalProperties === 'object' && typeof upstream.additionalProperties === 'object') {
    out.push(...computeContractViolations(ours.additionalProperties, upstream.additionalProperties, `${path}{}`));
  }
  return out;
}
