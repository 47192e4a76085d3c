// The heap a forwarder watcher's memory of N owned templates takes (its `known` map: `namespace/name` → fact), with
// the fact of a metadata-only object (`<uid> <resourceVersion>`) and with the fact of a template a topology owns
// (computeOwnedTemplateFact: `<uid> <generation>|<metadata hash>`). Heap used after GC; keys are the same in both. One
// fact per process (V8 keeps strings parsed from JSON for the rest of the process, which would flatter the second).
//   node --expose-gc --import tsx test/bench/measure-template-fact-memory.ts metadata|ownedTemplate [N=10000]
import { randomUUID } from 'node:crypto';
import { computeOwnedTemplateFact } from '#functions/forwarder/watch-kind.ts';
import type { KubeObject } from '#shared/kube/objects.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const factName = process.argv[2];
const count = Number(process.argv[3] ?? 10_000);

/** An owned template's metadata as a metadata-only LIST page holds it. */
const template = (i: number): KubeObject => ({
  apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
  kind: 'KubeadmConfigTemplate',
  metadata: {
    namespace: `ns-${i % 100}`,
    name: `cluster-${i}-md-0-${(i * 7919).toString(36).slice(-5)}`,
    uid: randomUUID(),
    resourceVersion: String(1_000_000 + i * 7),
    generation: 1 + (i % 3),
    labels: {
      'cluster.x-k8s.io/cluster-name': `cluster-${i}`,
      'topology.cluster.x-k8s.io/owned': '',
      'topology.cluster.x-k8s.io/deployment-name': 'md-0',
    },
  },
});

const facts = {
  metadata: (obj: KubeObject) => `${obj.metadata.uid ?? ''} ${obj.metadata.resourceVersion ?? ''}`,
  ownedTemplate: computeOwnedTemplateFact,
};

if (factName !== 'metadata' && factName !== 'ownedTemplate') throw new Error('fact: metadata or ownedTemplate');
const factOf = facts[factName];
const objects = Array.from({ length: count }, (_, i) => template(i));
gc();
gc();
const before = process.memoryUsage().heapUsed;
const known = new Map<string, string>();
// NOTE: through JSON, as a watcher's strings come from a parsed LIST page (flat, not slices or cons strings).
for (const obj of objects)
  known.set(
    JSON.parse(JSON.stringify(`${obj.metadata.namespace}/${obj.metadata.name}`)) as string,
    JSON.parse(JSON.stringify(factOf(obj))) as string,
  );
gc();
gc();
const bytes = process.memoryUsage().heapUsed - before;
console.log(
  JSON.stringify({ fact: factName, objects: known.size, heapBytes: bytes, perObject: Math.round(bytes / count) }),
);
