// Turning a patch definition's jsonPatches into RFC 6902 operations for one template: values from `value`,
// `valueFrom.variable` or a rendered `valueFrom.template`, and `enabledIf`, as upstream's inline generator does.
import type { JSONPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import { CapiError } from '#shared/errors/index.ts';
import { TemplateParseError, renderTemplate } from '#shared/lang/gotemplate/index.ts';
import { cloneJson, computeTemplateData } from '#shared/topology/patches/patch-variables.ts';
import { parseRenderedValue } from '#shared/topology/patches/rendered-value.ts';
import { getVariableValue } from '#shared/topology/patches/variable-value.ts';
import type { VariableMap } from '#shared/topology/patches/variable-value.ts';

/** One RFC 6902 operation as generated (`value` only for add/replace). */
export type JSONPatchOperation =
  | { readonly op: 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** A value, variable or template that could not be computed; the message chains upstream's. */
export class PatchValueError extends CapiError {}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Renders a Go template (sprig's hermetic functions, template name `tpl`) with the variables as data and parses the
 * output as YAML/JSON (see parseRenderedValue): `3` is a number, `"3"` a string, `true`/`yes` booleans.
 *
 * @example
 * renderValueTemplate('{{ .replicas }}', new Map([['replicas', 3]])); // 3
 */
export function renderValueTemplate(template: string, variables: VariableMap): unknown {
  let rendered: string;
  try {
    rendered = renderTemplate('tpl', template, computeTemplateData(variables));
  } catch (err) {
    const stage = err instanceof TemplateParseError ? 'parse' : 'render';
    throw new PatchValueError(
      `failed to ${stage} template: ${JSON.stringify(template)}: ${errorText(err)}`,
      {},
      { cause: err },
    );
  }
  try {
    return parseRenderedValue(rendered);
  } catch (err) {
    throw new PatchValueError(
      `failed to unmarshal rendered template: ${JSON.stringify(rendered)}: ${errorText(err)}`,
      {},
      {
        cause: err,
      },
    );
  }
}

/**
 * Upstream's patchIsEnabled: no `enabledIf` means enabled; otherwise the rendered template must parse to the JSON
 * value `true` (surrounding whitespace and YAML 1.1 spellings such as `True` or `yes` are accepted; `"true"` quoted is not).
 *
 * @example
 * patchIsEnabled('{{ .flag }}', new Map([['flag', true]])); // true
 */
export function patchIsEnabled(enabledIf: string | undefined, variables: VariableMap): boolean {
  if (enabledIf === undefined) return true;
  let value: unknown;
  try {
    value = renderValueTemplate(enabledIf, variables);
  } catch (err) {
    throw new PatchValueError(`failed to calculate value for enabledIf: ${errorText(err)}`, {}, { cause: err });
  }
  return value === true;
}

/**
 * The value of an add/replace JSON patch: exactly one of `value` (a `null` value counts as unset, as in Go) or
 * `valueFrom` with exactly one of `variable` (a path, see getVariableValue) or `template`.
 *
 * @example
 * calculateValue({ op: 'add', path: '/spec/x', valueFrom: { variable: 'cfg.list[0]' } }, variables);
 */
export function calculateValue(patch: JSONPatch, variables: VariableMap): unknown {
  const hasValue = patch.value !== undefined && patch.value !== null;
  const { valueFrom } = patch;
  if (!hasValue && valueFrom === undefined) {
    throw new PatchValueError('failed to calculate value: neither .value nor .valueFrom are set');
  }
  if (hasValue && valueFrom !== undefined) {
    throw new PatchValueError('failed to calculate value: both .value and .valueFrom are set');
  }
  if (valueFrom === undefined) return cloneJson(patch.value);
  if (valueFrom.variable === undefined && valueFrom.template === undefined) {
    throw new PatchValueError(
      'failed to calculate value: .valueFrom is set, but neither .valueFrom.variable nor .valueFrom.template are set',
    );
  }
  if (valueFrom.variable !== undefined && valueFrom.template !== undefined) {
    throw new PatchValueError(
      'failed to calculate value: .valueFrom is set, but both .valueFrom.variable and .valueFrom.template are set',
    );
  }
  if (valueFrom.variable !== undefined) {
    try {
      return cloneJson(getVariableValue(variables, valueFrom.variable));
    } catch (err) {
      throw new PatchValueError(`failed to calculate value: ${errorText(err)}`, {}, { cause: err });
    }
  }
  try {
    return renderValueTemplate(valueFrom.template ?? '', variables);
  } catch (err) {
    throw new PatchValueError(`failed to calculate value for template: ${errorText(err)}`, {}, { cause: err });
  }
}

/** A JSON patch that failed to generate, with its index in the definition. */
export class GenerateJSONPatchError extends CapiError {
  constructor(
    readonly jsonPatchIndex: number,
    readonly path: string,
    cause: unknown,
  ) {
    super(errorText(cause), {}, { cause });
  }
}

/**
 * Upstream's generateJSONPatches: one operation per jsonPatch, values computed only for add and replace.
 * Throws GenerateJSONPatchError naming the failing jsonPatch.
 */
export function generateJSONPatches(jsonPatches: readonly JSONPatch[], variables: VariableMap): JSONPatchOperation[] {
  return jsonPatches.map((patch, index): JSONPatchOperation => {
    if (patch.op === 'remove') return { op: 'remove', path: patch.path };
    try {
      return { op: patch.op, path: patch.path, value: calculateValue(patch, variables) };
    } catch (err) {
      throw new GenerateJSONPatchError(index, patch.path, err);
    }
  });
}
