// External patches, the pure parts: the GeneratePatches/ValidateTopology requests built from the targets, a
// response applied per uid, and the order with inline patches.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HolderReference } from '#shared/api/runtime-extension.ts';
import type { ClusterClassStatusVariable } from '#shared/api/core/v1beta2/variables.ts';
import {
  computeExternallyPatchedTargets,
  computeGeneratePatchesRequest,
  computeInlinePatchedTargets,
  computeMergePatched,
  computeRequestItemUid,
  computeRequestObject,
  computeValidateTopologyRequest,
  PatchError,
  PatchErrorReason,
  PatchVariablesResolver,
} from '#shared/topology/patches/index.ts';
import type { GeneratePatchesResponseItem, PatchItemRef, PatchTarget } from '#shared/topology/patches/index.ts';
import {
  api,
  byId,
  deepFreeze,
  definitions,
  patch,
  selector,
  targets,
  templateSpec,
  variables,
} from '#test/support/fixtures/topology/patches.ts';

const refs: ReadonlyMap<string, PatchItemRef> = new Map(
  targets.map((t): [string, PatchItemRef] => [
    t.id,
    {
      uid: computeRequestItemUid('uid-1', t.id),
      holderReference: deepFreeze<HolderReference>({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: 'default',
        name: `holder-of-${t.id}`,
        fieldPath: 'spec.infrastructureRef',
      }),
    },
  ]),
);
const uidOf = (id: string): string => refs.get(id)?.uid ?? '';
const base64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');
const jsonPatch = (id: string, ops: unknown[]): GeneratePatchesResponseItem => ({
  uid: uidOf(id),
  patchType: 'JSONPatch',
  patch: base64(ops),
});
const mergePatch = (id: string, doc: unknown): GeneratePatchesResponseItem => ({
  uid: uidOf(id),
  patchType: 'JSONMergePatch',
  patch: base64(doc),
});
const at = { patchName: 'ext', patchIndex: 1 };

/** Variables whose definitions come from the external patch `ext` (region) and from inline (instanceType). */
const mixedDefinitions: ClusterClassStatusVariable[] = [
  { name: 'region', definitions: [{ from: 'ext', required: false, schema: { openAPIV3Schema: { type: 'string' } } }] },
  ...definitions('instanceType'),
];

describe('computeGeneratePatchesRequest', () => {
  const request = computeGeneratePatchesRequest(
    targets,
    refs,
    new PatchVariablesResolver({ ...variables, definitions: mixedDefinitions }, 'ext'),
    { region: 'eu' },
  );

  test('sends every target in request order with its uid, holder reference and template', () => {
    assert.deepEqual(
      request.items.map((item) => item.uid),
      targets.map((t) => uidOf(t.id)),
    );
    assert.deepEqual(
      request.items.map((item) => item.holderReference.name),
      targets.map((t) => `holder-of-${t.id}`),
    );
    assert.deepEqual(request.items[0]?.object, targets[0]?.template);
  });

  test('sends only the Cluster variables whose definitions come from the patch, then builtin', () => {
    assert.deepEqual(
      request.variables?.map((v) => v.name),
      ['region', 'builtin'],
    );
    assert.equal(request.variables?.[0]?.value, 'us-east-1');
  });

  test("puts each template's own variables on its item and none on the InfrastructureCluster", () => {
    const byTarget = new Map(request.items.map((item, i) => [targets[i]?.id, item]));
    assert.equal(byTarget.get('InfrastructureCluster')?.variables, undefined);
    const cp = byTarget.get('ControlPlane')?.variables ?? [];
    // NOTE: the instanceType override is defined inline only, so the external patch does not see it.
    assert.deepEqual(
      cp.map((v) => v.name),
      ['builtin'],
    );
    assert.deepEqual((cp[0]?.value as { controlPlane: { name: string } }).controlPlane.name, 'c1-cp');
    const md = byTarget.get('MachineDeploymentInfrastructure/md-a')?.variables ?? [];
    assert.equal(
      (md[0]?.value as { machineDeployment: { topologyName: string } }).machineDeployment.topologyName,
      'md-a',
    );
  });

  test("carries the patch's settings, and none when it has none", () => {
    assert.deepEqual(request.settings, { region: 'eu' });
    const bare = computeGeneratePatchesRequest(targets, refs, new PatchVariablesResolver(variables));
    assert.equal(Object.hasOwn(bare, 'settings'), false);
  });

  test('the inline resolver sees the inline variables, as for inline patches', () => {
    const inline = computeGeneratePatchesRequest(targets, refs, new PatchVariablesResolver(variables));
    assert.deepEqual(
      inline.variables?.map((v) => v.name),
      ['region', 'instanceType', 'cfg', 'builtin'],
    );
  });
});

