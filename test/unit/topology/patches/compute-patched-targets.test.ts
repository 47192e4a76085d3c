import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterClassPatch } from '#shared/api/core/v1beta2/cluster-class.ts';
import {
  computePatchedTargets,
  ExternalPatchNotSupportedError,
  PatchError,
  PatchErrorReason,
} from '#shared/topology/patches/index.ts';
import type { PatchVariablesInput } from '#shared/topology/patches/index.ts';
import {
  api,
  byId,
  deepFreeze,
  patch,
  selector,
  targets,
  templateSpec,
  variables,
} from '#test/support/fixtures/topology/patches.ts';

const infra = selector(api.awsCluster, { infrastructureCluster: true });
const workers = selector(api.awsMachine, { machineDeploymentClass: { names: ['default-worker'] } });

type Case = {
  readonly name: string;
  readonly patches: readonly ClusterClassPatch[];
  readonly target: string;
  readonly expectedSpec: Record<string, unknown>;
  readonly variables?: PatchVariablesInput;
};

const cases: Case[] = [
  {
    name: 'adds a field with a literal value',
    patches: [patch('p', infra, [{ op: 'add', path: '/spec/template/spec/bastion', value: { enabled: true } }])],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', bastion: { enabled: true } },
  },
  {
    name: 'replaces a field with a variable value',
    patches: [
      patch('p', infra, [{ op: 'replace', path: '/spec/template/spec/region', valueFrom: { variable: 'region' } }]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'us-east-1', sshKeyName: 'default' },
  },
  {
    name: 'removes a field',
    patches: [patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/sshKeyName' }])],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1' },
  },
  {
    name: 'reads a nested variable path with an array index',
    patches: [
      patch('p', infra, [{ op: 'add', path: '/spec/template/spec/size', valueFrom: { variable: 'cfg.list[0].size' } }]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', size: 10 },
  },
  {
    name: 'reads a builtin variable',
    patches: [
      patch('p', infra, [
        { op: 'add', path: '/spec/template/spec/name', valueFrom: { variable: 'builtin.cluster.name' } },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', name: 'c1' },
  },
  {
    name: 'parses a rendered template number as a number',
    patches: [
      patch('p', infra, [
        { op: 'add', path: '/spec/template/spec/count', valueFrom: { template: '{{ .cfg.count }}' } },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', count: 3 },
  },
  {
    name: 'parses a rendered YAML template into an object',
    patches: [
      patch('p', infra, [
        {
          op: 'add',
          path: '/spec/template/spec/tags',
          valueFrom: { template: 'cluster: {{ .builtin.cluster.name }}\nregion: "{{ .region }}"' },
        },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', tags: { cluster: 'c1', region: 'us-east-1' } },
  },
  {
    name: 'renders sprig functions in a template',
    patches: [
      patch('p', infra, [
        { op: 'replace', path: '/spec/template/spec/region', valueFrom: { template: '{{ .region | upper | quote }}' } },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'US-EAST-1', sshKeyName: 'default' },
  },
  {
    name: 'applies a patch whose enabledIf renders true',
    patches: [
      patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/sshKeyName' }], '{{ if .cfg.flag }}true{{ end }}'),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1' },
  },
  {
    name: 'skips a patch whose enabledIf renders false',
    patches: [patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/sshKeyName' }], '{{ not .cfg.flag }}')],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
  },
  {
    name: 'skips a patch whose enabledIf renders the string "true" in quotes',
    patches: [patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/sshKeyName' }], '"true"')],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
  },
  {
    name: 'skips a patch whose enabledIf uses a variable the Cluster does not set',
    patches: [patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/sshKeyName' }], '{{ .enabled }}')],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
  },
  {
    name: 'lets the later of two patches win on the same path',
    patches: [
      patch('first', infra, [{ op: 'replace', path: '/spec/template/spec/region', value: 'first' }]),
      patch('second', infra, [{ op: 'replace', path: '/spec/template/spec/region', value: 'second' }]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'second', sshKeyName: 'default' },
  },
  {
    name: 'lets a later patch see what an earlier patch added',
    patches: [
      patch('first', infra, [{ op: 'add', path: '/spec/template/spec/list', value: ['b'] }]),
      patch('second', infra, [{ op: 'add', path: '/spec/template/spec/list/0', value: 'a' }]),
      patch('third', infra, [{ op: 'add', path: '/spec/template/spec/list/-', value: 'c' }]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', list: ['a', 'b', 'c'] },
  },
  {
    name: 'applies jsonPatches of one definition in order',
    patches: [
      patch('p', infra, [
        { op: 'add', path: '/spec/template/spec/x', value: { a: 1 } },
        { op: 'add', path: '/spec/template/spec/x/b', value: 2 },
        { op: 'remove', path: '/spec/template/spec/x/a' },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', x: { b: 2 } },
  },
  {
    name: 'uses the MachineDeployment override of a variable',
    patches: [
      patch('p', workers, [
        { op: 'replace', path: '/spec/template/spec/instanceType', valueFrom: { variable: 'instanceType' } },
      ]),
    ],
    target: 'MachineDeploymentInfrastructure/md-a',
    expectedSpec: { instanceType: 'm5.2xlarge', additionalTags: { team: 'platform' } },
  },
  {
    name: 'uses the control plane override of a variable for the control plane machine',
    patches: [
      patch('p', selector(api.awsMachine, { controlPlane: true }), [
        { op: 'replace', path: '/spec/template/spec/instanceType', valueFrom: { variable: 'instanceType' } },
      ]),
    ],
    target: 'ControlPlaneMachineInfrastructure',
    expectedSpec: { instanceType: 'c5.xlarge' },
  },
  {
    name: 'merges builtin.machineDeployment into the global builtin object',
    patches: [
      patch('p', workers, [
        {
          op: 'add',
          path: '/spec/template/spec/builtinName',
          valueFrom: { template: '{{ .builtin.cluster.name }}/{{ .builtin.machineDeployment.topologyName }}' },
        },
      ]),
    ],
    target: 'MachineDeploymentInfrastructure/md-a',
    expectedSpec: { instanceType: 't3.medium', additionalTags: { team: 'platform' }, builtinName: 'c1/md-a' },
  },
  {
    name: 'ignores a user variable named builtin',
    patches: [
      patch('p', infra, [
        { op: 'add', path: '/spec/template/spec/n', valueFrom: { template: '{{ .builtin.cluster.name }}' } },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default', n: 'c1' },
  },
  {
    name: 'does not patch a template whose kind differs from the selector',
    patches: [
      patch('p', selector(api.kcp, { infrastructureCluster: true }), [
        { op: 'remove', path: '/spec/template/spec/region' },
      ]),
    ],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
  },
  {
    name: 'leaves spec.template.spec alone when a patch changes another part of spec',
    patches: [patch('p', infra, [{ op: 'add', path: '/spec/extra', value: 1 }])],
    target: 'InfrastructureCluster',
    expectedSpec: { region: 'eu-west-1', sshKeyName: 'default' },
  },
];

describe('computePatchedTargets', () => {
  for (const c of cases) {
    test(c.name, () => {
      const result = computePatchedTargets({ patches: c.patches, targets, variables: c.variables ?? variables });
      assert.deepEqual(templateSpec(result, c.target), c.expectedSpec);
      assert.deepEqual(
        result.map((t) => t.id),
        targets.map((t) => t.id),
      );
    });
  }

  test('returns the targets unchanged when the ClusterClass has no patches', () => {
    assert.deepEqual(computePatchedTargets({ patches: [], targets, variables }), targets);
  });

  test('keeps the rest of the template (apiVersion, kind, metadata) as it was', () => {
    const result = computePatchedTargets({
      patches: [patch('p', infra, [{ op: 'add', path: '/spec/extra', value: 1 }])],
      targets,
      variables,
    });
    const patched = byId(result, 'InfrastructureCluster').template;
    assert.deepEqual((patched['spec'] as Record<string, unknown>)['extra'], 1);
    assert.deepEqual(patched.metadata, byId(targets, 'InfrastructureCluster').template.metadata);
    assert.equal(patched.kind, 'AWSClusterTemplate');
  });

  test('leaves targets the patches do not select untouched', () => {
    const result = computePatchedTargets({
      patches: [patch('p', workers, [{ op: 'replace', path: '/spec/template/spec/instanceType', value: 'x' }])],
      targets,
      variables,
    });
    assert.equal(templateSpec(result, 'MachineDeploymentInfrastructure/md-a')['instanceType'], 'x');
    assert.equal(templateSpec(result, 'MachineDeploymentInfrastructure/md-b')['instanceType'], 't3.medium');
    assert.equal(templateSpec(result, 'ControlPlaneMachineInfrastructure')['instanceType'], 't3.large');
  });

  test('applies a patch per MachineDeployment with that MachineDeployment builtins', () => {
    const result = computePatchedTargets({
      patches: [
        patch('p', selector(api.awsMachine, { machineDeploymentClass: { names: ['*'] } }), [
          {
            op: 'add',
            path: '/spec/template/spec/replicas',
            valueFrom: { variable: 'builtin.machineDeployment.replicas' },
          },
        ]),
      ],
      targets,
      variables,
    });
    assert.equal(templateSpec(result, 'MachineDeploymentInfrastructure/md-a')['replicas'], 2);
    assert.equal(templateSpec(result, 'MachineDeploymentInfrastructure/md-b')['replicas'], 1);
  });

  test('does not mutate its inputs (frozen fixtures) and computes the same result twice', () => {
    const patches = deepFreeze([
      patch('p', infra, [{ op: 'add', path: '/spec/template/spec/cfg', valueFrom: { variable: 'cfg' } }]),
      patch('q', infra, [{ op: 'add', path: '/spec/template/spec/cfg/list/-', value: { name: 'third' } }]),
    ]);
    const before = JSON.stringify({ patches, targets, variables });
    const first = computePatchedTargets({ patches, targets, variables });
    const second = computePatchedTargets({ patches, targets, variables });
    assert.deepEqual(first, second);
    assert.equal(JSON.stringify({ patches, targets, variables }), before);
    const cfg = templateSpec(first, 'InfrastructureCluster')['cfg'] as { list: unknown[] };
    assert.equal(cfg.list.length, 3);
    const original = variables.topology.variables?.find((v) => v.name === 'cfg')?.value as { list: unknown[] };
    assert.equal(original.list.length, 2);
  });
});

type ErrorCase = {
  readonly name: string;
  readonly patches: readonly ClusterClassPatch[];
  readonly reason: PatchErrorReason;
  readonly location: Record<string, unknown>;
  readonly message: RegExp;
};

const errorCases: ErrorCase[] = [
  {
    name: 'names patch, definition, jsonPatch, path and target when a variable does not exist',
    patches: [
      patch('ok', infra, [{ op: 'add', path: '/spec/template/spec/a', value: 1 }]),
      patch('broken', workers, [
        { op: 'add', path: '/spec/template/spec/b', value: 1 },
        { op: 'add', path: '/spec/template/spec/c', valueFrom: { variable: 'missing.field' } },
      ]),
    ],
    reason: PatchErrorReason.GeneratePatchFailed,
    location: {
      patchName: 'broken',
      patchIndex: 1,
      definitionIndex: 0,
      jsonPatchIndex: 1,
      path: '/spec/template/spec/c',
      targetId: 'MachineDeploymentInfrastructure/md-a',
    },
    message: /variable "missing" does not exist/,
  },
  {
    name: 'reports a nested variable path that does not exist',
    patches: [patch('p', infra, [{ op: 'add', path: '/spec/template/spec/c', valueFrom: { variable: 'cfg.nope' } }])],
    reason: PatchErrorReason.GeneratePatchFailed,
    location: { patchName: 'p', jsonPatchIndex: 0, targetId: 'InfrastructureCluster' },
    message: /variable "cfg\.nope" does not exist: failed to lookup segment "nope"/,
  },
  {
    name: 'reports an enabledIf that fails to render',
    patches: [patch('p', infra, [{ op: 'remove', path: '/spec/template/spec/region' }], '{{ fail "nope" }}')],
    reason: PatchErrorReason.GeneratePatchFailed,
    location: { patchName: 'p', targetId: 'InfrastructureCluster' },
    message: /failed to calculate value for enabledIf/,
  },
  {
    name: 'reports a replace of a path that does not exist in the template',
    patches: [patch('p', infra, [{ op: 'replace', path: '/spec/template/spec/nope', value: 1 }])],
    reason: PatchErrorReason.ApplyPatchFailed,
    location: { patchName: 'p', definitionIndex: 0, jsonPatchIndex: 0, path: '/spec/template/spec/nope' },
    message: /replace operation does not apply: doc is missing key/,
  },
  {
    name: 'reports an add below a parent that does not exist',
    patches: [patch('p', infra, [{ op: 'add', path: '/spec/template/spec/a/b', value: 1 }])],
    reason: PatchErrorReason.ApplyPatchFailed,
    location: { patchName: 'p', jsonPatchIndex: 0, path: '/spec/template/spec/a/b' },
    message: /add operation does not apply: doc is missing path/,
  },
  {
    name: 'rejects a path outside /spec/',
    patches: [patch('p', infra, [{ op: 'add', path: '/metadata/labels', value: {} }])],
    reason: PatchErrorReason.InvalidPatch,
    location: { patchName: 'p', definitionIndex: 0, jsonPatchIndex: 0, path: '/metadata/labels' },
    message: /jsonPatch path must start with "\/spec\/"/,
  },
  {
    name: 'rejects a replace of an array element by index',
    patches: [patch('p', infra, [{ op: 'replace', path: '/spec/template/spec/list/1', value: 1 }])],
    reason: PatchErrorReason.InvalidPatch,
    location: { patchName: 'p', jsonPatchIndex: 0 },
    message: /elements in arrays can not be accessed in a replace operation/,
  },
  {
    name: 'rejects an add at an array index other than 0',
    patches: [patch('p', infra, [{ op: 'add', path: '/spec/template/spec/list/2', value: 1 }])],
    reason: PatchErrorReason.InvalidPatch,
    location: { patchName: 'p', jsonPatchIndex: 0 },
    message: /arrays can only be accessed using "0" \(prepend\) or "-" \(append\)/,
  },
  {
    name: 'rejects a jsonPatch with both value and valueFrom',
    patches: [
      patch('p', infra, [{ op: 'add', path: '/spec/template/spec/a', value: 1, valueFrom: { variable: 'region' } }]),
    ],
    reason: PatchErrorReason.InvalidPatch,
    location: { patchName: 'p', jsonPatchIndex: 0 },
    message: /can not define both value and valueFrom/,
  },
  {
    name: 'rejects a patch with neither definitions nor external',
    patches: [deepFreeze({ name: 'empty', definitions: [] })],
    reason: PatchErrorReason.InvalidPatch,
    location: { patchName: 'empty', patchIndex: 0 },
    message: /one of definitions or external must be defined/,
  },
  {
    name: 'rejects an external patch naming it',
    patches: [deepFreeze({ name: 'ext', external: { generatePatchesExtension: 'gen.my-extension' } })],
    reason: PatchErrorReason.ExternalPatchNotSupported,
    location: { patchName: 'ext', patchIndex: 0 },
    message: /patch "ext".*external patches \(Runtime Extensions\) are not supported/,
  },
];

describe('computePatchedTargets failures', () => {
  for (const c of errorCases) {
    test(c.name, () => {
      assert.throws(
        () => computePatchedTargets({ patches: c.patches, targets, variables }),
        (err: unknown) => {
          assert.ok(err instanceof PatchError, `expected PatchError, got ${String(err)}`);
          assert.equal(err.reason, c.reason);
          for (const [key, value] of Object.entries(c.location)) {
            assert.deepEqual(err.location[key as keyof typeof err.location], value, `location.${key}`);
          }
          assert.match(err.message, c.message);
          assert.match(err.message, new RegExp(`patch "${String(c.location['patchName'])}"`));
          return true;
        },
      );
    });
  }

  test('throws ExternalPatchNotSupportedError for an external patch', () => {
    assert.throws(
      () =>
        computePatchedTargets({
          patches: [{ name: 'ext', external: { validateTopologyExtension: 'v' } }],
          targets,
          variables,
        }),
      ExternalPatchNotSupportedError,
    );
  });

  test('names the ClusterClass field path and the template of a failing jsonPatch', () => {
    assert.throws(
      () =>
        computePatchedTargets({
          patches: [patch('p', workers, [{ op: 'remove', path: '/spec/template/spec/nope' }])],
          targets,
          variables,
        }),
      (err: unknown) => {
        assert.ok(err instanceof PatchError);
        assert.equal(err.fieldPath, 'spec.patches[0].definitions[0].jsonPatches[0]');
        assert.equal(err.kind, 'AWSMachineTemplate');
        assert.equal(err.objectName, 'quick-start-worker-machine');
        assert.match(err.message, /AWSMachineTemplate of MachineDeployment topology md-a/);
        return true;
      },
    );
  });

  test('fails when a MachineDeployment target has no builtins', () => {
    const noBuiltins = deepFreeze({
      ...variables,
      builtins: { ...variables.builtins, machineDeployments: {} },
    });
    assert.throws(
      () =>
        computePatchedTargets({
          patches: [patch('p', infra, [{ op: 'add', path: '/spec/template/spec/a', value: 1 }])],
          targets,
          variables: noBuiltins,
        }),
      (err: unknown) =>
        err instanceof PatchError &&
        /could not find builtins for MachineDeployment topology "md-[ab]"/.test(err.message),
    );
  });
});
