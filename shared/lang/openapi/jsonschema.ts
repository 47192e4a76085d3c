// CAPI's clusterv1.JSONSchemaProps (v1beta1): the OpenAPI v3 subset a ClusterClass variable schema may use.
// The schema is recursive; in the CRD the recursion is cut (see SCHEMALESS_FIELDS) exactly as upstream does.
import * as z from 'zod';

/**
 * Meta key the CRD generator reads: a field carrying it is emitted as
 * `{ description, x-kubernetes-preserve-unknown-fields: true }` without walking into its (recursive) schema.
 */
export const SCHEMALESS_META_KEY = 'x-capi-schemaless';

/**
 * Fields of JSONSchemaProps that upstream marks `+kubebuilder:pruning:PreserveUnknownFields` and
 * `+kubebuilder:validation:Schemaless`: in upstream's ClusterClass CRD, `spec.variables[].schema.openAPIV3Schema` has
 * typed first-level fields, but these (recursive) ones are just `x-kubernetes-preserve-unknown-fields: true`.
 * `default`, `example` and `enum[]` hold arbitrary JSON and are also preserve-unknown (no `type`).
 */
export const SCHEMALESS_FIELDS = [
  'properties',
  'additionalProperties',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
] as const;

/**
 * How the CRD generator must render `openAPIV3Schema` (and `status.variables[].definitions[].schema.openAPIV3Schema`):
 * emit the first level from the zod schema, and for each field in SCHEMALESS_FIELDS only its description plus
 * `x-kubernetes-preserve-unknown-fields: true`. The fields are also tagged with SCHEMALESS_META_KEY in zod metadata.
 */
export const JSONSchemaPropsCRD = {
  schemalessFields: SCHEMALESS_FIELDS,
  metaKey: SCHEMALESS_META_KEY,
  emit: { 'x-kubernetes-preserve-unknown-fields': true },
} as const;

function schemaless<T extends z.ZodType>(schema: T): T {
  return schema.meta({ 'x-kubernetes-preserve-unknown-fields': true, [SCHEMALESS_META_KEY]: true });
}

/** Arbitrary JSON (`apiextensionsv1.JSON`): kept as is. */
function anyJson() {
  return z.unknown().meta({ 'x-kubernetes-preserve-unknown-fields': true });
}

/** The validation failure reasons a CEL rule may report (`x-kubernetes-validations[].reason`). */
export const FieldValueErrorReason = {
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  Forbidden: 'FieldValueForbidden',
} as const;
export type FieldValueErrorReason = (typeof FieldValueErrorReason)[keyof typeof FieldValueErrorReason];

/** A CEL validation rule (`x-kubernetes-validations[]`). */
export const ValidationRule = z.object({
  rule: z.string().min(1).max(4096),
  message: z.string().min(1).max(512).optional(),
  messageExpression: z.string().min(1).max(1024).optional(),
  reason: z.enum(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']).optional(),
  fieldPath: z.string().min(1).max(512).optional(),
});
export type ValidationRule = z.infer<typeof ValidationRule>;

/** `x-metadata`: labels and annotations for higher level tools, on a variable or a nested field. */
export const VariableSchemaMetadata = z.object({
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type VariableSchemaMetadata = z.infer<typeof VariableSchemaMetadata>;

/** The variable types a ClusterClass schema may use. */
export const JSONSchemaTypes = ['object', 'array', 'string', 'integer', 'number', 'boolean'] as const;
export type JSONSchemaType = (typeof JSONSchemaTypes)[number];

/** The non-recursive part of JSONSchemaProps, split out so the recursive type can be written down. */
const JSONSchemaPropsBase = z.object({
  description: z.string().min(1).max(4096).optional(),
  example: anyJson().optional(),
  type: z.enum(JSONSchemaTypes).optional(),
  maxProperties: z.number().int().optional(),
  minProperties: z.number().int().optional(),
  required: z.array(z.string().min(1).max(256)).max(1000).optional(),
  maxItems: z.number().int().optional(),
  minItems: z.number().int().optional(),
  uniqueItems: z.boolean().optional(),
  format: z.string().min(1).max(32).optional(),
  maxLength: z.number().int().optional(),
  minLength: z.number().int().optional(),
  pattern: z.string().min(1).max(512).optional(),
  maximum: z.number().int().optional(),
  exclusiveMaximum: z.boolean().optional(),
  minimum: z.number().int().optional(),
  exclusiveMinimum: z.boolean().optional(),
  'x-kubernetes-preserve-unknown-fields': z.boolean().optional(),
  enum: z.array(anyJson()).max(100).optional(),
  default: anyJson().optional(),
  'x-kubernetes-validations': z
    .array(ValidationRule)
    .max(100)
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['rule'] })
    .optional(),
  'x-metadata': VariableSchemaMetadata.optional(),
  'x-kubernetes-int-or-string': z.boolean().optional(),
});

/** A JSON schema (OpenAPI v3 subset) as CAPI's v1beta1 `JSONSchemaProps`. */
export type JSONSchemaProps = z.infer<typeof JSONSchemaPropsBase> & {
  properties?: Record<string, JSONSchemaProps> | undefined;
  additionalProperties?: JSONSchemaProps | undefined;
  items?: JSONSchemaProps | undefined;
  allOf?: JSONSchemaProps[] | undefined;
  oneOf?: JSONSchemaProps[] | undefined;
  anyOf?: JSONSchemaProps[] | undefined;
  not?: JSONSchemaProps | undefined;
};

/**
 * zod schema for CAPI's `clusterv1.JSONSchemaProps` (v1beta1 field names). Recursive through getters, as zod v4
 * recommends; the recursive fields carry the schemaless CRD marker (see JSONSchemaPropsCRD).
 *
 * @example
 * const schema = JSONSchemaProps.parse({ type: 'object', properties: { region: { type: 'string', default: 'us-east-1' } } });
 */
export const JSONSchemaProps: z.ZodType<JSONSchemaProps> = JSONSchemaPropsBase.extend({
  get properties() {
    return schemaless(z.record(z.string(), JSONSchemaProps)).optional();
  },
  get additionalProperties() {
    return schemaless(JSONSchemaProps).optional();
  },
  get items() {
    return schemaless(JSONSchemaProps).optional();
  },
  get allOf() {
    return schemaless(z.array(JSONSchemaProps)).optional();
  },
  get oneOf() {
    return schemaless(z.array(JSONSchemaProps)).optional();
  },
  get anyOf() {
    return schemaless(z.array(JSONSchemaProps)).optional();
  },
  get not() {
    return schemaless(JSONSchemaProps).optional();
  },
});
