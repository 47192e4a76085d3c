import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ClusterClassPatch, JSONPatch, PatchSelector } from '#shared/api/core/v1beta2/cluster-class.ts';
import { computePatchedTargets, PatchError } from '#shared/topology/patches/index.ts';
import type { PatchTarget } from '#shared/topology/patches/index.ts';
import { api, deepFreeze, selector, targets, variables } from '#test/support/fixtures/topology/patches.ts';

const key = fc.constantFrom('a', 'b', 'list', 'region', 'instanceType', 'k~x');
const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** The fixture targets with random `spec.template.spec` contents. */
const randomTargets = fc
  .array(fc.dictionary(key, json, { maxKeys: 4 }), { minLength: targets.length, maxLength: targets.length })
  .map((specs): PatchTarget[] =>
    targets.map((t, i) => ({ ...t, template: { ...t.template, spec: { template: { spec: specs[i] ?? {} } } } })),
  );

const selectors: PatchSelector[] = [
  selector(api.awsCluster, { infrastructureCluster: true }),
  selector(api.kcp, { controlPlane: true }),
  selector(api.awsMachine, { controlPlane: true }),
  selector(api.awsMachine, { machineDeploymentClass: { names: ['*'] } }),
  selector(api.kubeadmConfig, {
    machineDeploymentClass: { names: ['default-*'] },
    machinePoolClass: { names: ['*-pool'] },
  }),
  selector(api.awsPool, { machinePoolClass: { names: ['default-pool'] } }),
  selector(api.kcp, { infrastructureCluster: true }),
];

// Mostly valid paths (so patches get applied), sometimes ones upstream's validation rejects.
const segment = fc.oneof(
  { weight: 30, arbitrary: key },
  { weight: 2, arbitrary: fc.constantFrom('0', '-') },
  { weight: 1, arbitrary: fc.constant('1') },
);
const path = fc
  .array(segment, { maxLength: 3 })
  .chain((parts) =>
    fc.oneof(
      { weight: 20, arbitrary: fc.constant(`/spec/template/spec/${parts.join('/')}`) },
      { weight: 1, arbitrary: fc.constant(`/spec/${parts.join('/')}`) },
      { weight: 1, arbitrary: fc.constant(`/metadata/${parts.join('/')}`) },
    ),
  );

const valueSource = fc.oneof(
  { weight: 8, arbitrary: fc.record({ value: json.filter((v) => v !== null) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      valueFrom: fc.record({
        variable: fc.constantFrom(
          'region',
          'cfg.list[0]',
          'cfg.nope',
          'builtin.machineDeployment.class',
          'instanceType',
        ),
      }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      valueFrom: fc.record({
        template: fc.constantFrom(
          '{{ .region }}',
          '{{ .cfg.count }}',
          '[{{ .cfg.flag }}]',
          '{{ .nope.x }}',
          '{{ fail "no" }}',
          '{{',
        ),
      }),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom({}, { value: null }) },
);

const jsonPatch: fc.Arbitrary<JSONPatch> = fc
  .tuple(fc.constantFrom('add', 'replace', 'remove') as fc.Arbitrary<JSONPatch['op']>, path, valueSource)
  .map(([op, p, source]) => ({ op, path: p, ...source }));

const clusterClassPatch: fc.Arbitrary<ClusterClassPatch> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .record({
        name: fc.constantFrom('p1', 'p2', 'p3'),
        enabledIf: fc.option(fc.constantFrom('true', 'false', '{{ .cfg.flag }}', '{{ .missing }}', '{{ fail "x" }}'), {
          nil: undefined,
        }),
        definitions: fc.array(
          fc.record({ selector: fc.constantFrom(...selectors), jsonPatches: fc.array(jsonPatch, { maxLength: 3 }) }),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
      })
      .map(({ enabledIf, ...rest }) => (enabledIf === undefined ? rest : { ...rest, enabledIf })),
  },
  { weight: 1, arbitrary: fc.constant({ name: 'ext', external: { generatePatchesExtension: 'gen' } }) },
);

type Outcome =
  { readonly ok: true; readonly targets: PatchTarget[] } | { readonly ok: false; readonly message: string };

function run(patches: readonly ClusterClassPatch[], list: readonly PatchTarget[]): Outcome {
  try {
    return { ok: true, targets: computePatchedTargets({ patches, targets: list, variables }) };
  } catch (err) {
    assert.ok(err instanceof PatchError, `only PatchError may escape, got ${String(err)}`);
    return { ok: false, message: err.message };
  }
}

describe('computePatchedTargets properties', () => {
  test('random patches over random templates either succeed or throw PatchError, identically twice, without mutating inputs', () => {
    fc.assert(
      fc.property(fc.array(clusterClassPatch, { maxLength: 4 }), randomTargets, (patches, list) => {
        const frozenPatches = deepFreeze(patches);
        const frozenTargets = deepFreeze(list);
        const before = JSON.stringify([frozenPatches, frozenTargets]);
        const first = run(frozenPatches, frozenTargets);
        const second = run(frozenPatches, frozenTargets);
        assert.deepEqual(first, second);
        assert.equal(JSON.stringify([frozenPatches, frozenTargets]), before);
        if (first.ok) {
          assert.deepEqual(
            first.targets.map((t) => t.id),
            frozenTargets.map((t) => t.id),
          );
          first.targets.forEach((t, i) => {
            const { spec: _patchedSpec, ...rest } = t.template;
            const { spec: _originalSpec, ...originalRest } = frozenTargets[i]?.template ?? t.template;
            assert.deepEqual(rest, originalRest);
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});
