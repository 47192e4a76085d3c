// Shared helpers for the provider operator tests: fixtures, frozen inputs, a provider builder.
import { readFileSync } from 'node:fs';
import type { Provider, ProviderKind, ProviderSpec } from '#shared/api/operator.ts';
import { operatorApiVersion } from '#shared/api/operator.ts';

/** Freezes a value deeply, so a pure function that mutates its input throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

export function readFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/providers/${name}`, import.meta.url), 'utf8');
}

export const componentsYaml = readFixture('infrastructure-docker-components.yaml');
export const metadataYaml = readFixture('infrastructure-docker-metadata.yaml');

/** A frozen provider object. */
export function provider(
  spec: ProviderSpec = {},
  kind: ProviderKind = 'InfrastructureProvider',
  name = 'docker',
  namespace = 'capd-ops',
): Provider {
  return deepFreeze({
    apiVersion: operatorApiVersion,
    kind,
    metadata: { name, namespace, uid: 'uid-1234' },
    spec: { version: 'v1.9.0', ...spec },
  } as Provider);
}
