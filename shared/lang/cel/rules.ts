// x-kubernetes-validations (CEL) rules of variable schemas: compiled when a ClusterClass is validated and run over
// values, as apiextensions' schema/cel validator does for upstream Cluster API (self, oldSelf, message,
// messageExpression, reason, fieldPath).
import type { Environment } from '@marcbachmann/cel-js';
import type { JSONSchemaProps, ValidationRule } from '#shared/lang/openapi/jsonschema.ts';
import type { BadValue, FieldError } from '#shared/lang/openapi/field-error.ts';
import {
  childPath,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
  keyPath,
} from '#shared/lang/openapi/field-error.ts';
import { celErrorMessage, newCelEnvironment, withKubernetesFunctions } from '#shared/lang/cel/environment.ts';
import { invalidLiterals } from '#shared/lang/cel/literals.ts';
import type { MeteredResult } from '#shared/lang/cel/cost.ts';
import {
  CelCostLimitError,
  COST_LIMIT_EXCEEDED,
  evaluateWithCostLimit,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
} from '#shared/lang/cel/cost.ts';
import type { StaticCostTotal } from '#shared/lang/cel/static-cost.ts';
import {
  computeDeclSize,
  costErrorMessage,
  estimateCelCost,
  maxCardinality,
  multiplyCost,
  STATIC_ESTIMATED_COST_LIMIT,
} from '#shared/lang/cel/static-cost.ts';
import { quote } from '#shared/lang/go/strconv.ts';
import { isJsonObject } from '#shared/lang/openapi/json-value.ts';

/** The longest message a messageExpression may produce (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

type RuleContext = {
  readonly self: unknown;
  readonly oldSelf: unknown;
};

type Compiled =
  | {
      readonly ok: true;
      readonly usesOldSelf: boolean;
      readonly type: string;
      /** The type-checked AST, for the static cost estimate (static-cost.ts). */
      readonly ast: unknown;
      /** Evaluates the expression with a cost limit (see cost.ts). */
      readonly program: (context: RuleContext, costLimit: number) => MeteredResult;
    }
  | {
      readonly ok: false;
      readonly error: string;
      /** The whole detail when it is not `compilation failed: <error>` (a program that cannot be built). */
      readonly detail?: string;
    };

const environments = new Map<string, Environment>();
const compiledCache = new Map<string, Compiled>();

function celEnvironment(selfType: string): Environment {
  let env = environments.get(selfType);
  if (!env) {
    env = newCelEnvironment(selfType);
    environments.set(selfType, env);
  }
  return env;
}

