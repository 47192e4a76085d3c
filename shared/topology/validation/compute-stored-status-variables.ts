// ClusterClass `status.variables` as the API server stores them: upstream's CRD defaults the `reason` of each CEL rule
// on a variable's top-level schema, so a status computed without it is compared in the form it would take.
import type { ClusterClassStatusVariable } from '#shared/api/core/v1beta2/variables.ts';

/** The `reason` upstream's ClusterClass CRD gives a CEL rule that has none (`+kubebuilder:default`). */
export const DefaultValidationRuleReason = 'FieldValueInvalid';

/**
 * `variables` with the API server's defaults applied: each `openAPIV3Schema['x-kubernetes-validations'][]` without a
 * `reason` gets {@link DefaultValidationRuleReason}. Only the top level is defaulted, as the CRD does (nested schemas
 * are preserved unknown fields there). The input is not mutated.
 *
 * @example
 * computeStoredStatusVariables(computeClusterClassStatusVariables(cc, discovered));
 */
export function computeStoredStatusVariables(
  variables: readonly ClusterClassStatusVariable[],
): ClusterClassStatusVariable[] {
  return variables.map((variable) => ({
    ...variable,
    definitions: variable.definitions.map((definition) => {
      const schema = definition.schema.openAPIV3Schema;
      const rules = schema['x-kubernetes-validations'];
      if (rules === undefined || rules.every((rule) => rule.reason !== undefined)) return definition;
      return {
        ...definition,
        schema: {
          ...definition.schema,
          openAPIV3Schema: {
            ...schema,
            'x-kubernetes-validations': rules.map((rule) =>
              rule.reason === undefined ? { ...rule, reason: DefaultValidationRuleReason } : rule,
            ),
          },
        },
      };
    }),
  }));
}
