// Reads provider objects: the one a pass reconciles, and every provider of every kind (for the singleton, duplicate,
// contract and pause rules).
import { operatorApiVersion, providerKindNames, providerSchemas } from '#shared/api/operator/v1alpha2/provider.ts';
import type { Provider, ProviderKind } from '#shared/api/operator/v1alpha2/provider.ts';
import { parseObject } from '#shared/api/parse.ts';
import { findObject, listObjects } from '#shared/kube/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';

/** Which provider a pass reconciles. */
export type ProviderKey = { readonly kind: ProviderKind; readonly namespace: string; readonly name: string };

/** Reads and parses one provider; undefined when it does not exist. */
export async function getProvider(kube: KubeClient, key: ProviderKey): Promise<Provider | undefined> {
  const raw = await findObject(kube, { apiVersion: operatorApiVersion, ...key });
  return raw ? (parseObject(providerSchemas[key.kind], key.kind, raw) as Provider) : undefined;
}

/** Every provider of the seven kinds in every namespace, sorted by kind, namespace and name. */
export async function listAllProviders(kube: KubeClient): Promise<Provider[]> {
  const lists = await Promise.all(
    providerKindNames.map(async (kind) => {
      const list = await listObjects(kube, { apiVersion: operatorApiVersion, kind });
      return list.items.map((raw) => parseObject(providerSchemas[kind], kind, raw) as Provider);
    }),
  );
  return lists.flat();
}

/** `Kind namespace/name` of a provider. */
export function providerRef(p: Provider): string {
  return `${p.kind} ${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
}
