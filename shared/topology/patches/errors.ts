// Typed errors of the inline patch engine: every failure names the patch, where in it, and which template.
import { CapiError } from '#shared/errors/index.ts';

/** Why a patch failed, used as the condition reason. */
export const PatchErrorReason = {
  /** The patch itself is not valid (path outside `/spec/`, both value and valueFrom, no definitions…). */
  InvalidPatch: 'InvalidPatch',
  /** A value, a variable, a template or enabledIf could not be computed for a template. */
  GeneratePatchFailed: 'GeneratePatchFailed',
  /** The generated JSON patch does not apply to the template (missing path, missing key…). */
  ApplyPatchFailed: 'ApplyPatchFailed',
  /** The patch uses `external` (Runtime Extensions), which this engine does not support. */
  ExternalPatchNotSupported: 'ExternalPatchNotSupported',
} as const;
export type PatchErrorReason = (typeof PatchErrorReason)[keyof typeof PatchErrorReason];

/** Where a patch failed: the patch, and optionally its definition, JSON patch and the template it was applied to. */
export type PatchErrorLocation = {
  readonly patchName: string;
  /** Index of the patch in ClusterClass `spec.patches`. */
  readonly patchIndex: number;
  readonly definitionIndex?: number | undefined;
  readonly jsonPatchIndex?: number | undefined;
  /** The JSON pointer of the failing JSON patch. */
  readonly path?: string | undefined;
  /** The PatchTarget id (e.g. `MachineDeploymentInfrastructure/md-a`). */
  readonly targetId?: string | undefined;
  /** A human description of the target: template kind and holder (e.g. `AWSMachineTemplate of MachineDeployment topology md-a (spec.template.spec.infrastructureRef)`). */
  readonly target?: string | undefined;
  /** Kind and name of the template, when the failure concerns one. */
  readonly templateKind?: string | undefined;
  readonly templateName?: string | undefined;
};

/** The ClusterClass field path of a location: `spec.patches[0].definitions[1].jsonPatches[2]`. */
export function patchFieldPath(loc: PatchErrorLocation): string {
  let path = `spec.patches[${loc.patchIndex}]`;
  if (loc.definitionIndex !== undefined) path += `.definitions[${loc.definitionIndex}]`;
  if (loc.jsonPatchIndex !== undefined) path += `.jsonPatches[${loc.jsonPatchIndex}]`;
  return path;
}

function describeLocation(loc: PatchErrorLocation): string {
  let where = `patch "${loc.patchName}"`;
  if (loc.definitionIndex !== undefined) where += ` definitions[${loc.definitionIndex}]`;
  if (loc.jsonPatchIndex !== undefined) where += ` jsonPatches[${loc.jsonPatchIndex}]`;
  if (loc.path !== undefined) where += ` (path ${loc.path})`;
  if (loc.target !== undefined) where += ` for ${loc.target}`;
  return where;
}

/**
 * A ClusterClass patch that could not be validated, generated or applied. Nothing partial is returned when it is
 * thrown. `fieldPath` is the ClusterClass field (`spec.patches[i].definitions[j].jsonPatches[k]`), `kind`/`name`
 * the template.
 *
 * @example
 * throw new PatchError(PatchErrorReason.GeneratePatchFailed, { patchName: 'region', patchIndex: 0 }, 'variable "region" does not exist');
 */
export class PatchError extends CapiError {
  readonly location: PatchErrorLocation;
  readonly why: string;

  constructor(reason: PatchErrorReason, location: PatchErrorLocation, why: string, options?: { cause?: unknown }) {
    super(
      `failed to ${verbOf(reason)} ${describeLocation(location)}: ${why}`,
      {
        reason,
        fieldPath: patchFieldPath(location),
        ...(location.templateKind === undefined ? {} : { kind: location.templateKind }),
        ...(location.templateName === undefined ? {} : { name: location.templateName }),
      },
      options,
    );
    this.location = location;
    this.why = why;
  }
}

function verbOf(reason: PatchErrorReason): string {
  switch (reason) {
    case PatchErrorReason.InvalidPatch:
      return 'validate';
    case PatchErrorReason.GeneratePatchFailed:
      return 'generate patches for';
    case PatchErrorReason.ApplyPatchFailed:
      return 'apply';
    case PatchErrorReason.ExternalPatchNotSupported:
      return 'use';
  }
}

/** A patch with `external` set: Runtime Extensions are not available, so the whole patch pass fails. */
export class ExternalPatchNotSupportedError extends PatchError {
  constructor(location: PatchErrorLocation) {
    super(
      PatchErrorReason.ExternalPatchNotSupported,
      location,
      'external patches (Runtime Extensions) are not supported; use inline definitions instead',
    );
  }
}
