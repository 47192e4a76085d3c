// The inputs of `plan`: the objects in the files and folders given with -f (and --current), and the deterministic name
// suffixes that keep its output stable between runs. Shared by the one-Cluster plan and the fleet forecast.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CapiError } from '#shared/errors/index.ts';
import type { SourcedObject } from '#shared/cli/plan/compute-plan.ts';
import type { Unstructured } from '#shared/topology/types.ts';

function listFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) return listFiles(full);
      return /\.(ya?ml|json)$/.test(entry) ? [full] : [];
    });
}

/** Every object in the given files; items of `List` objects are unpacked. Errors name the file and document. */
export function readManifests(paths: readonly string[]): SourcedObject[] {
  const out: SourcedObject[] = [];
  for (const file of paths.flatMap(listFiles)) {
    const docs = parseAllDocuments(readFileSync(file, 'utf8'));
    docs.forEach((doc, i) => {
      if (doc.errors.length > 0)
        throw new CapiError(`${file}: document ${i + 1}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
      const value = doc.toJSON() as unknown;
      if (value === null || value === undefined) return;
      const items =
        typeof value === 'object' && (value as { kind?: string }).kind?.endsWith('List')
          ? ((value as { items?: unknown[] }).items ?? [])
          : [value];
      for (const item of items) {
        const o = item as Partial<Unstructured>;
        if (
          typeof o !== 'object' ||
          !o ||
          typeof o.apiVersion !== 'string' ||
          typeof o.kind !== 'string' ||
          typeof o.metadata?.name !== 'string'
        ) {
          throw new CapiError(
            `${file}: document ${i + 1}: not a Kubernetes object (apiVersion, kind and metadata.name are required)`,
          );
        }
        out.push({
          object: { ...(o as Unstructured), metadata: { ...o.metadata, namespace: o.metadata.namespace ?? 'default' } },
          source: `${file}`,
        });
      }
    });
  }
  return out;
}

/** A suffix generator that is deterministic per run, so plan output does not flap between runs. */
export function deterministicSuffix(): () => string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let n = 0;
  return () => {
    let x = n++;
    let s = '';
    for (let k = 0; k < 5; k++) {
      s = alphabet[x % alphabet.length] + s;
      x = Math.floor(x / alphabet.length);
    }
    return s;
  };
}
