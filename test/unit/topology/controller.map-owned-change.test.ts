import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapOwnedChange, mapOwnedTemplateChange } from '#shared/topology/controller.ts';
import type { ChangedObject, MappedKey } from '#shared/runtime/types.ts';

const md = Object.freeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDeployment',
  namespace: 'ns',
  name: 'c1-md-0',
  cluster: 'c1',
});
const clusterKey = Object.freeze({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  namespace: 'ns',
  name: 'c1',
});

describe('mapOwnedChange', () => {
  const cases: { name: string; change: ChangedObject; keys: MappedKey[] }[] = [
    {
      name: 'a change with a generation wakes the Cluster and names the object and generation, to be judged against the checkpoint',
      change: { ...md, generation: 4, type: 'MODIFIED' },
      keys: [{ ...clusterKey, wake: true, ownedChange: { object: 'MachineDeployment ns/c1-md-0', generation: 4 } }],
    },
    {
      name: "a change with the object's metadata hash carries it, to tell a label or annotation edit from the pass's own",
      change: { ...md, generation: 4, metadataHash: 'h4', type: 'MODIFIED' },
      keys: [
        {
          ...clusterKey,
          wake: true,
          ownedChange: { object: 'MachineDeployment ns/c1-md-0', generation: 4, metadata: 'h4' },
        },
      ],
    },
    {
      name: 'an InfrastructureCluster (watched as owned) maps the same way',
      change: { ...md, kind: 'DevCluster', name: 'c1-x', generation: 2, metadataHash: 'h2', type: 'MODIFIED' },
      keys: [
        { ...clusterKey, wake: true, ownedChange: { object: 'DevCluster ns/c1-x', generation: 2, metadata: 'h2' } },
      ],
    },
    {
      name: 'a relist finding it changed does the same',
      change: { ...md, generation: 4, type: 'SYNC' },
      keys: [{ ...clusterKey, wake: true, ownedChange: { object: 'MachineDeployment ns/c1-md-0', generation: 4 } }],
    },
    {
      name: 'a change without a generation only wakes',
      change: { ...md, type: 'MODIFIED' },
      keys: [{ ...clusterKey, wake: true }],
    },
    {
      name: 'a deletion forces the pass, which puts the object back',
      change: { ...md, generation: 4, type: 'DELETED' },
      keys: [{ ...clusterKey, force: true }],
    },
    {
      name: 'an object that names no Cluster maps to nothing',
      change: { ...md, cluster: undefined, generation: 4, type: 'MODIFIED' },
      keys: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(mapOwnedChange(Object.freeze(c.change)), c.keys);
    });
  }
});

describe('mapOwnedTemplateChange', () => {
  const template = Object.freeze({
    apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
    kind: 'KubeadmConfigTemplate',
    namespace: 'ns',
    name: 'c1-md-0-x2bz9',
    cluster: 'c1',
  });
  const object = 'KubeadmConfigTemplate ns/c1-md-0-x2bz9';
  const cases: { name: string; change: ChangedObject; keys: MappedKey[] }[] = [
    {
      name: "an edit names the template, its generation and metadata hash, to be judged against the Cluster's checkpoint; it wakes nothing",
      change: { ...template, generation: 2, metadataHash: 'h2', type: 'MODIFIED' },
      keys: [{ ...clusterKey, ownedChange: { object, generation: 2, metadata: 'h2' } }],
    },
    {
      name: "a relist's SYNC is judged the same way (an edit made while the forwarder was away)",
      change: { ...template, generation: 2, type: 'SYNC' },
      keys: [{ ...clusterKey, ownedChange: { object, generation: 2 } }],
    },
    {
      name: "its creation (the pass's own, at creation or rotation) maps to nothing",
      change: { ...template, generation: 1, type: 'ADDED' },
      keys: [],
    },
    {
      name: "its deletion (the pass's own, after a rotation) maps to nothing",
      change: { ...template, generation: 1, type: 'DELETED' },
      keys: [],
    },
    {
      name: 'a change without a generation maps to nothing',
      change: { ...template, type: 'MODIFIED' },
      keys: [],
    },
    {
      name: 'a template that names no Cluster (a class template) maps to nothing here',
      change: { ...template, cluster: undefined, generation: 2, type: 'MODIFIED' },
      keys: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(mapOwnedTemplateChange(Object.freeze(c.change)), c.keys);
    });
  }
});
