// Reads provider contracts from the CRDs of the referenced kinds (upstream contract.GetContractVersion /
// GetAPIVersion): the contract labels decide the shape each object is written in and the API version a
// ContractVersionedObjectReference is read with. One GET per CRD per pass, or per CRD and TTL on a warm client.
import { CapiError } from '#shared/errors/index.ts';
import {
  computeAssumedContract,
  computeContractForVersion,
  computeCrdName,
  computeLatestContract,
  type ContractVersion,
} from '#shared/topology/contract/contract-version.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';

export type ContractResolver = {
  /** `group/version` to read and write the kind with: the latest version of the latest supported contract. */
  apiVersionOf(group: string, kind: string): Promise<string>;
  /** The contract the given API version of the kind implements. */
  contractOf(apiVersion: string, kind: string): Promise<ContractVersion>;
};

const versionOf = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** Contract labels kept across passes on one (warm) client: upstream reads CRDs from its informer cache. */
export type ContractCache = {
  /** Shared by the passes of one client (its `discovery` map). */
  readonly store: Map<string, Promise<unknown>>;
  /** The pass's time, in ms. */
  readonly nowMs: number;
  /** How long a CRD's labels are trusted. */
  readonly ttlMs: number;
};

/**
 * The default {@link ContractCache} lifetime. NOTE: a provider upgrade that moves a CRD to a new contract is seen within
 * this time; until then objects are written at the previous contract's version, which the upgraded CRD still serves
 * (clusterctl keeps old versions served), so nothing is refused meanwhile.
 */
export const ContractCacheTtlMs = 5 * 60_000;

type CachedLabels = { readonly expiresAtMs: number; readonly labels: Readonly<Record<string, string>> | undefined };

/**
 * A resolver over `reader`. When the reader is `lenient` (manifest files in `plan`, which carry no CRDs) a kind
 * without a CRD is assumed to implement the contract matching its API version (v1beta2 from v1beta2 up) and is read
 * with the version of any object of that kind at hand; against a server a missing CRD or contract label is an error,
 * as upstream.
 *
 * @example
 * const contracts = createContractResolver(reader);
 * await contracts.contractOf('controlplane.cluster.x-k8s.io/v1beta2', 'KubeadmControlPlane'); // 'v1beta2'
 */
export function createContractResolver(
  reader: TopologyReader,
  options: { lenient?: boolean; cache?: ContractCache } = {},
): ContractResolver {
  const { cache } = options;
  const crds = (cache?.store ?? new Map()) as Map<string, Promise<CachedLabels>>;
  const labelsOf = async (group: string, kind: string) => {
    const name = computeCrdName(group, kind);
    const key = `crd-labels:${name}`;
    let pending = crds.get(key);
    if (pending && cache) {
      const cached = await pending.catch(() => undefined);
      if (cached === undefined || cached.expiresAtMs <= cache.nowMs) pending = undefined;
    }
    if (!pending) {
      const expiresAtMs = cache ? cache.nowMs + cache.ttlMs : Number.POSITIVE_INFINITY;
      pending = reader
        .get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })
        .then((crd) => ({ expiresAtMs, labels: crd ? (crd.metadata.labels ?? {}) : undefined }));
      crds.set(key, pending);
      if (cache) {
        // NOTE: across passes, neither a failed read nor a missing CRD (it may be installed next) is remembered.
        pending.then(
          (got) => got.labels === undefined && crds.delete(key),
          () => crds.delete(key),
        );
      }
    }
    const { labels } = await pending;
    return { name, labels };
  };
  const missing = (name: string, kind: string) =>
    new CapiError(`failed to get contract version for kind ${kind}: CustomResourceDefinition ${name} not found`, {
      kind: 'CustomResourceDefinition',
      name,
      reason: 'ContractVersionNotFound',
    });
  return {
    async apiVersionOf(group, kind) {
      const { name, labels } = await labelsOf(group, kind);
      if (labels) return `${group}/${computeLatestContract(labels, name).version}`;
      if (!options.lenient) throw missing(name, kind);
      return `${group}/v1beta2`;
    },
    async contractOf(apiVersion, kind) {
      const { name, labels } = await labelsOf(groupOf(apiVersion), kind);
      if (labels) return computeContractForVersion(labels, name, versionOf(apiVersion));
      if (!options.lenient) throw missing(name, kind);
      return computeAssumedContract(versionOf(apiVersion));
    },
  };
}
