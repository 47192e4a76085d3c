import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster } from '#shared/api/core/v1beta1/cluster.ts';
import { ClusterClass } from '#shared/api/core/v1beta1/cluster-class.ts';
import { formatFieldPath, parseObject } from '#shared/api/parse.ts';
import { ValidationError } from '#shared/errors/index.ts';

describe('formatFieldPath', () => {
  const cases: [string, (string | number)[], string][] = [
    ['joins names with dots', ['spec', 'topology', 'version'], 'spec.topology.version'],
    [
      'puts list indexes in brackets',
      ['spec', 'topology', 'workers', 'machineDeployments', 0, 'class'],
      'spec.topology.workers.machineDeployments[0].class',
    ],
    [
      'quotes keys that are not identifiers',
      ['metadata', 'labels', 'cluster.x-k8s.io/name'],
      'metadata.labels["cluster.x-k8s.io/name"]',
    ],
  ];
  for (const [name, path, want] of cases) test(name, () => assert.equal(formatFieldPath(path), want));
});

describe('parseObject', () => {
  const base = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { namespace: 'ns', name: 'c1' } };

  test('keeps unknown metadata such as managedFields', () => {
    const parsed = parseObject(Cluster, 'Cluster', {
      ...base,
      metadata: { ...base.metadata, managedFields: [{ manager: 'x' }] },
    });
    assert.deepEqual((parsed.metadata as Record<string, unknown>)['managedFields'], [{ manager: 'x' }]);
  });

  const bad: [string, unknown, string, RegExp][] = [
    [
      'a missing topology version',
      { ...base, spec: { topology: { class: 'cc' } } },
      'spec.topology.version',
      /invalid Cluster ns\/c1: spec\.topology\.version: /,
    ],
    [
      'a machineDeployment name with capitals',
      {
        ...base,
        spec: {
          topology: { class: 'cc', version: 'v1.30.0', workers: { machineDeployments: [{ class: 'w', name: 'MD' }] } },
        },
      },
      'spec.topology.workers.machineDeployments[0].name',
      /lower case alphanumeric/,
    ],
    [
      'a malformed duration',
      {
        ...base,
        spec: { topology: { class: 'cc', version: 'v1.30.0', controlPlane: { nodeDrainTimeout: 'ten minutes' } } },
      },
      'spec.topology.controlPlane.nodeDrainTimeout',
      /must be a duration/,
    ],
    ['the wrong kind', { ...base, kind: 'Machine' }, 'kind', /invalid Machine ns\/c1: kind: /],
  ];
  for (const [name, raw, field, message] of bad) {
    test(`rejects ${name}, naming ${field}`, () => {
      assert.throws(
        () => parseObject(Cluster, 'Cluster', raw),
        (err: unknown) =>
          err instanceof ValidationError &&
          err.fieldPath === field &&
          message.test(err.message) &&
          err.objectName === 'c1',
      );
    });
  }

  test('names the patch field of a ClusterClass with an unsupported op', () => {
    const cc = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'ClusterClass',
      metadata: { namespace: 'ns', name: 'cc' },
      spec: {
        patches: [
          {
            name: 'p',
            definitions: [
              {
                selector: { apiVersion: 'v1', kind: 'X', matchResources: {} },
                jsonPatches: [{ op: 'move', path: '/spec' }],
              },
            ],
          },
        ],
      },
    };
    assert.throws(
      () => parseObject(ClusterClass, 'ClusterClass', cc),
      (err: unknown) =>
        err instanceof ValidationError && err.fieldPath === 'spec.patches[0].definitions[0].jsonPatches[0].op',
    );
  });
});
