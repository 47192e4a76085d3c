import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PatchSelector } from '#shared/api/core/v1beta2/cluster-class.ts';
import { matchesClassName, matchesSelector, PatchVariablesResolver } from '#shared/topology/patches/index.ts';
import { api, selector, targets, variables } from '#test/support/fixtures/topology/patches.ts';

const resolver = new PatchVariablesResolver(variables);

function matchedIds(sel: PatchSelector): string[] {
  return targets.filter((t) => matchesSelector(t, resolver.forTarget(t).template, sel)).map((t) => t.id);
}

const cases: { name: string; selector: PatchSelector; expected: string[] }[] = [
  {
    name: 'matches the InfrastructureCluster template with infrastructureCluster',
    selector: selector(api.awsCluster, { infrastructureCluster: true }),
    expected: ['InfrastructureCluster'],
  },
  {
    name: 'matches the ControlPlane template with controlPlane',
    selector: selector(api.kcp, { controlPlane: true }),
    expected: ['ControlPlane'],
  },
  {
    name: 'matches the control plane machine infrastructure template with controlPlane too',
    selector: selector(api.awsMachine, { controlPlane: true }),
    expected: ['ControlPlaneMachineInfrastructure'],
  },
  {
    name: 'matches nothing when the kind matches but no matchResources is enabled',
    selector: selector(api.awsMachine, {}),
    expected: [],
  },
  {
    name: 'matches nothing when matchResources points at a holder of another kind',
    selector: selector(api.awsCluster, { controlPlane: true }),
    expected: [],
  },
  {
    name: 'matches nothing when the apiVersion differs',
    selector: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AWSClusterTemplate',
      matchResources: { infrastructureCluster: true },
    },
    expected: [],
  },
  {
    name: 'matches bootstrap and infrastructure of a MachineDeployment class by name',
    selector: selector(api.kubeadmConfig, { machineDeploymentClass: { names: ['gpu-worker'] } }),
    expected: ['MachineDeploymentBootstrap/md-b'],
  },
  {
    name: 'matches every MachineDeployment class with *',
    selector: selector(api.awsMachine, { machineDeploymentClass: { names: ['*'] } }),
    expected: ['MachineDeploymentInfrastructure/md-a', 'MachineDeploymentInfrastructure/md-b'],
  },
  {
    name: 'matches MachineDeployment classes by prefix*',
    selector: selector(api.awsMachine, { machineDeploymentClass: { names: ['default-*'] } }),
    expected: ['MachineDeploymentInfrastructure/md-a'],
  },
  {
    name: 'matches MachineDeployment classes by *suffix',
    selector: selector(api.awsMachine, { machineDeploymentClass: { names: ['*-worker'] } }),
    expected: ['MachineDeploymentInfrastructure/md-a', 'MachineDeploymentInfrastructure/md-b'],
  },
  {
    name: 'matches nothing with an empty list of MachineDeployment class names',
    selector: selector(api.awsMachine, { machineDeploymentClass: { names: [] } }),
    expected: [],
  },
  {
    name: 'does not match the control plane machine with machineDeploymentClass',
    selector: selector(api.awsMachine, { machineDeploymentClass: { names: ['*'] } }),
    expected: ['MachineDeploymentInfrastructure/md-a', 'MachineDeploymentInfrastructure/md-b'],
  },
  {
    name: 'matches MachinePool templates with machinePoolClass names',
    selector: selector(api.awsPool, { machinePoolClass: { names: ['default-pool'] } }),
    expected: ['MachinePoolInfrastructure/mp-a'],
  },
  {
    name: 'matches MachinePool bootstrap with a machinePoolClass wildcard',
    selector: selector(api.kubeadmConfig, { machinePoolClass: { names: ['*-pool'] } }),
    expected: ['MachinePoolBootstrap/mp-a'],
  },
  {
    name: 'does not match MachinePool templates with machineDeploymentClass',
    selector: selector(api.kubeadmConfig, { machineDeploymentClass: { names: ['default-pool', '*'] } }),
    expected: ['MachineDeploymentBootstrap/md-a', 'MachineDeploymentBootstrap/md-b'],
  },
  {
    name: 'matches when any of several matchResources applies',
    selector: selector(api.awsMachine, { controlPlane: true, machineDeploymentClass: { names: ['gpu-worker'] } }),
    expected: ['ControlPlaneMachineInfrastructure', 'MachineDeploymentInfrastructure/md-b'],
  },
];

describe('matchesSelector', () => {
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(matchedIds(c.selector), c.expected);
    });
  }

  test('reads the class from builtin.machineDeployment.class, not from the holder', () => {
    const target = targets.find((t) => t.id === 'MachineDeploymentInfrastructure/md-a');
    assert.ok(target);
    const sel = selector(api.awsMachine, { machineDeploymentClass: { names: ['default-worker'] } });
    assert.equal(
      matchesSelector(target, new Map([['builtin', { machineDeployment: { class: 'other' } }]]), sel),
      false,
    );
    assert.equal(matchesSelector(target, new Map(), sel), false);
  });
});

describe('matchesClassName', () => {
  const table: [string, string, boolean][] = [
    ['worker', 'worker', true],
    ['worker', 'worker-2', false],
    ['*', 'anything', true],
    ['work*', 'worker', true],
    ['*er', 'worker', true],
    ['*x', 'worker', false],
    ['x*', 'worker', false],
  ];
  for (const [name, className, expected] of table) {
    test(`${expected ? 'matches' : 'does not match'} class ${className} with ${name}`, () => {
      assert.equal(matchesClassName(name, className), expected);
    });
  }
});
