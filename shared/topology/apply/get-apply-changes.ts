// Change detection with server-side apply dry runs (upstream structuredmerge dryRunSSAPatch): the current object and the
// intent are both dry-run applied, and the two results are compared on the owned fields and on the topology's own
// managed fields, so a write happens only when it changes something — and removing a field the topology alone owned
// counts as a change. Dry-running the current object too gives both sides the same admission defaulting: providers'
// webhooks apply older defaults to the topology's dry runs only (upstream's kubeadm webhooks set `format`,
// `imagePullPolicy`, ... when the dry-run annotation is present), which a comparison with the stored object would take
// for a spec change and answer with a template rotation.
import { isDeepStrictEqual } from 'node:util';
import { applyObject, type KubeClient } from '#shared/kube/index.ts';
import {
  computeFilteredObject,
  TopologyDryRunAnnotation,
  type IntentOptions,
} from '#shared/topology/apply/apply-intent.ts';
import { computeDryRunError } from '#shared/topology/apply/errors.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type ApplyChanges = {
  readonly hasChanges: boolean;
  /** Something under `spec` would change (for templates: rotation instead of an in-place update). */
  readonly hasSpecChanges: boolean;
  /** Dotted paths that would change, for logs and `changed` entries. */
  readonly paths: readonly string[];
};

type ManagedFieldsEntry = {
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: string;
  fieldsV1?: Record<string, unknown>;
  [k: string]: unknown;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Our own Apply entry, without its timestamp and without the dry-run annotation it owns during a dry run. */
function ownManagedFields(obj: Unstructured, fieldManager: string): ManagedFieldsEntry[] {
  const entries = (obj.metadata['managedFields'] ?? []) as ManagedFieldsEntry[];
  return entries
    .filter((e) => e.manager === fieldManager && e.operation === 'Apply' && !e.subresource)
    .map(({ time: _time, ...entry }) => {
      const fields = structuredClone(entry.fieldsV1 ?? {});
      const meta = fields['f:metadata'];
      const annotations = isObject(meta) ? meta['f:annotations'] : undefined;
      if (isObject(meta) && isObject(annotations)) {
        delete annotations[`f:${TopologyDryRunAnnotation}`];
        if (Object.keys(annotations).every((k) => k === '.')) delete meta['f:annotations'];
        if (Object.keys(meta).length === 0) delete fields['f:metadata'];
      }
      return { ...entry, fieldsV1: fields };
    });
}

/** The dry-run annotation added to an object's owned fields (a new object). */
function withDryRunAnnotation(obj: Unstructured): Unstructured {
  return {
    ...obj,
    metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), [TopologyDryRunAnnotation]: '' } },
  };
}

function comparable(obj: Unstructured, opts: IntentOptions, fieldManager: string): Record<string, unknown> {
  const filtered = computeFilteredObject(obj, opts);
  const metadata = { ...((filtered['metadata'] as Record<string, unknown> | undefined) ?? {}) };
  if (isObject(metadata['annotations'])) {
    const annotations = { ...metadata['annotations'] };
    delete annotations[TopologyDryRunAnnotation];
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
    else metadata['annotations'] = annotations;
  }
  metadata['managedFields'] = ownManagedFields(obj, fieldManager);
  return { ...filtered, metadata };
}

function diffPaths(a: unknown, b: unknown, prefix: string, out: string[]): void {
  if (isDeepStrictEqual(a, b)) return;
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      diffPaths(a[key], b[key], prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.push(prefix);
}

/**
 * Dry-runs the apply of `intent` and of `current` itself (its owned fields), and compares the two results on the owned
 * paths and the topology's own managed fields (other managers' entries and timestamps ignored; `current`'s managed
 * fields stand for its side, as the original's dry run would make the topology own everything it sent).
 *
 * @example
 * const changes = await getApplyChanges(kube, current, intent, { allowedPaths: defaultAllowedPaths }, 'capi-topology');
 * if (!changes.hasChanges) return; // nothing to write
 */
export async function getApplyChanges(
  kube: KubeClient,
  current: Unstructured,
  intent: Unstructured,
  opts: IntentOptions,
  fieldManager: string,
): Promise<ApplyChanges> {
  const write = { fieldManager, dryRun: true, force: true };
  const dryRun = async (side: 'modified' | 'original', obj: Unstructured): Promise<Unstructured> => {
    try {
      return (await applyObject(kube, obj, write)) as Unstructured;
    } catch (err) {
      throw computeDryRunError(side, err, current);
    }
  };
  const modified = await dryRun('modified', withDryRunAnnotation(intent));
  const originalResult = await dryRun(
    'original',
    withDryRunAnnotation(computeFilteredObject(current, opts) as Unstructured),
  );
  const before = comparable(
    { ...originalResult, metadata: { ...originalResult.metadata, managedFields: current.metadata['managedFields'] } },
    opts,
    fieldManager,
  );
  const after = comparable(modified, opts, fieldManager);
  const paths: string[] = [];
  diffPaths(before, after, '', paths);
  return {
    hasChanges: paths.length > 0,
    hasSpecChanges: paths.some((p) => p === 'spec' || p.startsWith('spec.')),
    paths,
  };
}
