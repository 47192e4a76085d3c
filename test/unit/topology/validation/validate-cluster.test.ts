import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import type { ClusterVariable } from '#shared/api/core/v1beta2/variables.ts';
import { validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

/** A class whose `replicas` variable may never decrease (a transition rule). */
const clusterClass = deepFreeze(
  new ClusterClassBuilder()
    .variables([
      {
        name: 'replicas',
        required: false,
        schema: {
          openAPIV3Schema: {
            type: 'integer',
            'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'may not decrease' }],
          },
        },
      },
    ])
    .build(),
);

/** A Cluster that sets `replicas` on the topology and, as an override, on MachineDeployment md-0. */
function cluster(topology: number, md0: number): Cluster {
  const variable = (value: number): ClusterVariable[] => [{ name: 'replicas', value }];
  return deepFreeze(
    new ClusterBuilder()
      .with((c) => {
        c.spec!.topology!.variables = variable(topology);
      })
      .machineDeployments([
        { class: 'default-worker', name: 'md-0', replicas: 1, variables: { overrides: variable(md0) } },
      ])
      .build(),
  );
}

type Case = { name: string; cluster: Cluster; old?: Cluster; errors: string[] };

const cases: Case[] = [
  { name: 'skips transition rules on create', cluster: cluster(1, 1), errors: [] },
  { name: 'accepts an update the transition rules allow', cluster: cluster(3, 3), old: cluster(2, 2), errors: [] },
  {
    name: 'rejects a decrease of a Cluster variable and of a MachineDeployment override, each by its own old value',
    cluster: cluster(1, 1),
    old: cluster(2, 2),
    errors: [
      'spec.topology.workers.machineDeployments[md-0].variables.overrides[replicas].value: Invalid value: "1": may not decrease',
      'spec.topology.variables[replicas].value: Invalid value: "1": may not decrease',
    ],
  },
  {
    name: 'matches old overrides by MachineDeployment name',
    cluster: cluster(2, 1),
    old: deepFreeze(
      new ClusterBuilder()
        .with((c) => {
          c.spec!.topology!.variables = [{ name: 'replicas', value: 2 }];
        })
        .machineDeployments([
          {
            class: 'default-worker',
            name: 'md-renamed',
            replicas: 1,
            variables: { overrides: [{ name: 'replicas', value: 5 }] },
          },
        ])
        .build(),
    ),
    errors: [],
  },
];

describe('validateClusterTopology: transition rules of variables', () => {
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(formatFieldErrors(validateClusterTopology(c.cluster, clusterClass, c.old)), c.errors);
    });
  }
});

/** A class with control-plane machines and no health check anywhere, or with one on `default-worker`. */
const plainClass = deepFreeze(new ClusterClassBuilder().build());
const classWithWorkerCheck = deepFreeze(
  new ClusterClassBuilder()
    .with((cc) => {
      cc.spec.workers!.machineDeployments![0]!.healthCheck = {
        checks: { unhealthyNodeConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 300 }] },
      };
    })
    .build(),
);
const classWithoutMachines = deepFreeze(
  new ClusterClassBuilder()
    .with((cc) => {
      delete cc.spec.controlPlane.machineInfrastructure;
    })
    .build(),
);

type HealthCase = { name: string; cc: typeof plainClass; cluster: (c: Cluster) => void; errors: string[] };

const enableDetail =
  'cannot be set to true as healthCheck definition is not available in the Cluster topology or the ClusterClass';
const healthCases: HealthCase[] = [
  {
    name: 'refuses a control-plane health check enabled with no check in the topology or the class',
    cc: plainClass,
    cluster: (c) => {
      c.spec!.topology!.controlPlane = { ...c.spec!.topology!.controlPlane, healthCheck: { enabled: true } };
    },
    errors: [`spec.topology.controlPlane.healthCheck.enable: Forbidden: ${enableDetail}`],
  },
  {
    name: 'refuses a MachineDeployment health check enabled with no check in the topology or its class',
    cc: plainClass,
    cluster: (c) => {
      c.spec!.topology!.workers!.machineDeployments![0]!.healthCheck = { enabled: true };
    },
    errors: [`spec.topology.workers.machineDeployments[md-0].healthCheck.enable: Forbidden: ${enableDetail}`],
  },
  {
    name: 'accepts enabled: true when the class defines the check',
    cc: classWithWorkerCheck,
    cluster: (c) => {
      c.spec!.topology!.workers!.machineDeployments![0]!.healthCheck = { enabled: true };
    },
    errors: [],
  },
  {
    name: 'accepts enabled: true when the topology defines the check',
    cc: plainClass,
    cluster: (c) => {
      c.spec!.topology!.workers!.machineDeployments![0]!.healthCheck = {
        enabled: true,
        checks: { nodeStartupTimeoutSeconds: 600 },
      };
    },
    errors: [],
  },
  {
    name: 'accepts enabled: false without any check',
    cc: plainClass,
    cluster: (c) => {
      c.spec!.topology!.workers!.machineDeployments![0]!.healthCheck = { enabled: false };
    },
    errors: [],
  },
  {
    name: 'refuses a control-plane check when the class has no control-plane machines, and a node startup timeout under 30 s',
    cc: classWithoutMachines,
    cluster: (c) => {
      c.spec!.topology!.controlPlane = {
        ...c.spec!.topology!.controlPlane,
        healthCheck: { checks: { nodeStartupTimeoutSeconds: 10 } },
      };
    },
    errors: [
      'spec.topology.controlPlane.healthCheck: Forbidden: can be only set if spec.controlPlane.machineInfrastructure is set in ClusterClass',
      'spec.topology.controlPlane.healthCheck.checks.nodeStartupTimeoutSeconds: Invalid value: 10: must be at least 30s',
    ],
  },
];

describe("validateClusterTopology: health checks as upstream's Cluster webhook", () => {
  for (const c of healthCases) {
    test(c.name, () => {
      const cl = new ClusterBuilder().machineDeployments([{ class: 'default-worker', name: 'md-0' }]).with(c.cluster);
      assert.deepEqual(formatFieldErrors(validateClusterTopology(deepFreeze(cl.build()), c.cc)), c.errors);
    });
  }
});
