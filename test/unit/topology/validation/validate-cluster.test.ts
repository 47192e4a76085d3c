import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '#shared/api/v1beta2/cluster.ts';
import type { ClusterVariable } from '#shared/api/v1beta2/variables.ts';
import { validateClusterTopology } from '#shared/topology/validation/validate-cluster.ts';
import { formatFieldErrors } from '#shared/topology/variables/index.ts';
import { ClusterBuilder, ClusterClassBuilder, deepFreeze } from '#test/builders/topology.ts';

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