describe('computeRequestObject', () => {
  const cases = [
    {
      name: 'drops managedFields and the last-applied and conversion-data annotations, keeps the others',
      metadata: {
        name: 't',
        managedFields: [{ manager: 'x' }],
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
          'cluster.x-k8s.io/conversion-data': '{}',
          keep: 'me',
        },
      },
      expected: { name: 't', annotations: { keep: 'me' } },
    },
    {
      name: 'drops an annotations map left empty',
      metadata: { name: 't', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      expected: { name: 't' },
    },
    {
      name: 'leaves a clean template alone',
      metadata: { name: 't', labels: { a: 'b' } },
      expected: { name: 't', labels: { a: 'b' } },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const template = deepFreeze({ apiVersion: 'v1', kind: 'T', metadata: c.metadata, spec: {} });
      assert.deepEqual(computeRequestObject(template).metadata, c.expected);
    });
  }
});

describe('computeRequestItemUid', () => {
  test('is UUID-shaped, the same for the same Cluster and target, different otherwise', () => {
    const uid = computeRequestItemUid('c-uid', 'ControlPlane');
    assert.match(uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(computeRequestItemUid('c-uid', 'ControlPlane'), uid);
    assert.notEqual(computeRequestItemUid('c-uid', 'InfrastructureCluster'), uid);
    assert.notEqual(computeRequestItemUid('other', 'ControlPlane'), uid);
  });
});

describe('computeValidateTopologyRequest', () => {
  test('sends the items without uids, the variables of the request and the validating patch settings', () => {
    const generate = computeGeneratePatchesRequest(targets, refs, new PatchVariablesResolver(variables), { a: 'b' });
    const validate = computeValidateTopologyRequest(generate, { c: 'd' });
    assert.deepEqual(validate.settings, { c: 'd' });
    assert.deepEqual(validate.variables, generate.variables);
    assert.equal(validate.items.length, targets.length);
    for (const item of validate.items) assert.equal(Object.hasOwn(item, 'uid'), false);
    assert.deepEqual(validate.items[1]?.holderReference, generate.items[1]?.holderReference);
  });
});

describe('computeExternallyPatchedTargets', () => {
  type Case = {
    readonly name: string;
    readonly items: readonly GeneratePatchesResponseItem[];
    readonly target: string;
    readonly expectedSpec: Record<string, unknown>;
  };
  const cases: Case[] = [
    {
      name: 'applies a JSON patch to the template with the item uid',
      items: [
        jsonPatch('InfrastructureCluster', [
          { op: 'replace', path: '/spec/template/spec/region', value: 'ap-south-1' },
        ]),
      ],
      target: 'InfrastructureCluster',
      expectedSpec: { region: 'ap-south-1', sshKeyName: 'default' },
    },
    {
      name: 'applies a JSON merge patch: objects merge, null removes',
      items: [
        mergePatch('InfrastructureCluster', { spec: { template: { spec: { sshKeyName: null, vpc: { id: 'v' } } } } }),
      ],
      target: 'InfrastructureCluster',
      expectedSpec: { region: 'eu-west-1', vpc: { id: 'v' } },
    },
    {
      name: 'an empty JSON patch changes nothing',
      items: [jsonPatch('InfrastructureCluster', [])],
      target: 'InfrastructureCluster',
      expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
    },
    {
      name: 'an empty JSON merge patch changes nothing',
      items: [mergePatch('InfrastructureCluster', {})],
      target: 'InfrastructureCluster',
      expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
    },
    {
      name: 'items apply in order: a later item for the same template wins',
      items: [
        jsonPatch('InfrastructureCluster', [{ op: 'replace', path: '/spec/template/spec/region', value: 'first' }]),
        mergePatch('InfrastructureCluster', { spec: { template: { spec: { region: 'second' } } } }),
      ],
      target: 'InfrastructureCluster',
      expectedSpec: { region: 'second', sshKeyName: 'default' },
    },
    {
      name: 'patches each MachineDeployment topology separately',
      items: [
        jsonPatch('MachineDeploymentInfrastructure/md-b', [
          { op: 'add', path: '/spec/template/spec/gpu', value: true },
        ]),
      ],
      target: 'MachineDeploymentInfrastructure/md-a',
      expectedSpec: templateSpec(targets, 'MachineDeploymentInfrastructure/md-a'),
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const patched = computeExternallyPatchedTargets(targets, refs, c.items, at);
      assert.deepEqual(templateSpec(patched, c.target), c.expectedSpec);
      assert.deepEqual(
        patched.map((t) => t.id),
        targets.map((t) => t.id),
      );
    });
  }

  test('keeps patched labels and annotations, drops changes to other metadata and top-level fields', () => {
    const patched = computeExternallyPatchedTargets(
      targets,
      refs,
      [
        jsonPatch('InfrastructureCluster', [
          { op: 'replace', path: '/metadata/name', value: 'renamed' },
          { op: 'add', path: '/metadata/labels', value: { team: 'a' } },
          { op: 'add', path: '/status', value: { ready: true } },
        ]),
      ],
      at,
    );
    const template = byId(patched, 'InfrastructureCluster').template;
    assert.equal(template.metadata.name, 'quick-start-cluster');
    assert.deepEqual(template.metadata.labels, { team: 'a' });
    assert.equal(Object.hasOwn(template, 'status'), false);
  });

  type FailCase = {
    readonly name: string;
    readonly items: readonly GeneratePatchesResponseItem[];
    readonly message: RegExp;
  };
  const failures: FailCase[] = [
    {
      name: 'an item whose uid is not in the request',
      items: [{ uid: 'nope', patchType: 'JSONPatch', patch: base64([]) }],
      message: /failed to apply patch "ext": unable to find corresponding request item with uid "nope"/,
    },
    {
      name: 'a patch that is not JSON',
      items: [{ uid: uidOf('ControlPlane'), patchType: 'JSONPatch', patch: Buffer.from('[{').toString('base64') }],
      message:
        /patch "ext" for KubeadmControlPlaneTemplate of Cluster \(spec\.controlPlaneRef\).*error decoding json patch \(RFC6902\)/,
    },
    {
      name: 'a JSON patch operation that does not apply',
      items: [jsonPatch('ControlPlane', [{ op: 'replace', path: '/spec/template/spec/missing/deep', value: 1 }])],
      message:
        /patch "ext" \(path \/spec\/template\/spec\/missing\/deep\) for KubeadmControlPlaneTemplate.*doc is missing path/,
    },
    {
      name: 'an operation the engine does not support',
      items: [jsonPatch('ControlPlane', [{ op: 'move', from: '/spec/a', path: '/spec/b' }])],
      message: /unsupported op "move"/,
    },
    {
      name: 'a patch that removes spec',
      items: [jsonPatch('ControlPlane', [{ op: 'remove', path: '/spec' }])],
      message: /missing field "spec"/,
    },
  ];
  for (const c of failures) {
    test(`fails, naming the patch and template, for ${c.name}`, () => {
      assert.throws(
        () => computeExternallyPatchedTargets(targets, refs, c.items, at),
        (err: unknown) =>
          err instanceof PatchError &&
          err.reason === PatchErrorReason.ApplyPatchFailed &&
          err.fieldPath === 'spec.patches[1]' &&
          c.message.test(err.message),
      );
    });
  }
});

