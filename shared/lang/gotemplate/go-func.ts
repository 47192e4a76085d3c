// The Go signature of a template function, so arguments are checked and converted as text/template does.
import type { GoValue } from './values.ts';

/**
 * A parameter's Go type: `value` is reflect.Value (builtins get anything, even a missing value), `any` is interface{},
 * `map` is map[string]interface{}, `version` is *semver.Version.
 */
export type ParamType = 'value' | 'any' | 'string' | 'int' | 'bool' | 'float64' | 'map' | 'version';

export type GoFunc = {
  readonly params: readonly ParamType[];
  /** Element type of a trailing variadic parameter. */
  readonly variadic?: ParamType;
  /** Runs the function; throws FuncError for a Go error result or a panic. */
  readonly call: (args: GoValue[]) => GoValue;
};

/** The error a Go function returns (or the panic it raises), reported as `error calling NAME: ...`. */
export class FuncError extends Error {}

export const goTypeOfParam: Record<ParamType, string> = {
  value: 'reflect.Value',
  any: 'interface {}',
  string: 'string',
  int: 'int',
  bool: 'bool',
  float64: 'float64',
  map: 'map[string]interface {}',
  version: '*semver.Version',
};

export type FuncMap = ReadonlyMap<string, GoFunc>;

/** Shorthand for declaring a function: `fn(['int', 'string'], ([n, s]) => ...)`. */
export function fn(params: readonly ParamType[], call: (args: GoValue[]) => GoValue, variadic?: ParamType): GoFunc {
  return variadic === undefined ? { params, call } : { params, variadic, call };
}
