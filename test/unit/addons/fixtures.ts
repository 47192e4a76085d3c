// Shared, deep-frozen fixtures for the addons unit tests.
import { readFileSync } from 'node:fs';
import type { ClusterResourceSet, ClusterResourceSetBinding } from '#shared/api/addons.ts';
import type { ResourceContent } from '#shared/addons/desired/resource-data.ts';

/** Freezes `value` and everything reachable from it, so a function that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

export function fixturePath(name: string): string {
  return new URL(`../../fixtures/addons/${name}`, import.meta.url).pathname;
}

export function readFixture(name: string): string {
  return readFileSync(fixturePath(name), 'utf8');
}

/** The ConfigMap/Secret contents whose hashes were computed with Go (see hash-inputs.json). */
export const hashInputs: readonly ResourceContent[] = deepFreeze(
  JSON.parse(readFixture('hash-inputs.json')) as ResourceContent[],
);

export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export function configMap(name: string, data: Record<string, string> | undefined): ResourceContent {
  return deepFreeze({ kind: 'ConfigMap', namespace: 'ns', name, data });
}

export function secret(
  name: string,
  data: Record<string, string>,
  type = 'addons.cluster.x-k8s.io/resource-set',
): ResourceContent {
  return deepFreeze({
    kind: 'Secret',
    namespace: 'ns',
    name,
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
}

export function crs(
  name: string,
  resources: ClusterResourceSet['spec']['resources'],
  strategy?: 'ApplyOnce' | 'Reconcile',
): ClusterResourceSet {
  return deepFreeze({
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSet',
    metadata: { name, namespace: 'ns', uid: `uid-${name}` },
    spec: {
      clusterSelector: { matchLabels: { cni: 'calico' } },
      resources,
      ...(strategy ? { strategy } : {}),
    },
  });
}

export function binding(
  spec: ClusterResourceSetBinding['spec'] | undefined,
  ownerReferences: ClusterResourceSetBinding['metadata']['ownerReferences'] = [],
): ClusterResourceSetBinding {
  return deepFreeze({
    apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
    kind: 'ClusterResourceSetBinding',
    metadata: { name: 'c1', namespace: 'ns', ownerReferences },
    spec: { clusterName: 'c1', ...spec },
  });
}
