// The contract: the project's v1beta2 zod schemas against upstream Cluster API's own CRDs (from the pinned Go module).
// Every field path the project reads or writes exists upstream with the same type, and required fields agree; a
// bump of the pinned version that moves a field fails here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';
import { computeCrd, computeOpenAPISchema } from '#shared/api/gen/compute-crd.ts';
import { allKinds, type KindInfo } from '#shared/api/kinds.ts';
import {
  computeContractViolations,
  readUpstreamSchema,
  upstreamCapiVersion,
  type JsonSchema,
} from '#test/support/harness/upstream-crd-schemas.ts';

function ourSchema(info: KindInfo, version: string): JsonSchema {
  const crd = computeCrd(info) as { spec: { versions: { name: string; schema: { openAPIV3Schema: JsonSchema } }[] } };
  const found = crd.spec.versions.find((v) => v.name === version);
  if (!found) throw new Error(`${info.kind}: the project has no ${version} schema`);
  return found.schema.openAPIV3Schema;
}

/** Every upstream kind the project declares a schema for, with each version it declares. */
const upstreamKinds = allKinds.filter((k) => k.group === 'cluster.x-k8s.io' || k.group === 'addons.cluster.x-k8s.io');
const versionsOf = (info: KindInfo) => [info.version, ...(info.servedVersions ?? []).map((v) => v.version)];

/**
 * Deviations the project accepts knowingly, each with its reason; the test fails when one disappears (remove it
 * here) or a new one appears.
 */
const knownDeviations: Readonly<Record<string, readonly string[]>> = {
  // NOTE: the topology engine builds its desired Cluster without spec, so the schema keeps spec optional; the API
  // server still enforces upstream's rule on every Cluster actually written.
  'Cluster v1beta2': ['<root>: required [], upstream [spec]'],
  // NOTE: the project's older v1beta1 schemas are stricter than upstream's v1beta1 CRDs (they require what upstream
  // leaves optional); objects that pass them pass upstream's. To be loosened when the addons pass moves to v1beta2.
  'Cluster v1beta1': ['spec.controlPlaneEndpoint: required [host, port], upstream []'],
  'MachineDeployment v1beta1': ['<root>: required [spec], upstream []', 'spec.template: required [spec], upstream []'],
  'MachinePool v1beta1': ['<root>: required [spec], upstream []', 'spec.template: required [spec], upstream []'],
  'MachineHealthCheck v1beta1': ['<root>: required [spec], upstream []'],
  'ClusterResourceSet v1beta1': ['<root>: required [spec], upstream []'],
};

describe(`schemas against upstream Cluster API ${upstreamCapiVersion} CRDs`, () => {
  for (const info of upstreamKinds) {
    for (const version of versionsOf(info)) {
      test(`${info.kind} ${version}: every field we declare exists upstream with the same type and required fields`, () => {
        const violations = computeContractViolations(
          ourSchema(info, version),
          readUpstreamSchema(info.group, info.plural, version),
        );
        assert.deepEqual(violations, knownDeviations[`${info.kind} ${version}`] ?? []);
      });
    }
  }
});

/** Deliberate differences of the addons v1beta2 schemas, each with its reason (see knownDeviations). */
const knownAddonsDeviations: Readonly<Record<string, readonly string[]>> = {
  // NOTE: a v1beta1 binding from before v1.4 has no clusterName and upstream's conversion leaves it empty; optional
  // here so such a binding still parses when read through the edge or reviewed. The CRD still requires it.
  ClusterResourceSetBinding: ['spec: required [], upstream [clusterName]'],
  // NOTE: a v1beta1 ClusterResourceSet may have no resources (optional there) and upstream's conversion leaves the
  // list empty; read as empty (nothing to apply, as upstream's controller does). The CRD still requires one.
  ClusterResourceSet: ['spec: required [clusterSelector], upstream [clusterSelector, resources]'],
};

describe('addons v1beta2 schemas (the shapes the addons pass works on) against upstream', () => {
  const cases = [
    ['ClusterResourceSet', 'clusterresourcesets', ClusterResourceSet],
    ['ClusterResourceSetBinding', 'clusterresourcesetbindings', ClusterResourceSetBinding],
  ] as const;
  for (const [kind, plural, schema] of cases) {
    test(`${kind} v1beta2: every field we declare exists upstream with the same type and required fields`, () => {
      const ours = computeOpenAPISchema({ kind, schema }) as JsonSchema;
      const violations = computeContractViolations(
        ours,
        readUpstreamSchema('addons.cluster.x-k8s.io', plural, 'v1beta2'),
      );
      assert.deepEqual(violations, knownAddonsDeviations[kind] ?? []);
    });
  }
});

describe('computeContractViolations', () => {
  const upstream: JsonSchema = {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          maxSurge: { 'x-kubernetes-int-or-string': true },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  const cases: [string, JsonSchema, string[]][] = [
    [
      'finds nothing when ours is a subset with the same types',
      {
        type: 'object',
        required: ['spec'],
        properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
      },
      [],
    ],
    [
      'names a field upstream does not declare',
      {
        type: 'object',
        required: ['spec'],
        properties: { spec: { type: 'object', properties: { replica: { type: 'integer' } } } },
      },
      ['spec.replica: not declared upstream'],
    ],
    [
      'names a field with another type, int-or-string included',
      {
        type: 'object',
        required: ['spec'],
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'string' }, maxSurge: { type: 'integer' } } },
        },
      },
      ['spec.replicas: type string, upstream integer', 'spec.maxSurge: type integer, upstream int-or-string'],
    ],
    [
      'names required fields that disagree',
      {
        type: 'object',
        properties: { spec: { type: 'object', required: ['replicas'], properties: { replicas: { type: 'integer' } } } },
      },
      ['<root>: required [], upstream [spec]', 'spec: required [replicas], upstream []'],
    ],
    [
      'does not look inside a field upstream keeps free-form',
      {
        type: 'object',
        required: ['spec'],
        properties: {
          spec: { type: 'object', properties: { free: { type: 'object', properties: { x: { type: 'string' } } } } },
        },
      },
      [],
    ],
  ];
  for (const [name, ours, want] of cases)
    test(name, () => assert.deepEqual(computeContractViolations(ours, upstream), want));
});
