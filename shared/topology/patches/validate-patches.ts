// The rules upstream's ClusterClass webhook enforces on inline patches, checked again before any patch is applied
// (there is no admission webhook in front of a serverless controller).
import type { ClusterClassPatch, JSONPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import { parseTemplate } from '#shared/lang/gotemplate/index.ts';
import { ExternalPatchNotSupportedError, PatchError, PatchErrorReason } from '#shared/topology/patches/errors.ts';

/**
 * Problems with one JSON patch, as upstream's validateJSONPatches reports them: the path must start with `/spec/`;
 * a numeric path segment is only allowed as `0` (prepend) in an `add`, never in `replace`/`remove`; add/replace
 * need exactly one of `value` or `valueFrom`, which needs exactly one of `variable` or `template`.
 *
 * @example
 * jsonPatchProblems({ op: 'replace', path: '/metadata/name', value: 'x' }); // ['jsonPatch path must start with "/spec/"']
 */
export function jsonPatchProblems(patch: JSONPatch): string[] {
  const problems: string[] = [];
  if (!['add', 'replace', 'remove'].includes(patch.op)) problems.push(`unsupported op "${String(patch.op)}"`);
  if (!patch.path.startsWith('/spec/')) problems.push('jsonPatch path must start with "/spec/"');
  for (const part of patch.path.split('/')) {
    // NOTE: Go's strconv.Atoi: a segment that is not an int64 is not an index.
    if (!/^[+-]?[0-9]+$/.test(part) || BigInt(part) < -(2n ** 63n) || BigInt(part) >= 2n ** 63n) continue;
    const index = Number(part);
    if (patch.op === 'add' && index !== 0) {
      problems.push('arrays can only be accessed using "0" (prepend) or "-" (append)');
    }
    if (patch.op === 'replace' || patch.op === 'remove') {
      problems.push(`elements in arrays can not be accessed in a ${patch.op} operation`);
    }
  }
  if (patch.op !== 'add' && patch.op !== 'replace') return problems;
  const hasValue = patch.value !== undefined && patch.value !== null;
  if (!hasValue && patch.valueFrom === undefined) problems.push('jsonPatch must define one of value or valueFrom');
  if (hasValue && patch.valueFrom !== undefined) problems.push('jsonPatch can not define both value and valueFrom');
  const { valueFrom } = patch;
  if (valueFrom !== undefined) {
    if (valueFrom.template === undefined && valueFrom.variable === undefined) {
      problems.push('valueFrom must set either template or variable');
    }
    if (valueFrom.template !== undefined && valueFrom.variable !== undefined) {
      problems.push('valueFrom can not set both template and variable');
    }
    if (valueFrom.template !== undefined) {
      const why = templateParseProblem(valueFrom.template);
      if (why !== undefined) problems.push(`valueFrom.template can not be parsed: ${why}`);
    }
  }
  return problems;
}

function templateParseProblem(text: string): string | undefined {
  try {
    parseTemplate('tpl', text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Throws the first problem of a ClusterClass patch: `external` is not supported (ExternalPatchNotSupportedError),
 * an inline patch needs at least one definition, `enabledIf` must parse, and every JSON patch must pass
 * {@link jsonPatchProblems} (PatchError with reason InvalidPatch, naming definition and jsonPatch indexes).
 */
export function validateInlinePatch(patch: ClusterClassPatch, patchIndex: number): void {
  const base = { patchName: patch.name, patchIndex };
  if (patch.external !== undefined) throw new ExternalPatchNotSupportedError(base);
  const definitions = patch.definitions ?? [];
  if (definitions.length === 0) {
    throw new PatchError(PatchErrorReason.InvalidPatch, base, 'one of definitions or external must be defined');
  }
  if (patch.enabledIf !== undefined) {
    const why = templateParseProblem(patch.enabledIf);
    if (why !== undefined)
      throw new PatchError(PatchErrorReason.InvalidPatch, base, `enabledIf can not be parsed: ${why}`);
  }
  definitions.forEach((definition, definitionIndex) => {
    definition.jsonPatches.forEach((jsonPatch, jsonPatchIndex) => {
      const [problem] = jsonPatchProblems(jsonPatch);
      if (problem !== undefined) {
        throw new PatchError(
          PatchErrorReason.InvalidPatch,
          { ...base, definitionIndex, jsonPatchIndex, path: jsonPatch.path },
          problem,
        );
      }
    });
  });
}