/** Whether an expression names `oldSelf` outside string literals. */
function mentionsOldSelf(expression: string): boolean {
  const code = expression.replace(/(['"])(?:\\.|(?!\1)[^\\])*\1/g, '""');
  return /(^|[^\w.])oldSelf\b/.test(code);
}

/**
 * The CEL type apiextensions gives `self` for a schema (common.SchemaDeclType), where cel-js can type it as exactly:
 * scalars, and lists and maps of them. Objects with properties, int-or-string, and strings that upstream reads as
 * bytes, durations or timestamps stay dyn: a rule is then refused only where it fails whatever `self` is.
 *
 * @example
 * selfCelType({ type: 'array', items: { type: 'integer' } }); // 'list<int>'
 */
export function selfCelType(schema: JSONSchemaProps | undefined): string {
  if (!schema || schema['x-kubernetes-int-or-string']) return 'dyn';
  switch (schema.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return ['byte', 'duration', 'date', 'date-time'].includes(schema.format ?? '') ? 'dyn' : 'string';
    case 'array':
      return schema.items ? `list<${selfCelType(schema.items)}>` : 'dyn';
    case 'object': {
      const values = schema.additionalProperties;
      return typeof values === 'object' ? `map<string, ${selfCelType(values)}>` : 'dyn';
    }
    default:
      return 'dyn';
  }
}

function compileIn(selfType: string, expression: string, usesOldSelf: boolean): Compiled {
  const env = celEnvironment(selfType);
  const parsed = env.parse(withKubernetesFunctions(expression));
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, error: celErrorMessage(checked.error) };
  const literalError = invalidLiterals(env, parsed.ast);
  if (literalError) {
    return {
      ok: false,
      error: literalError.message,
      ...(literalError.phase === 'program' && { detail: `program instantiation failed: ${literalError.message}` }),
    };
  }
  return {
    ok: true,
    usesOldSelf,
    type: String(checked.type),
    ast: parsed.ast,
    program: (context, costLimit) => evaluateWithCostLimit(parsed.ast, () => parsed(context), costLimit),
  };
}

/**
 * Type-checks an expression once per type of `self`; the result is memoized (environments never change). A rule is
 * compiled with `self` dynamic first, then typed: it runs as compiled with `self` dynamic (values are typed by
 * toCelValue), while errors and the result type come from the typed compilation.
 */
function compile(expression: string, selfType = 'dyn'): Compiled {
  const key = `${selfType}\u0000${expression}`;
  const cached = compiledCache.get(key);
  if (cached) return cached;
  let result: Compiled;
  try {
    const dynamic = selfType === 'dyn' ? undefined : compile(expression);
    if (dynamic && !dynamic.ok) result = dynamic;
    else {
      const typed = compileIn(selfType, expression, mentionsOldSelf(expression));
      result = dynamic && typed.ok ? { ...typed, program: dynamic.program } : typed;
    }
  } catch (error) {
    result = { ok: false, error: celErrorMessage(error) };
  }
  compiledCache.set(key, result);
  return result;
}

/** JSON as Go's encoding/json writes it: in the given key order, with <, > and & escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A rule as apimachinery prints the bad value of a compile error: apiextensions' internal Go struct as JSON. */
function ruleBadValue(rule: ValidationRule): BadValue {
  return {
    rendered: goJson({
      Rule: rule.rule,
      Message: rule.message ?? '',
      MessageExpression: rule.messageExpression ?? '',
      Reason: rule.reason ?? null,
      FieldPath: rule.fieldPath ?? '',
      OptionalOldSelf: null,
    }),
  };
}

/** Why a rule's messageExpression does not compile, if it does not; else its type-checked AST (if it has one). */
function compileMessageExpression(rule: ValidationRule, selfType: string): { error?: string; ast?: unknown } {
  if (rule.messageExpression === undefined || rule.messageExpression === '') return {};
  const message = compile(rule.messageExpression, selfType);
  if (!message.ok)
    return {
      error:
        message.detail === undefined
          ? `messageExpression compilation failed: ${message.error}`
          : `messageExpression instantiation failed: ${message.error}`,
    };
  if (message.type !== 'string' && message.type !== 'dyn')
    return { error: 'messageExpression must evaluate to a string' };
  return { ast: message.ast };
}

/**
 * Where a node's rules sit, for their static cost (apiextensions' CELSchemaContext): how many times they may run in
 * one value (the product of maxItems and maxProperties above them; undefined when a list or map above is unbounded)
 * and the schema's running total.
 */
export type StaticCostContext = {
  readonly cardinality: number | undefined;
  readonly isRoot: boolean;
  readonly total: StaticCostTotal;
};

/** The static cost of one rule: its estimate times how many times it may run (Cluster API's getExpressionCost). */
function ruleStaticCost(ast: unknown, schema: JSONSchemaProps, cost: StaticCostContext): number {
  const decl = computeDeclSize(schema, cost.isRoot);
  const estimate = estimateCelCost(ast, decl);
  if (estimate === 0) return 0;
  return multiplyCost(estimate, cost.cardinality ?? maxCardinality(decl?.minSerializedSize ?? 1));
}

/**
 * Compiles the rules of one schema node, as apiextensions' cel.Compile at ClusterClass validation: syntax,
 * undeclared names and functions, a rule's result type (bool) and a messageExpression's (string). `oldSelf` is
 * rejected under array items (`uncorrelatablePath`): items of atomic lists have no old value.
 *
 * @example
 * compileCelRules({ type: 'string', 'x-kubernetes-validations': [{ rule: 'self >' }] }, 'spec.variables[a].schema.openAPIV3Schema');
 * // [{ type: 'Invalid', field: '….x-kubernetes-validations[0].rule', detail: 'compilation failed: …' }]
 */
export function compileCelRules(
  schema: JSONSchemaProps,
  path: string,
  uncorrelatablePath?: string,
  cost?: StaticCostContext,
): FieldError[] {
  const errors: FieldError[] = [];
  const selfType = selfCelType(schema);
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const rulePath = indexPath(childPath(path, 'x-kubernetes-validations'), i);
    const compiled = compile(rule.rule, selfType);
    if (!compiled.ok) {
      errors.push(
        fieldInvalid(
          childPath(rulePath, 'rule'),
          ruleBadValue(rule),
          compiled.detail ?? `compilation failed: ${compiled.error}`,
        ),
      );
      return;
    }
    if (compiled.type !== 'bool' && compiled.type !== 'dyn') {
      errors.push(
        fieldInvalid(childPath(rulePath, 'rule'), ruleBadValue(rule), 'cel expression must evaluate to a bool'),
      );
      return;
    }
    if (cost) {
      const ruleCost = ruleStaticCost(compiled.ast, schema, cost);
      if (ruleCost > STATIC_ESTIMATED_COST_LIMIT)
        errors.push(
          fieldForbidden(
            childPath(rulePath, 'rule'),
            costErrorMessage('estimated rule cost', ruleCost, STATIC_ESTIMATED_COST_LIMIT),
          ),
        );
      cost.total.observe(childPath(rulePath, 'rule'), ruleCost);
    }
    // NOTE: as apiextensions, the messageExpression is compiled only once the rule has.
    const message = compileMessageExpression(rule, selfType);
    if (message.error !== undefined) {
      errors.push(fieldInvalid(childPath(rulePath, 'messageExpression'), ruleBadValue(rule), message.error));
    } else if (cost && message.ast !== undefined) {
      // NOTE: as apiextensions, a messageExpression's estimate is not multiplied by the rule's cardinality.
      const messageCost = estimateCelCost(message.ast, computeDeclSize(schema, cost.isRoot));
      if (messageCost > STATIC_ESTIMATED_COST_LIMIT)
        errors.push(
          fieldForbidden(
            childPath(rulePath, 'messageExpression'),
            costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT),
          ),
        );
      cost.total.observe(childPath(rulePath, 'messageExpression'), messageCost);
    }
    if (compiled.usesOldSelf && uncorrelatablePath !== undefined) {
      errors.push(
        fieldInvalid(
          childPath(rulePath, 'rule'),
          rule.rule,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatablePath}`,
        ),
      );
    }
  });
  return errors;
}

/** Whether a schema or any schema below it (properties, additionalProperties, items) has rules. */
export function hasCelRules(schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  if ((schema['x-kubernetes-validations'] ?? []).length > 0) return true;
  return (
    hasCelRules(schema.items) ||
    hasCelRules(schema.additionalProperties) ||
    Object.values(schema.properties ?? {}).some((p) => hasCelRules(p))
  );
}

/** A JSON value as the CEL value Kubernetes makes of it for this schema: integers are ints, other numbers doubles. */
export function toCelValue(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    const integer = schema?.type === 'integer' || (schema?.type !== 'number' && Number.isInteger(value));
    return integer && Number.isFinite(value) ? BigInt(Math.trunc(value)) : value;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => toCelValue(item, schema?.items));
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = toCelValue(item, schema?.properties?.[key] ?? schema?.additionalProperties);
    }
    return out;
  }
  return value;
}

/** How rule failures are reported (see validateCelRules). */
export type CelValidationOptions = {
  /**
   * The bad value every error shows. By default, as apiextensions: the value of a failed rule (omitted for objects
   * and arrays), the schema's type for errors evaluating one.
   */
  readonly badValue?: BadValue;
  /**
   * The rules have no CEL type to compile against (in a root array, see the ClusterClass validation): every node
   * with rules reports that instead of running them.
   */
  readonly untyped?: boolean;
};

function ruleErrorString(rule: ValidationRule): string {
  return rule.message !== undefined && rule.message.length > 0 ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message !== undefined && rule.message.length > 0
    ? rule.message.trim()
    : `failed rule: ${ruleErrorString(rule)}`;
}

/** A runtime error's text as cel-go words the common ones. */
function goRuntimeError(error: unknown): string {
  const message = celErrorMessage(error);
  const noSuchKey = /^No such key: (.*)$/i.exec(message);
  if (noSuchKey) return `no such key: ${noSuchKey[1] ?? ''}`;
  if (/no matching overload/i.test(message)) return 'no such overload';
  return message;
}

/** What is left of the cost budget of one validateCelRules call; below zero, no further rule runs. */
type CostBudget = { remaining: number };

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

function isCostLimitError(error: unknown): boolean {
  return error instanceof CelCostLimitError || celErrorMessage(error).startsWith(COST_LIMIT_EXCEEDED);
}

/**
 * A messageExpression's message, undefined when it fails (the rule's message is shown instead), or the detail of an
 * error that stops validation: its cost past the per-call limit or the budget (apiextensions' evalMessageExpression).
 */
function evaluateMessageExpression(
  expression: string,
  context: RuleContext,
  budget: CostBudget,
): { readonly message?: string; readonly stop?: string } {
  const compiled = compile(expression);
  if (!compiled.ok) return {};
  const outcome = compiled.program(context, PER_CALL_LIMIT);
  if (outcome.cost > budget.remaining) {
    return {
      stop: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
    };
  }
  if (!outcome.ok && isCostLimitError(outcome.error)) {
    return {
      stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${quote(expression)}`,
    };
  }
  budget.remaining -= outcome.cost;
  if (!outcome.ok || typeof outcome.value !== 'string') return {};
  const trimmed = outcome.value.trim();
  if (
    trimmed === '' ||
    trimmed.includes('\n') ||
    new TextEncoder().encode(trimmed).length > MAX_MESSAGE_EXPRESSION_BYTES
  )
    return {};
  return { message: trimmed };
}

function errorForReason(path: string, badValue: BadValue, detail: string, rule: ValidationRule): FieldError {
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(path, detail);
    case 'FieldValueRequired':
      return fieldRequired(path, detail);
    case 'FieldValueDuplicate':
      return fieldDuplicate(path, badValue);
    default:
      return fieldInvalid(path, badValue, detail);
  }
}