describe('computeMergePatched (RFC 7386 appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [doc, patchDoc, expected] of cases) {
    test(`${JSON.stringify(doc)} merged with ${JSON.stringify(patchDoc)} is ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(computeMergePatched(deepFreeze(doc), deepFreeze(patchDoc)), expected);
    });
  }
});

describe('external and inline patches in ClusterClass order', () => {
  const infra = selector(api.awsCluster, { infrastructureCluster: true });
  const resolver = new PatchVariablesResolver(variables);
  const first = patch('first', infra, [{ op: 'replace', path: '/spec/template/spec/region', value: 'from-inline-1' }]);
  const third = patch('third', infra, [
    { op: 'replace', path: '/spec/template/spec/sshKeyName', value: 'from-inline-3' },
  ]);

  test("an external patch's request sees what the earlier inline patch wrote, and a later inline patch sees the answer", () => {
    let current: PatchTarget[] = computeInlinePatchedTargets(first, 0, targets, resolver);
    const request = computeGeneratePatchesRequest(current, refs, resolver);
    const sent = request.items[0]?.object['spec'] as { template: { spec: Record<string, unknown> } };
    assert.equal(sent.template.spec['region'], 'from-inline-1');

    current = computeExternallyPatchedTargets(
      current,
      refs,
      [
        mergePatch('InfrastructureCluster', {
          spec: { template: { spec: { region: 'from-extension', sshKeyName: 'from-extension' } } },
        }),
      ],
      at,
    );
    current = computeInlinePatchedTargets(third, 2, current, resolver);
    assert.deepEqual(templateSpec(current, 'InfrastructureCluster'), {
      region: 'from-extension',
      sshKeyName: 'from-inline-3',
    });
  });
});
