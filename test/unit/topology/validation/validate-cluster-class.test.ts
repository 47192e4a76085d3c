import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeClusterClassStatusVariables,
  validateClusterClass,
} from '#shared/topology/validation/validate-cluster-class.ts';
import { ClusterClassBuilder } from '#test/support/builders/topology.ts';

describe('validateClusterClass', () => {
  test('accepts the Docker-style class', () => {
    assert.deepEqual(validateClusterClass(new ClusterClassBuilder().build()), []);
  });

  const cases: [string, ClusterClassBuilder, string, RegExp][] = [
    [
      'refuses one kind serving as infrastructure cluster and control plane (seed 003, option 1)',
      new ClusterClassBuilder().with((c) => {
        c.spec.infrastructure.templateRef = {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'AWSManagedControlPlaneTemplate',
          name: 'eks',
        };
        c.spec.controlPlane.templateRef = {
          apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
          kind: 'AWSManagedControlPlaneTemplate',
          name: 'eks',
        };
      }),
      'spec.controlPlane.templateRef',
      /cannot serve as both the infrastructure cluster and the control plane/,
    ],
    [
      'requires the infrastructure reference name',
      new ClusterClassBuilder().with((c) => (c.spec.infrastructure.templateRef.name = '')),
      'spec.infrastructure.templateRef.name',
      /must be defined/,
    ],
    [
      'refuses duplicate MachineDeployment classes',
      new ClusterClassBuilder().with((c) =>
        c.spec.workers!.machineDeployments!.push(structuredClone(c.spec.workers!.machineDeployments![0]!)),
      ),
      'spec.workers.machineDeployments[1].class',
      /must be unique/,
    ],
    [
      'refuses a naming template that does not parse',
      new ClusterClassBuilder().with((c) => (c.spec.controlPlane.naming = { template: '{{ .cluster.name ' })),
      'spec.controlPlane.naming.template',
      /^invalid ControlPlane name template: parsing template "\{\{ \.cluster\.name ": template: template name generator:1: /,
    ],
    [
      'refuses an infrastructure naming template that does not parse',
      new ClusterClassBuilder().with((c) => (c.spec.infrastructure.naming = { template: '{{ .cluster.name ' })),
      'spec.infrastructure.naming.template',
      /^invalid InfraCluster name template: parsing template/,
    ],
    [
      'refuses a naming template that parses but does not render (a key upstream does not provide)',
      new ClusterClassBuilder().with(
        (c) =>
          (c.spec.workers!.machineDeployments![0]!.naming = {
            template: '{{ .cluster.name }}-{{ .machinePool.topologyName }}',
          }),
      ),
      'spec.workers.machineDeployments[default-worker].naming.template',
      /^invalid MachineDeployment name template: rendering template: template: template name generator:1:/,
    ],
    [
      'refuses a naming template whose names are not DNS-1123 subdomains',
      new ClusterClassBuilder().with(
        (c) => (c.spec.controlPlane.naming = { template: '{{ .cluster.name }}_{{ .random }}' }),
      ),
      'spec.controlPlane.naming.template',
      /^a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/,
    ],
    [
      'refuses a patch path outside /spec/',
      new ClusterClassBuilder().patches([
        {
          name: 'p',
          definitions: [
            {
              selector: { apiVersion: 'v1', kind: 'X', matchResources: { controlPlane: true } },
              jsonPatches: [{ op: 'add', path: '/metadata/labels', value: {} }],
            },
          ],
        },
      ]),
      'spec.patches[0].definitions[0].jsonPatches[0].path',
      /must start with "\/spec\/"/,
    ],
    [
      'refuses a patch reading an undefined variable',
      new ClusterClassBuilder().patches([
        {
          name: 'p',
          definitions: [
            {
              selector: { apiVersion: 'v1', kind: 'X', matchResources: { controlPlane: true } },
              jsonPatches: [{ op: 'add', path: '/spec/x', valueFrom: { variable: 'nope.a' } }],
            },
          ],
        },
      ]),
      'spec.patches[0].definitions[0].jsonPatches[0].valueFrom.variable',
      /variable with name nope cannot be found/,
    ],
    [
      'refuses a selector that matches nothing',
      new ClusterClassBuilder().patches([
        {
          name: 'p',
          definitions: [
            {
              selector: { apiVersion: 'v1', kind: 'X', matchResources: {} },
              jsonPatches: [{ op: 'add', path: '/spec/x', value: 1 }],
            },
          ],
        },
      ]),
      'spec.patches[0].definitions[0].selector',
      /must match at least one resource/,
    ],
  ];
  for (const [name, builder, field, detail] of cases) {
    test(name, () => {
      const errors = validateClusterClass(builder.build());
      const hit = errors.find((e) => e.field === field);
      assert.ok(hit, `no error on ${field}: ${JSON.stringify(errors)}`);
      assert.match(hit.detail, detail);
    });
  }
});

describe('computeClusterClassStatusVariables', () => {
  test('lists every inline definition with its schema', () => {
    const cc = new ClusterClassBuilder()
      .variables([{ name: 'region', required: true, schema: { openAPIV3Schema: { type: 'string', default: 'eu' } } }])
      .build();
    assert.deepEqual(computeClusterClassStatusVariables(cc), [
      {
        name: 'region',
        definitionsConflict: false,
        definitions: [
          { from: 'inline', required: true, schema: { openAPIV3Schema: { type: 'string', default: 'eu' } } },
        ],
      },
    ]);
  });
});
