// ProviderSpec `manifestPatches` (JSON merge patches matched by kind/apiVersion/name) and `patches` (JSON merge or
// RFC 6902 patches with a target selector), as the operator's `internal/patch` package applies them.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import type { Patch, PatchSelector } from '#shared/api/operator/v1alpha2/provider.ts';
import { computeLabelSelectorMatch, parseLabelSelector } from '#shared/providers/desired/label-selector.ts';
import type { LabelRequirement } from '#shared/providers/desired/label-selector.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { ProviderComponentsError, ProviderReason } from '#shared/providers/desired/provider-components-error.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(message: string, cause?: unknown): never {
  throw new ProviderComponentsError(
    message,
    { reason: ProviderReason.ComponentsPatchError },
    cause === undefined ? undefined : { cause },
  );
}

function yamlToJson(text: string, what: string): Json {
  try {
    return (parseYaml(text) ?? null) as Json;
  } catch (err) {
    return fail(
      `failed to convert ${what} YAML to JSON: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`,
      err,
    );
  }
}

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. Pure.
 *
 * @example
 * computeMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }); // { a: 1, b: { d: 3 } }
 */
export function computeMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = computeMergePatch(out[key], value);
  }
  return out;
}

function asObject(value: unknown, where: string): ComponentObject {
  const o = value as ComponentObject;
  if (!isObject(value) || typeof o.kind !== 'string' || typeof o.apiVersion !== 'string' || !isObject(o.metadata)) {
    fail(`${where}: patched object is not a Kubernetes object`);
  }
  return o;
}

type MatchInfo = { kind: string; apiVersion: string; name: string; namespace: string };
function matchInfo(v: unknown): MatchInfo {
  const o = isObject(v) ? v : {};
  const meta = isObject(o['metadata']) ? o['metadata'] : {};
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    kind: str(o['kind']),
    apiVersion: str(o['apiVersion']),
    name: str(meta['name']),
    namespace: str(meta['namespace']),
  };
}

/**
 * Applies `manifestPatches`: each is a YAML JSON-merge-patch whose `kind` must equal the object's, and whose
 * `apiVersion`, `metadata.name` and `metadata.namespace`, when set, must equal the object's too. Patches apply in
 * order; inputs are not modified.
 *
 * @example
 * computeManifestPatches(objs, ['kind: Deployment\napiVersion: apps/v1\nspec:\n  replicas: 3\n']);
 */
export function computeManifestPatches(
  objs: readonly ComponentObject[],
  manifestPatches: readonly string[],
): ComponentObject[] {
  const patches = manifestPatches.map((text, i) => {
    const json = yamlToJson(text, `manifestPatches[${i}]`);
    return { json, match: matchInfo(json) };
  });
  return objs.map((obj) => {
    let current: unknown = obj;
    for (const [i, p] of patches.entries()) {
      const m = matchInfo(current);
      // NOTE: upstream's matcher skips patches without apiVersion and never compares a set one; we follow the
      // documented behaviour (kind must match; apiVersion, name and namespace must match when the patch sets them).
      if (p.match.kind !== m.kind) continue;
      if (p.match.apiVersion && p.match.apiVersion !== m.apiVersion) continue;
      if (p.match.name && p.match.name !== m.name) continue;
      if (p.match.namespace && p.match.namespace !== m.namespace) continue;
      current = asObject(computeMergePatch(current, p.json), `manifestPatches[${i}]`);
    }
    return current === obj ? (structuredClone(obj) as ComponentObject) : (current as ComponentObject);
  });
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function matchesSelector(
  obj: ComponentObject,
  sel: PatchSelector | undefined,
  labels: readonly LabelRequirement[] | undefined,
): boolean {
  if (!sel) return true;
  const gv = splitApiVersion(obj.apiVersion);
  if (sel.group && sel.group !== gv.group) return false;
  if (sel.version && sel.version !== gv.version) return false;
  if (sel.kind && sel.kind !== obj.kind) return false;
  if (sel.name && sel.name !== (obj.metadata.name ?? '')) return false;
  if (sel.namespace && sel.namespace !== (obj.metadata.namespace ?? '')) return false;
  if (labels && !computeLabelSelectorMatch(labels, obj.metadata.labels ?? {})) return false;
  return true;
}

function applyOne(obj: ComponentObject, patch: Json, where: string): ComponentObject {
  if (Array.isArray(patch)) {
    if (patch.length === 0) fail(`${where}: rfc6902 patch is empty`);
    if (patch.every(isObject)) {
      try {
        const result = jsonpatch.applyPatch(
          obj,
          structuredClone(patch) as unknown as Operation[],
          true,
          false,
        ).newDocument;
        return asObject(result, where);
      } catch (err) {
        if (err instanceof ProviderComponentsError) throw err;
        return fail(
          `${where}: failed to apply RFC6902 patch: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`,
          err,
        );
      }
    }
    return fail(`${where}: unable to infer patch type`);
  }
  if (patch === null) fail(`${where}: rfc6902 patch is empty`);
  return asObject(computeMergePatch(obj, patch), where);
}

/**
 * Applies `patches`: each patch (YAML) is an RFC 6902 operation list when it is a list, else a JSON merge patch, and
 * applies to every object its `target` selects (group, version, kind, name, namespace, label selector string).
 * Patches apply in order; inputs are not modified.
 *
 * @example
 * computeGenericPatches(objs, [{ target: { kind: 'Deployment' }, patch: '- op: replace\n  path: /spec/replicas\n  value: 2' }]);
 */
export function computeGenericPatches(objs: readonly ComponentObject[], patches: readonly Patch[]): ComponentObject[] {
  let out = objs.map((o) => structuredClone(o) as ComponentObject);
  for (const [i, p] of patches.entries()) {
    const patchJson = yamlToJson(p.patch ?? '', `patches[${i}]`);
    let labels: LabelRequirement[] | undefined;
    if (p.target?.labelSelector) {
      try {
        labels = parseLabelSelector(p.target.labelSelector);
      } catch (err) {
        fail(
          `patch ${i}: failed to parse label selector "${p.target.labelSelector}": ${err instanceof Error ? err.message : String(err)}`,
          err,
        );
      }
    }
    out = out.map((obj) => {
      if (!matchesSelector(obj, p.target, labels)) return obj;
      const where = `patch ${i}: failed to apply patch to ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
      return applyOne(obj, patchJson, where);
    });
  }
  return out;
}
