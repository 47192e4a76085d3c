// The generated CRDs: checked in and current, structural, with upstream's list-map keys and subresources.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { coreKinds } from '#shared/api/kinds.ts';
import { computeCrd, computeStructuralSchema } from '#shared/api/gen/compute-crd.ts';
import { crdDir, renderCrdFiles } from '#shared/api/gen/gen-crds.ts';

type Node = { [key: string]: unknown };

function at(schema: Node, path: string): Node {
  let node: Node = schema;
  for (const part of path.split('.')) {
    const props = node['properties'] as Node | undefined;
    const next = part === '[]' ? (node['items'] as Node | undefined) : (props?.[part] as Node | undefined);
    assert.ok(next, `schema has no ${part} in ${path}`);
    node = next;
  }
  return node;
}

function openAPI(kind: string): Node {
  const info = coreKinds.find((k) => k.kind === kind);
  assert.ok(info);
  const crd = computeCrd(info) as { spec: { versions: { schema: { openAPIV3Schema: Node } }[] } };
  return crd.spec.versions[0]!.schema.openAPIV3Schema;
}

function walk(node: unknown, visit: (n: Node, path: string) => void, path = ''): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, visit, `${path}[${i}]`));
  visit(node as Node, path);
  for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}.${k}`);
}

describe('generated CRDs', () => {
  test('the checked-in files are what `npm run gen:crds` writes today', () => {
    for (const { file, text } of renderCrdFiles()) {
      assert.equal(readFileSync(join(crdDir, file), 'utf8'), text, `${file} is stale: run npm run gen:crds`);
    }
  });

  const listMaps: [string, string, string[]][] = [
    ['Cluster', 'spec.topology.workers.machineDeployments', ['name']],
    ['Cluster', 'spec.topology.workers.machinePools', ['name']],
    ['Cluster', 'spec.topology.variables', ['name']],
    ['Cluster', 'spec.topology.workers.machineDeployments.[].variables.overrides', ['name']],
    ['ClusterClass', 'spec.workers.machineDeployments', ['class']],
    ['ClusterClass', 'spec.workers.machinePools', ['class']],
  ];
  for (const [kind, path, keys] of listMaps) {
    test(`${kind} ${path} merges as a map keyed by ${keys.join(',')}`, () => {
      const node = at(openAPI(kind), path);
      assert.equal(node['x-kubernetes-list-type'], 'map');
      assert.deepEqual(node['x-kubernetes-list-map-keys'], keys);
    });
  }

  test('every schema is structural: no additionalProperties false, no unions, every node typed or preserving', () => {
    for (const info of coreKinds) {
      walk(openAPI(info.kind), (n, path) => {
        assert.notEqual(n['additionalProperties'], false, `${info.kind}${path}`);
        for (const key of ['anyOf', 'oneOf', 'allOf', '$ref']) assert.ok(!(key in n), `${info.kind}${path} has ${key}`);
      });
    }
  });

  test('int-or-string fields carry the marker and no type', () => {
    const node = at(openAPI('MachineDeployment'), 'spec.remediation.maxInFlight');
    assert.equal(node['x-kubernetes-int-or-string'], true);
    assert.equal(node['type'], undefined);
  });

  test('variable values keep any JSON', () => {
    const node = at(openAPI('Cluster'), 'spec.topology.variables.[].value');
    assert.equal(node['x-kubernetes-preserve-unknown-fields'], true);
  });

  test('MachineDeployment has status and scale subresources and v1beta2 printer columns', () => {
    const crd = parse(readFileSync(join(crdDir, 'cluster.x-k8s.io_machinedeployments.yaml'), 'utf8')) as {
      spec: {
        names: { shortNames: string[] };
        versions: { subresources: Node; additionalPrinterColumns: { name: string }[] }[];
      };
    };
    const version = crd.spec.versions[0]!;
    assert.deepEqual(version.subresources, {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
    assert.deepEqual(
      version.additionalPrinterColumns.map((c) => c.name),
      ['Cluster', 'Replicas', 'Ready', 'Available', 'UpToDate', 'Phase', 'Age', 'Version'],
    );
    assert.deepEqual(crd.spec.names.shortNames, ['md']);
  });

  test('a union that is not int-or-string is refused with its path', () => {
    assert.throws(
      () =>
        computeStructuralSchema(
          { type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } } },
          'Thing',
        ),
      /anyOf at Thing\.x is not structural/,
    );
  });
});
