// ClusterClass variable definitions and the Cluster variable values that must comply with them (v1beta1 field names).
import * as z from 'zod';
import { listMap } from '#shared/api/meta.ts';
import { JSONSchemaProps } from '#shared/lang/openapi/jsonschema.ts';

/** Where a variable definition in ClusterClass `status.variables[].definitions[]` comes from. */
export const VariableDefinitionFrom = {
  /** Defined in the ClusterClass `spec.variables` (a patch name otherwise, for discovered variables). */
  Inline: 'inline',
} as const;
export type VariableDefinitionFrom = (typeof VariableDefinitionFrom)[keyof typeof VariableDefinitionFrom];

/** Deprecated per-variable metadata (use `x-metadata` in the schema instead). */
export const ClusterClassVariableMetadata = z.object({
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type ClusterClassVariableMetadata = z.infer<typeof ClusterClassVariableMetadata>;

/** The schema of a variable: an OpenAPI v3 subset of what CRDs use. */
export const VariableSchema = z.object({
  openAPIV3Schema: JSONSchemaProps,
});
export type VariableSchema = z.infer<typeof VariableSchema>;

/** A variable a ClusterClass defines in `spec.variables`. */
export const ClusterClassVariable = z.object({
  name: z.string().min(1).max(256),
  /** Applies to the variable as a whole; nested required fields are part of the schema. */
  required: z.boolean(),
  metadata: ClusterClassVariableMetadata.optional(),
  schema: VariableSchema,
});
export type ClusterClassVariable = z.infer<typeof ClusterClassVariable>;

/** ClusterClass `spec.variables`: an atomic list in upstream's CRD (no list-map marker), at most 1000 entries. */
export const ClusterClassVariables = z.array(ClusterClassVariable).max(1000);

/** A JSON value (`apiextensionsv1.JSON`): anything but absent. */
function jsonValue() {
  return z
    .unknown()
    .refine((value) => value !== undefined, { message: 'Required' })
    .meta({ 'x-kubernetes-preserve-unknown-fields': true });
}

/** A variable value set on a Cluster (`spec.topology.variables[]`) or as an override. */
export const ClusterVariable = z.object({
  name: z.string().min(1).max(256),
  /** Deprecated: must not be set anymore (upstream rejects values that set it). */
  definitionFrom: z.string().max(256).optional(),
  value: jsonValue(),
});
export type ClusterVariable = z.infer<typeof ClusterVariable>;

/**
 * `spec.topology.variables` and every `variables.overrides` (control plane, MachineDeployment, MachinePool):
 * `+listType=map +listMapKey=name`, at most 1000 entries.
 */
export const ClusterVariables = listMap(ClusterVariable, ['name']).max(1000);

/** One definition of a variable in ClusterClass `status.variables[].definitions[]`. */
export const ClusterClassStatusVariableDefinition = z.object({
  /** `inline` for `spec.variables`, or the name of the patch whose DiscoverVariables extension defined it. */
  from: z.string().min(1).max(256),
  required: z.boolean(),
  metadata: ClusterClassVariableMetadata.optional(),
  schema: VariableSchema,
});
export type ClusterClassStatusVariableDefinition = z.infer<typeof ClusterClassStatusVariableDefinition>;

/** A variable in ClusterClass `status.variables[]` with all its definitions. */
export const ClusterClassStatusVariable = z.object({
  name: z.string().min(1).max(256),
  definitionsConflict: z.boolean().optional(),
  definitions: z.array(ClusterClassStatusVariableDefinition).max(100),
});
export type ClusterClassStatusVariable = z.infer<typeof ClusterClassStatusVariable>;

/** ClusterClass `status.variables`: an atomic list in upstream's CRD, at most 1000 entries. */
export const ClusterClassStatusVariables = z.array(ClusterClassStatusVariable).max(1000);
