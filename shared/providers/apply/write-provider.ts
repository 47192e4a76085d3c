// Writes to the provider object itself: the finalizer, the resolved version, the applied-inputs hash (metadata and
// spec, by JSON merge patch guarded by resourceVersion) and its status (only when it changed).
import type { Provider, ProviderStatus } from '#shared/api/operator/v1alpha2/provider.ts';
import { operatorApiVersion, providerSchemas } from '#shared/api/operator/v1alpha2/provider.ts';
import { parseObject } from '#shared/api/parse.ts';
import { patchObject, updateStatus } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';
import { computeStableJson } from '#shared/providers/desired/compute-inputs-hash.ts';

function ref(p: Provider) {
  return {
    apiVersion: operatorApiVersion,
    kind: p.kind,
    namespace: p.metadata.namespace,
    name: p.metadata.name ?? '',
  };
}

function parse(p: Provider, raw: KubeObject): Provider {
  return parseObject(providerSchemas[p.kind], p.kind, raw) as Provider;
}

/** Merge-patches the provider (metadata and/or spec), guarded by its resourceVersion; returns the result. */
export async function patchProvider(
  kube: KubeClient,
  p: Provider,
  patch: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> },
  fieldManager: string,
): Promise<Provider> {
  const body = { ...patch, metadata: { ...patch.metadata, resourceVersion: p.metadata.resourceVersion } };
  return parse(p, await patchObject(kube, ref(p), body, { fieldManager }));
}

/** Sets `finalizers` to `finalizers` (the full list, as a merge patch replaces lists). */
export function setFinalizers(kube: KubeClient, p: Provider, finalizers: string[], fieldManager: string) {
  return patchProvider(kube, p, { metadata: { finalizers: finalizers.length ? finalizers : null } }, fieldManager);
}

/** Whether two statuses serialise the same (key order and undefined members ignored). */
export function isSameStatus(a: ProviderStatus | undefined, b: ProviderStatus): boolean {
  return computeStableJson(a ?? {}) === computeStableJson(b);
}

/** Replaces the status when it differs from the one read; returns the provider as written (or as it was). */
export async function writeProviderStatus(
  kube: KubeClient,
  p: Provider,
  status: ProviderStatus,
  fieldManager: string,
): Promise<Provider> {
  if (isSameStatus(p.status, status)) return p;
  const body = { apiVersion: operatorApiVersion, kind: p.kind, metadata: p.metadata, spec: p.spec, status };
  return parse(p, await updateStatus(kube, body as KubeObject, { fieldManager }));
}
