// Typed errors of provider component processing; each carries the condition reason upstream's operator reports.
import { CapiError } from '#shared/errors/index.ts';
import type { ErrorFields } from '#shared/errors/index.ts';

/** Condition reasons of the provider operator (upstream `api/v1alpha2/conditions_consts.go`). */
export const ProviderReason = {
  ComponentsFetchError: 'ComponentsFetchError',
  ComponentsCustomizationError: 'ComponentsCustomizationError',
  ComponentsPatchError: 'ComponentsPatchError',
  ComponentsImageOverrideError: 'ComponentsImageOverrideError',
  CAPIVersionIncompatibility: 'CAPIVersionIncompatibility',
  IncorrectVersionFormat: 'IncorrectVersionFormat',
} as const;
export type ProviderReason = (typeof ProviderReason)[keyof typeof ProviderReason];

/** Any failure while turning a provider's components YAML into the objects to apply. */
export class ProviderComponentsError extends CapiError {
  constructor(message: string, fields: ErrorFields & { reason: ProviderReason }, options?: { cause?: unknown }) {
    super(message, fields, options);
  }
}

/** The components YAML is not a list of Kubernetes objects. */
export class ComponentsParseError extends ProviderComponentsError {}

/** A `${...}` expression the simple processor (envsubst) cannot parse. */
export class VariableSyntaxError extends ProviderComponentsError {}

/** Variables used without a default and without a value; all of them, sorted. */
export class MissingVariablesError extends ProviderComponentsError {
  readonly missing: readonly string[];

  constructor(message: string, missing: readonly string[], fields: ErrorFields & { reason: ProviderReason }) {
    super(message, fields);
    this.missing = missing;
  }
}

/** A version string that is not semantic (`v1.2.3`). */
export class InvalidVersionError extends ProviderComponentsError {}

/** metadata.yaml has no release series for the requested version. */
export class ReleaseSeriesNotFoundError extends ProviderComponentsError {}

/** The release series of the version implements a contract this management cluster does not support. */
export class UnsupportedContractError extends ProviderComponentsError {}
