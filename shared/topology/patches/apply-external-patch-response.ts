// A GeneratePatches response applied to the patch targets (upstream's applyPatchesToRequest): each item's base64
// JSON patch (RFC 6902) or JSON merge patch (RFC 7386) applied to the template with the item's uid, keeping only the
// patched spec, labels and annotations. Pure.
import { CapiError } from '#shared/errors/index.ts';
import { applyJSONPatch, ApplyJSONPatchError } from '#shared/topology/patches/apply-json-patch.ts';
import { PatchError, PatchErrorReason } from '#shared/topology/patches/errors.ts';
import type { PatchErrorLocation } from '#shared/topology/patches/errors.ts';
import type { PatchItemRef } from '#shared/topology/patches/external-patch-request.ts';
import type { JSONPatchOperation } from '#shared/topology/patches/generate-json-patches.ts';
import { describePatchTarget } from '#shared/topology/patches/patch-target.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import { cloneJson } from '#shared/topology/patches/patch-variables.ts';
import type { Unstructured } from '#shared/topology/types.ts';

/** One item of a GeneratePatches response. */
export type GeneratePatchesResponseItem = {
  readonly uid: string;
  readonly patchType: 'JSONPatch' | 'JSONMergePatch';
  /** base64 of the patch document (a Go `[]byte`). */
  readonly patch: string;
};

/** A patch document that is not what its patchType says. */
export class PatchDocumentError extends CapiError {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * RFC 7386 JSON merge patch, without mutating `doc`: objects merge key by key, `null` removes a key, anything else
 * (arrays too) replaces.
 *
 * @example
 * computeMergePatched({ spec: { a: 1, b: 2 } }, { spec: { a: null, c: 3 } }); // { spec: { b: 2, c: 3 } }
 */
export function computeMergePatched(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const out: Record<string, unknown> = isObject(doc) ? cloneJson(doc) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    setKey(out, key, computeMergePatched(Object.hasOwn(out, key) ? out[key] : undefined, value));
  }
  return out;
}

const supportedOps = new Set(['add', 'replace', 'remove']);

/** The operations of an RFC 6902 document; refuses what is not an array of add/replace/remove operations. */
function parseJSONPatch(document: unknown): JSONPatchOperation[] {
  if (!Array.isArray(document)) throw new PatchDocumentError('error decoding json patch (RFC6902): not an array');
  return document.map((raw: unknown, index): JSONPatchOperation => {
    if (!isObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') {
      throw new PatchDocumentError(
        `error decoding json patch (RFC6902): operation ${index} needs string "op" and "path"`,
      );
    }
    const { op, path } = raw;
    if (!supportedOps.has(op)) {
      throw new PatchDocumentError(
        `error applying json patch (RFC6902): operation ${index} (${path}): unsupported op "${op}"`,
      );
    }
    if (op === 'remove') return { op: 'remove', path };
    return { op: op as 'add' | 'replace', path, value: raw['value'] };
  });
}

function decodePatch(item: GeneratePatchesResponseItem): unknown {
  const text = Buffer.from(item.patch, 'base64').toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new PatchDocumentError(
      `error decoding ${item.patchType === 'JSONPatch' ? 'json patch (RFC6902)' : 'json merge patch (RFC7386)'}: ${(err as Error).message}`,
      {},
      { cause: err },
    );
  }
}

/**
 * The template with one response item applied, or the same template when the patch is empty. Upstream copies only
 * `spec`, `metadata.labels` and `metadata.annotations` from the patched copy (a missing `spec` is an error).
 */
function computePatchedRequestObject(template: Unstructured, item: GeneratePatchesResponseItem): Unstructured {
  const document = decodePatch(item);
  let patched: Record<string, unknown>;
  if (item.patchType === 'JSONPatch') {
    if (document === undefined) throw new PatchDocumentError('error decoding json patch (RFC6902): empty document');
    const operations = parseJSONPatch(document);
    if (operations.length === 0) return template;
    patched = applyJSONPatch(template, operations);
  } else {
    if (document === undefined || (isObject(document) && Object.keys(document).length === 0)) return template;
    const merged = computeMergePatched(template, document);
    if (!isObject(merged)) throw new PatchDocumentError('error applying json merge patch (RFC7386): not an object');
    patched = merged;
  }
  if (!Object.hasOwn(patched, 'spec'))
    throw new PatchDocumentError('failed to apply patch to template: missing field "spec"');
  const metadata: Record<string, unknown> = { ...template.metadata };
  const patchedMetadata = isObject(patched['metadata']) ? patched['metadata'] : {};
  for (const key of ['labels', 'annotations']) {
    if (Object.hasOwn(patchedMetadata, key)) setKey(metadata, key, cloneJson(patchedMetadata[key]));
  }
  return { ...template, metadata: metadata as Unstructured['metadata'], spec: cloneJson(patched['spec']) };
}

/**
 * Applies the items of a GeneratePatches response in order, each to the target whose request item had its uid, and
 * returns new targets (same order); inputs are not mutated. Throws a PatchError (reason ApplyPatchFailed) naming the
 * patch, the uid and the template when an item names no request item, cannot be decoded or does not apply.
 *
 * @example
 * const next = computeExternallyPatchedTargets(targets, refs, response.items ?? [], { patchName: 'test-patch', patchIndex: 0 });
 */
export function computeExternallyPatchedTargets(
  targets: readonly PatchTarget[],
  refs: ReadonlyMap<string, PatchItemRef>,
  items: readonly GeneratePatchesResponseItem[],
  location: PatchErrorLocation,
): PatchTarget[] {
  const templates = targets.map((target) => target.template);
  const indexByUid = new Map<string, number>();
  targets.forEach((target, i) => {
    const ref = refs.get(target.id);
    if (ref !== undefined) indexByUid.set(ref.uid, i);
  });
  for (const item of items) {
    const index = indexByUid.get(item.uid);
    const target = index === undefined ? undefined : targets[index];
    const template = index === undefined ? undefined : templates[index];
    if (index === undefined || target === undefined || template === undefined) {
      throw new PatchError(
        PatchErrorReason.ApplyPatchFailed,
        location,
        `unable to find corresponding request item with uid "${item.uid}" for the patch`,
      );
    }
    try {
      templates[index] = computePatchedRequestObject(template, item);
    } catch (err) {
      const at: PatchErrorLocation = {
        ...location,
        targetId: target.id,
        target: describePatchTarget(target),
        templateKind: template.kind,
        templateName: template.metadata.name,
        ...(err instanceof ApplyJSONPatchError ? { path: err.path } : {}),
      };
      throw new PatchError(
        PatchErrorReason.ApplyPatchFailed,
        at,
        `patch with uid "${item.uid}": ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
  return targets.map((target, i) => ({ ...target, template: templates[i] ?? target.template }));
}
