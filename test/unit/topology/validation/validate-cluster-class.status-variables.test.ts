// status.variables of a ClusterClass with variables from DiscoverVariables extensions (upstream reconcileVariables):
// one definition per source, `from` the patch name, conflicts when definitions differ in meaning.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import { computeClusterClassStatusVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import { ClusterClassBuilder, deepFreeze } from '#test/support/builders/topology.ts';

const variable = (name: string, schema: Record<string, unknown>, required = false): ClusterClassVariable => ({
  name,
  required,
  schema: { openAPIV3Schema: schema },
});

describe('computeClusterClassStatusVariables with discovered variables', () => {
  const cc = deepFreeze(
    new ClusterClassBuilder()
      .with((c) => {
        c.spec.variables = [variable('region', { type: 'string' }), variable('zeta', { type: 'string' })];
      })
      .build(),
  );
  const cases: {
    name: string;
    discovered: { patchName: string; variables: ClusterClassVariable[] }[];
    want: { name: string; conflict: boolean; from: string[] }[];
  }[] = [
    {
      name: 'inline only: one inline definition each, sorted by name',
      discovered: [],
      want: [
        { name: 'region', conflict: false, from: ['inline'] },
        { name: 'zeta', conflict: false, from: ['inline'] },
      ],
    },
    {
      name: 'a discovered variable gets the patch name as its source',
      discovered: [{ patchName: 'p1', variables: [variable('maxSurge', { type: 'string' })] }],
      want: [
        { name: 'maxSurge', conflict: false, from: ['p1'] },
        { name: 'region', conflict: false, from: ['inline'] },
        { name: 'zeta', conflict: false, from: ['inline'] },
      ],
    },
    {
      name: 'the same definition from two sources is no conflict (false flags do not count)',
      discovered: [
        { patchName: 'p1', variables: [variable('region', { type: 'string', uniqueItems: false })] },
        { patchName: 'p2', variables: [variable('region', { type: 'string' })] },
      ],
      want: [
        { name: 'region', conflict: false, from: ['inline', 'p1', 'p2'] },
        { name: 'zeta', conflict: false, from: ['inline'] },
      ],
    },
    {
      name: 'another schema is a conflict',
      discovered: [{ patchName: 'p1', variables: [variable('zeta', { type: 'integer' })] }],
      want: [
        { name: 'region', conflict: false, from: ['inline'] },
        { name: 'zeta', conflict: true, from: ['inline', 'p1'] },
      ],
    },
    {
      name: 'another required is a conflict',
      discovered: [{ patchName: 'p1', variables: [variable('region', { type: 'string' }, true)] }],
      want: [
        { name: 'region', conflict: true, from: ['inline', 'p1'] },
        { name: 'zeta', conflict: false, from: ['inline'] },
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const status = computeClusterClassStatusVariables(cc, deepFreeze(c.discovered));
      assert.deepEqual(
        status.map((v) => ({ name: v.name, conflict: v.definitionsConflict, from: v.definitions.map((d) => d.from) })),
        c.want,
      );
      assert.deepEqual(computeClusterClassStatusVariables(cc, c.discovered), status, 'deterministic');
    });
  }
});
