// Converts a registered kind's zod schema into a structural CustomResourceDefinition (apiextensions.k8s.io/v1).
import * as z from 'zod';
import type { KindInfo } from '#shared/api/kinds.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function isObject(v: Json | undefined): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Rewrites zod's OpenAPI 3.0 output into a Kubernetes structural schema: no `additionalProperties: false`,
 * int-or-string without `anyOf`, unknown JSON as `x-kubernetes-preserve-unknown-fields`, recursion cut with
 * preserve-unknown objects, int32 bounds as `format: int32`.
 */
export function computeStructuralSchema(input: Json, where = '<root>'): Schema {
  if (!isObject(input)) throw new Error(`unexpected schema at ${where}: ${JSON.stringify(input)}`);
  const src = input;
  if ('$ref' in src) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const out: Schema = {};
  const preserve = src['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = src['x-kubernetes-int-or-string'] === true;
  for (const [key, value] of Object.entries(src)) {
    if (value === undefined) continue;
    switch (key) {
      case '$schema':
      case '$defs':
      case 'definitions':
      case 'propertyNames':
      case 'id':
        break;
      case 'additionalProperties':
        if (value === false || preserve) break;
        if (isObject(value) && Object.keys(value).length === 0) break;
        out[key] = typeof value === 'boolean' ? value : computeStructuralSchema(value, `${where}.additionalProperties`);
        break;
      case 'properties': {
        const props: Schema = {};
        for (const [name, prop] of Object.entries(value as Schema))
          props[name] = computeStructuralSchema(prop, `${where}.${name}`);
        out[key] = props;
        break;
      }
      case 'items':
        out[key] = computeStructuralSchema(value, `${where}[]`);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        if (intOrString) break;
        throw new Error(
          `${key} at ${where} is not structural; mark the union (e.g. intOrString()) or simplify the schema`,
        );
      case 'minimum':
      case 'maximum':
        if (Math.abs(value as number) >= Number.MAX_SAFE_INTEGER) break;
        if (src['type'] === 'integer' && (value === INT32_MIN || value === INT32_MAX)) {
          out['format'] = 'int32';
          break;
        }
        out[key] = value;
        break;
      case 'format':
        if (value === 'duration') break; // upstream's metav1.Duration is a plain string
        out[key] = value;
        break;
      case 'const':
        out['enum'] = [value];
        break;
      default:
        out[key] = value;
    }
  }
  if (src['type'] === 'integer' && !('format' in out) && src['minimum'] === INT32_MIN) out['format'] = 'int32';
  if (intOrString) {
    delete out['type'];
    return out;
  }
  if (preserve && !('type' in out) && !('properties' in out)) return out;
  if (!('type' in out) && !preserve) {
    // A schema with no type (z.unknown without a marker) is not structural: keep whatever the user sends.
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  return out;
}

/** The `openAPIV3Schema` of a kind: its zod schema, with apiVersion/kind/metadata as Kubernetes writes them. */
export function computeOpenAPISchema(info: Pick<KindInfo, 'schema' | 'kind'>): Schema {
  const raw = z.toJSONSchema(info.schema, {
    target: 'openapi-3.0',
    unrepresentable: 'any',
    io: 'input',
    cycles: 'ref',
  }) as Json;
  const schema = computeStructuralSchema(raw, info.kind);
  const properties = { ...((schema['properties'] as Schema | undefined) ?? {}) };
  properties['apiVersion'] = {
    description: 'APIVersion defines the versioned schema of this representation of an object.',
    type: 'string',
  };
  properties['kind'] = {
    description: 'Kind is a string value representing the REST resource this object represents.',
    type: 'string',
  };
  properties['metadata'] = { type: 'object' };
  const required = ((schema['required'] as string[] | undefined) ?? []).filter(
    (name) => !['apiVersion', 'kind', 'metadata'].includes(name),
  );
  const out: Schema = { type: 'object', properties };
  if (required.length > 0) out['required'] = required;
  return out;
}

/**
 * A complete CustomResourceDefinition for a kind.
 *
 * @example
 * const crd = computeCrd(coreKinds[0]); // clusters.cluster.x-k8s.io
 */
export function computeCrd(info: KindInfo): Schema {
  const subresources: Schema = { status: {} };
  if (info.scale) {
    const scale: Schema = {
      specReplicasPath: info.scale.specReplicasPath,
      statusReplicasPath: info.scale.statusReplicasPath,
    };
    if (info.scale.labelSelectorPath) scale['labelSelectorPath'] = info.scale.labelSelectorPath;
    subresources['scale'] = scale;
  }
  const names: Schema = {
    kind: info.kind,
    listKind: `${info.kind}List`,
    plural: info.plural,
    singular: info.singular,
  };
  if (info.shortNames) names['shortNames'] = [...info.shortNames];
  if (info.categories) names['categories'] = [...info.categories];
  const version: Schema = {
    name: info.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: computeOpenAPISchema(info) },
    subresources,
  };
  if (info.printerColumns) {
    version['additionalPrinterColumns'] = info.printerColumns.map((c) => {
      const col: Schema = { name: c.name, type: c.type, jsonPath: c.jsonPath };
      if (c.description) col['description'] = c.description;
      if (c.priority !== undefined) col['priority'] = c.priority;
      return col;
    });
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${info.plural}.${info.group}`,
      labels: { 'app.kubernetes.io/part-of': 'capi-serverless' },
    },
    spec: {
      group: info.group,
      names,
      scope: info.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        version,
        ...(info.servedVersions ?? []).map((served) => ({
          name: served.version,
          served: true,
          storage: false,
          schema: { openAPIV3Schema: computeOpenAPISchema({ kind: info.kind, schema: served.schema }) },
          subresources,
        })),
      ],
    },
  };
}