/** `.spec.foo` or `['foo']` relative to the rule's node, as apiextensions appends it to the field path. */
function normalizedFieldPath(fieldPath: string | undefined): string {
  if (!fieldPath) return '';
  return fieldPath.startsWith('.') ? fieldPath.slice(1) : fieldPath;
}

/** The bad value of a failed rule: the value itself, omitted for objects and arrays (apiextensions). */
function failedValue(value: unknown, schema: JSONSchemaProps): BadValue {
  if (schema.type === 'object' || schema.type === 'array') return { omitted: true };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return { json: value };
}

function validateRulesAt(
  value: unknown,
  oldValue: unknown,
  schema: JSONSchemaProps,
  path: string,
  options: CelValidationOptions,
  budget: CostBudget,
): FieldError[] {
  const badValue = options.badValue ?? schema.type ?? '';
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (options.untyped && rules.length > 0) {
    return [
      fieldInvalid(
        path,
        options.badValue ?? schema.type ?? '',
        'rule compiler initialization error: failed to convert to declType for CEL validation rules',
      ),
    ];
  }
  if (rules.length === 0) return [];
  if (budget.remaining <= 0) {
    budget.remaining = -1;
    return [fieldInvalid(path, badValue, OUT_OF_BUDGET)];
  }
  const errors: FieldError[] = [];
  const selfType = selfCelType(schema);
  const context: RuleContext = {
    self: toCelValue(value, schema),
    oldSelf: oldValue === undefined || oldValue === null ? null : toCelValue(oldValue, schema),
  };
  for (const rule of rules) {
    const compiled = compile(rule.rule, selfType);
    if (!compiled.ok || (compiled.type !== 'bool' && compiled.type !== 'dyn')) {
      const why = compiled.ok
        ? 'cel expression must evaluate to a bool'
        : (compiled.detail ?? `compilation failed: ${compiled.error}`);
      errors.push(fieldInvalid(path, badValue, `rule compile error: ${why}`));
      continue;
    }
    // Transition rules run only where there is an old value to compare with.
    if (compiled.usesOldSelf && context.oldSelf === null) continue;
    const outcome = compiled.program(context, PER_CALL_LIMIT);
    // NOTE: as apiextensions: the cost is checked against the budget first, then the error.
    if (outcome.cost > budget.remaining) {
      budget.remaining = -1;
      errors.push(fieldInvalid(path, badValue, OUT_OF_BUDGET));
      return errors;
    }
    budget.remaining -= outcome.cost;
    if (!outcome.ok) {
      if (isCostLimitError(outcome.error)) {
        budget.remaining = -1;
        errors.push(
          fieldInvalid(
            path,
            badValue,
            `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
          ),
        );
        return errors;
      }
      const text = goRuntimeError(outcome.error);
      const detail =
        text === 'no such overload'
          ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
          : `${text} evaluating rule: ${ruleErrorString(rule)}`;
      errors.push(fieldInvalid(path, badValue, detail));
      continue;
    }
    if (outcome.value === true) continue;
    // NOTE: as apiextensions, a messageExpression that does not compile also drops the rule's fieldPath.
    const messageCompiles = compileMessageExpression(rule, selfType).error === undefined;
    const fieldPath = messageCompiles ? normalizedFieldPath(rule.fieldPath) : '';
    const rulePath = fieldPath ? childPath(path, fieldPath) : path;
    let message: string | undefined;
    if (messageCompiles && rule.messageExpression !== undefined && rule.messageExpression !== '') {
      const evaluated = evaluateMessageExpression(rule.messageExpression, context, budget);
      if (evaluated.stop !== undefined) {
        budget.remaining = -1;
        errors.push(fieldInvalid(rulePath, badValue, evaluated.stop));
        return errors;
      }
      message = evaluated.message;
    }
    const shown = options.badValue ?? failedValue(value, schema);
    errors.push(errorForReason(rulePath, shown, message ?? ruleMessageOrDefault(rule), rule));
  }
  return errors;
}

function walk(
  value: unknown,
  oldValue: unknown,
  schema: JSONSchemaProps | undefined,
  path: string,
  options: CelValidationOptions,
  budget: CostBudget,
): FieldError[] {
  if (!schema || value === null || value === undefined) return [];
  const errors = validateRulesAt(value, oldValue, schema, path, options, budget);
  if (budget.remaining < 0) return errors;
  if (Array.isArray(value)) {
    // NOTE: items of atomic lists (the only lists variable schemas have) have no old value.
    for (const [i, item] of value.entries()) {
      errors.push(...walk(item, undefined, schema.items, indexPath(path, i), options, budget));
      if (budget.remaining < 0) break;
    }
  } else if (isJsonObject(value)) {
    const old = isJsonObject(oldValue) ? oldValue : {};
    for (const [key, item] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) errors.push(...walk(item, old[key], property, childPath(path, key), options, budget));
      else if (schema.additionalProperties)
        errors.push(...walk(item, old[key], schema.additionalProperties, keyPath(path, key), options, budget));
      if (budget.remaining < 0) break;
    }
  }
  return errors;
}

/**
 * Runs the x-kubernetes-validations rules of `schema` and of every schema below it over `value`, as apiextensions'
 * cel.Validator: `self` is the value at the rule's node, `oldSelf` the old value there (rules that use oldSelf are
 * skipped when there is none), null values are not validated. A failing rule reports its message, its
 * messageExpression's result, or `failed rule: <rule>`, at `path` (plus the rule's fieldPath), with its reason.
 *
 * @example
 * validateCelRules(3, undefined, { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 5' }] }, 'spec.topology.variables[n].value');
 * // [{ type: 'Invalid', field: 'spec.topology.variables[n].value', badValue: 'integer', detail: 'failed rule: self > 5' }]
 */
export function validateCelRules(
  value: unknown,
  oldValue: unknown,
  schema: JSONSchemaProps,
  path: string,
  options: CelValidationOptions = {},
): FieldError[] {
  if (!hasCelRules(schema)) return [];
  return walk(value, oldValue, schema, path, options, { remaining: RUNTIME_CEL_COST_BUDGET });
}
