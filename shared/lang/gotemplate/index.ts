// Go text/template evaluator with sprig's hermetic functions, for ClusterClass patch and naming templates.
import { builtinFuncs } from './builtins.ts';
import { execute } from './exec.ts';
import type { MissingKey } from './exec.ts';
import type { FuncMap, GoFunc } from './go-func.ts';
import { parseTrees } from './parser.ts';
import type { ParsedTrees } from './parser.ts';
import { hermeticSprigFuncs } from './sprig.ts';
import { fromJSON } from './values.ts';

export { TemplateExecError, TemplateParseError } from './errors.ts';
export type { MissingKey } from './exec.ts';
export { hermeticSprigFuncs, unsupportedSprigFuncs } from './sprig.ts';

export type TemplateOptions = {
  /**
   * `sprig` (default) adds sprig.HermeticTxtFuncMap() to the builtins, as upstream's inline patches (valueFrom.template,
   * enabledIf) do; `builtin` gives only text/template's builtins, as upstream's naming templates do.
   */
  readonly functions?: 'sprig' | 'builtin';
  /** Go's `missingkey` option; upstream uses the default for patches and `error` for naming templates. */
  readonly missingKey?: MissingKey;
};

/** A parsed template, ready to execute any number of times. */
export type Template = {
  readonly name: string;
  readonly text: string;
  readonly trees: ParsedTrees;
  readonly funcs: FuncMap;
  readonly missingKey: MissingKey;
};

function funcMap(functions: 'sprig' | 'builtin'): FuncMap {
  if (functions === 'builtin') return builtinFuncs;
  return new Map<string, GoFunc>([...builtinFuncs, ...hermeticSprigFuncs]);
}

/**
 * Parses Go template text; throws TemplateParseError (with line and column) like Go's Template.Parse.
 *
 * @example
 * const tpl = parseTemplate('tpl', '{{ .cluster.name }}-{{ .random }}', { functions: 'builtin', missingKey: 'error' });
 */
export function parseTemplate(name: string, text: string, options: TemplateOptions = {}): Template {
  const funcs = funcMap(options.functions ?? 'sprig');
  const trees = parseTrees(name, text, (fnName) => funcs.has(fnName));
  return { name, text, trees, funcs, missingKey: options.missingKey ?? 'default' };
}

/**
 * Executes a template against JSON-decoded data (numbers are float64, as encoding/json decodes them); throws
 * TemplateExecError naming the template and the action. The data is copied, never mutated.
 *
 * @example
 * executeTemplate(parseTemplate('tpl', '{{ .replicas | add1 }}'), { replicas: 2 }); // '3'
 */
export function executeTemplate(tpl: Template, data: unknown): string {
  const goData = fromJSON(data);
  return execute(tpl, goData === null ? undefined : goData);
}

/**
 * Parses and executes in one go.
 *
 * @example
 * renderTemplate('enabledIf', '{{ if .flag }}true{{ end }}', { flag: true }); // 'true'
 */
export function renderTemplate(name: string, text: string, data: unknown, options: TemplateOptions = {}): string {
  return executeTemplate(parseTemplate(name, text, options), data);
}
