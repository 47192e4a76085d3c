// clusterctl's simple processor: `${VAR}` substitution (drone/envsubst) where every variable used without a
// default must have a value, and all the missing ones are reported together.
import type { ErrorFields } from '#shared/errors/index.ts';
import {
  TemplateSyntaxFailure,
  computeEnvsubst,
  computeTemplateVariables,
  normalizeLegacyVariables,
  parseEnvsubstTemplate,
} from '#shared/providers/desired/envsubst-template.ts';
import type { TemplateNode } from '#shared/providers/desired/envsubst-template.ts';
import {
  MissingVariablesError,
  ProviderReason,
  VariableSyntaxError,
} from '#shared/providers/desired/provider-components-error.ts';

export type SubstitutionContext = {
  /** Where the text came from, for messages (`components.yaml of InfrastructureProvider capi-system/aws v2.5.0`). */
  readonly source?: string;
  /** The object the error is about (the provider). */
  readonly object?: Omit<ErrorFields, 'reason' | 'fieldPath'>;
};

function parse(text: string, context: SubstitutionContext): TemplateNode[] {
  try {
    return parseEnvsubstTemplate(normalizeLegacyVariables(text));
  } catch (err) {
    if (!(err instanceof TemplateSyntaxFailure)) throw err;
    const where = context.source ? ` in ${context.source}` : '';
    throw new VariableSyntaxError(
      `failed to perform variable substitution${where}: ${err.syntax} at character ${err.offset}`,
      {
        ...context.object,
        reason: ProviderReason.ComponentsFetchError,
      },
    );
  }
}

/**
 * The variables a text uses, sorted, as clusterctl's `GetVariables` lists them (top-level `${...}` only).
 *
 * @example
 * listVariables('a: ${B}\nc: ${A:=x}'); // ['A', 'B']
 */
export function listVariables(text: string, context: SubstitutionContext = {}): string[] {
  return [...computeTemplateVariables(parse(text, context)).keys()].sort();
}

/**
 * The variables a text uses with the default text of their first use; `undefined` marks a required variable.
 *
 * @example
 * listVariableDefaults('${A:=x} ${B}'); // { A: 'x', B: undefined }
 */
export function listVariableDefaults(
  text: string,
  context: SubstitutionContext = {},
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const vars = computeTemplateVariables(parse(text, context));
  for (const name of [...vars.keys()].sort()) {
    const value = vars.get(name);
    out[name] = value === '' ? undefined : value;
  }
  return out;
}

/**
 * Substitutes `${VAR}` expressions with `values`, with clusterctl's rules: a variable without a value and without
 * a default (on its first use) is missing, and all missing variables are reported at once, sorted, in one
 * MissingVariablesError; a value that is set but empty counts as set. Syntax errors throw VariableSyntaxError.
 *
 * @example
 * computeVariableSubstitution('replicas: ${REPLICAS:=1}\nregion: ${AWS_REGION}', { AWS_REGION: 'eu-west-1' });
 * // 'replicas: 1\nregion: eu-west-1'
 */
export function computeVariableSubstitution(
  text: string,
  values: Readonly<Record<string, string>>,
  context: SubstitutionContext = {},
): string {
  const nodes = parse(text, context);
  const has = (name: string) => Object.hasOwn(values, name);
  const missing = [...computeTemplateVariables(nodes)]
    .filter(([name, defaultText]) => defaultText === '' && !has(name))
    .map(([name]) => name)
    .sort();
  if (missing.length > 0) {
    // NOTE: clusterctl's words (the operator's condition message) first, then where: its hint names clusterctl's
    // sources; the operator reads the variables from the provider's configSecret.
    const where = context.source ? ` (${context.source})` : '';
    throw new MissingVariablesError(
      `failed to perform variable substitution: value for variables [${missing.join(', ')}] is not set. Please set the value using os environment variables or the clusterctl config file${where}`,
      missing,
      { ...context.object, reason: ProviderReason.ComponentsFetchError },
    );
  }
  return computeEnvsubst(nodes, (name) => (has(name) ? values[name] : undefined));
}
