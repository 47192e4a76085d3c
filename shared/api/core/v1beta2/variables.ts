// ClusterClass variable definitions and Cluster variable values, v1beta2 field names (`deprecatedV1Beta1Metadata`,
// no `definitionFrom`).
import * as z from 'zod';
import { listMap } from '#shared/api/meta.ts';
import { ClusterClassVariableMetadata, VariableSchema } from '#shared/api/core/v1beta1/variables.ts';

export {
  ClusterClassVariableMetadata,
  VariableSchema,
  VariableDefinitionFrom,
} from '#shared/api/core/v1beta1/variables.ts';

/** A variable a ClusterClass defines in `spec.variables`. */
export const ClusterClassVariable = z.object({
  name: z.string().min(1).max(256),
  required: z.boolean(),
  deprecatedV1Beta1Metadata: ClusterClassVariableMetadata.optional(),
  schema: VariableSchema,
});
export type ClusterClassVariable = z.infer<typeof ClusterClassVariable>;

export const ClusterClassVariables = z.array(ClusterClassVariable).min(1).max(1000);

function jsonValue() {
  return z
    .unknown()
    .refine((value) => value !== undefined, { message: 'Required' })
    .meta({ 'x-kubernetes-preserve-unknown-fields': true });
}

/** A variable value set on a Cluster (`spec.topology.variables[]`) or as an override. */
export const ClusterVariable = z.object({
  name: z.string().min(1).max(256),
  value: jsonValue(),
});
export type ClusterVariable = z.infer<typeof ClusterVariable>;

/** `spec.topology.variables` and every `variables.overrides`: a list-map keyed by name, 1..1000 entries. */
export const ClusterVariables = listMap(ClusterVariable, ['name']).min(1).max(1000);

/** `variables` of a control-plane, MachineDeployment or MachinePool topology. */
export const VariableOverrides = z.object({ overrides: ClusterVariables.optional() });

export const ClusterClassStatusVariableDefinition = z.object({
  from: z.string().min(1).max(256),
  required: z.boolean(),
  deprecatedV1Beta1Metadata: ClusterClassVariableMetadata.optional(),
  schema: VariableSchema,
});
export type ClusterClassStatusVariableDefinition = z.infer<typeof ClusterClassStatusVariableDefinition>;

export const ClusterClassStatusVariable = z.object({
  name: z.string().min(1).max(256),
  definitionsConflict: z.boolean().optional(),
  definitions: z.array(ClusterClassStatusVariableDefinition).min(1).max(100),
});
export type ClusterClassStatusVariable = z.infer<typeof ClusterClassStatusVariable>;

/** ClusterClass `status.variables`: an atomic list, at most 1000 entries. */
export const ClusterClassStatusVariables = z.array(ClusterClassStatusVariable).max(1000);
