// Which versions of Cluster API's groups the server serves (API discovery, cached per client), the version to talk
// to it in (v1beta2 when served, else v1beta1 through the edge conversion: upstream up to v1.10), and the apiVersion
// of each provider kind under a contract, read from the contract labels of the CRDs as upstream does.
import type { ApiVersionGetter } from '#shared/api/conversion/index.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/client.ts';
import { KubeNotFoundError } from '#shared/kube/errors.ts';

export const CoreGroup = 'cluster.x-k8s.io';
export const AddonsGroup = 'addons.cluster.x-k8s.io';

/** The versions we can speak, best first. */
export const SupportedVersions = ['v1beta2', 'v1beta1'] as const;
export type SupportedVersion = (typeof SupportedVersions)[number];

/** The server serves none of the versions of a group we can speak. */
export class UnsupportedApiVersionError extends CapiError {}

type ApiGroup = { versions?: { groupVersion?: string; version?: string }[] };

/**
 * The versions of `group` the server serves (empty when it serves none), cached on the client.
 *
 * @example
 * await getServedVersions(kube, 'cluster.x-k8s.io'); // ['v1beta2', 'v1beta1']
 */
export async function getServedVersions(kube: KubeClient, group: string): Promise<readonly string[]> {
  const key = `group:${group}`;
  let pending = kube.discovery.get(key) as Promise<readonly string[]> | undefined;
  if (pending === undefined) {
    pending = kube
      .request<ApiGroup>({ method: 'GET', path: `/apis/${group}`, target: { verb: 'discover', kind: group } })
      .then(
        (apiGroup) => (apiGroup.versions ?? []).flatMap((v) => (v.version === undefined ? [] : [v.version])),
        (err: unknown) => {
          if (err instanceof KubeNotFoundError) return [];
          throw err;
        },
      );
    kube.discovery.set(key, pending);
    pending.catch(() => kube.discovery.delete(key));
  }
  return pending;
}

/** Forgets what discovery said about `group`, e.g. after installing or upgrading CRDs. */
export function forgetServedVersions(kube: KubeClient, group: string): void {
  kube.discovery.delete(`group:${group}`);
}

/** The version to use from what a server serves: v1beta2 when it can, else v1beta1. */
export function chooseVersion(group: string, served: readonly string[]): SupportedVersion {
  const chosen = SupportedVersions.find((version) => served.includes(version));
  if (chosen === undefined) {
    throw new UnsupportedApiVersionError(
      `the server serves ${group} in ${served.length === 0 ? 'no version' : served.join(', ')}; capi-serverless needs v1beta2 or v1beta1`,
      { reason: 'UnsupportedApiVersion' },
    );
  }
  return chosen;
}

/**
 * The version of `group` to read and write on this server.
 *
 * @example
 * await getEdgeVersion(kube, 'cluster.x-k8s.io'); // 'v1beta2' on upstream v1.11+, 'v1beta1' up to v1.10
 */
export async function getEdgeVersion(kube: KubeClient, group: string): Promise<SupportedVersion> {
  return chooseVersion(group, await getServedVersions(kube, group));
}

type CrdList = {
  items?: { metadata?: { labels?: Record<string, string> }; spec?: { group?: string; names?: { kind?: string } } }[];
};

/**
 * The apiVersion of each kind under a Cluster API contract, from the `cluster.x-k8s.io/<contract>` labels of the CRDs
 * (value `v1alpha4_v1beta1`: the last is the newest), as upstream's conversion webhooks and contract helpers read
 * them. Read once per client and contract.
 */
export async function getContractApiVersionGetter(kube: KubeClient, contract: string): Promise<ApiVersionGetter> {
  const key = `contract:${contract}`;
  let pending = kube.discovery.get(key) as Promise<ReadonlyMap<string, string>> | undefined;
  if (pending === undefined) {
    const label = `${CoreGroup}/${contract}`;
    pending = kube
      .request<CrdList>({
        method: 'GET',
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        query: { labelSelector: label },
        target: { verb: 'list', kind: 'CustomResourceDefinitionList' },
      })
      .then((list) => {
        const versions = new Map<string, string>();
        for (const crd of list.items ?? []) {
          const group = crd.spec?.group;
          const kind = crd.spec?.names?.kind;
          const newest = crd.metadata?.labels?.[label]?.split('_').at(-1);
          if (group && kind && newest) versions.set(`${group}/${kind}`, `${group}/${newest}`);
        }
        return versions;
      });
    kube.discovery.set(key, pending);
    pending.catch(() => kube.discovery.delete(key));
  }
  const versions = await pending;
  return (group, kind) => versions.get(`${group}/${kind}`);
}
