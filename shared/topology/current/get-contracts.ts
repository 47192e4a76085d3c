// Reads provider contracts from the CRDs of the referenced kinds (upstream contract.GetContractVersion /
// GetAPIVersion): the contract labels decide the shape each object is written in and the API version a
// ContractVersionedObjectReference is read with. One GET per CRD per pass.
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
export function createContractResolver(reader: TopologyReader, options: { lenient?: boolean } = {}): ContractResolver {
  const crds = new Map<string, Promise<Readonly<Record<string, string>> | undefined>>();
  const labelsOf = (group: string, kind: string) => {
    const name = computeCrdName(group, kind);
    let pending = crds.get(name);
    if (!pending) {
      pending = reader
        .get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })
        .then((crd) => (crd ? (crd.metadata.labels ?? {}) : undefined));
      crds.set(name, pending);
    }
    return pending.then((labels) => ({ name, labels }));
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
