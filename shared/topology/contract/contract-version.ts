// Provider contract versions, as upstream's internal/contract reads them: the labels `cluster.x-k8s.io/<contract>` on
// a provider's CRD list the API versions (joined by `_`) that implement that contract. Pure: the CRD is read in
// current/ and only its labels come here.
import { CapiError } from '#shared/errors/index.ts';

/** The provider contracts this engine writes (v1beta2 is the current one, v1beta1 is still compatible). */
export const ContractVersion = { V1Beta1: 'v1beta1', V1Beta2: 'v1beta2' } as const;
export type ContractVersion = (typeof ContractVersion)[keyof typeof ContractVersion];

/** What a pass knows about one referenced kind: its contract and the API version to read and write it with. */
export type KindContract = { readonly contract: ContractVersion; readonly apiVersion: string };

export class ContractError extends CapiError {}

const contractGroup = 'cluster.x-k8s.io';

/** Kubernetes' ordering of API versions (`CompareKubeAwareVersionStrings`): GA > beta > alpha, then by numbers. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [Number(m[1]), stage, m[3] === undefined ? 0 : Number(m[3])] as const;
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (!pa) return -1;
  if (!pb) return 1;
  // NOTE: Kubernetes compares major first only for equal stages; a GA v1 sorts above v2beta1.
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  return pa[2] - pb[2];
}

/** `<plural>.<group>`, the CRD name of a kind as upstream's contract.CalculateCRDName (flect's plural rules). */
export function computeCrdName(group: string, kind: string): string {
  return `${computePlural(kind.toLowerCase())}.${group}`;
}

function computePlural(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/**
 * The latest contract the engine supports that the CRD declares, and the latest API version implementing it (upstream
 * GetLatestContractAndAPIVersionFromContract with the current contract v1beta2).
 *
 * @example
 * computeLatestContract({ 'cluster.x-k8s.io/v1beta2': 'v1beta2' }, 'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io');
 * // { contract: 'v1beta2', version: 'v1beta2' }
 */
export function computeLatestContract(
  labels: Readonly<Record<string, string>> | undefined,
  crdName: string,
): { contract: ContractVersion; version: string } {
  for (const contract of [ContractVersion.V1Beta2, ContractVersion.V1Beta1]) {
    const versions = labels?.[`${contractGroup}/${contract}`];
    if (!versions) continue;
    const sorted = versions.split('_').sort(compareKubeAwareVersions);
    return { contract, version: sorted[sorted.length - 1] ?? '' };
  }
  throw new ContractError(
    `cannot find any versions matching contract versions ["v1beta2" "v1beta1"] for CRD ${crdName} as contract version label(s) are either missing or empty`,
    {
      kind: 'CustomResourceDefinition',
      name: crdName,
      fieldPath: 'metadata.labels',
      reason: 'ContractVersionNotFound',
    },
  );
}

/** The contract an API version of the kind implements (upstream GetContractVersionForVersion). */
export function computeContractForVersion(
  labels: Readonly<Record<string, string>> | undefined,
  crdName: string,
  version: string,
): ContractVersion {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!key.startsWith(`${contractGroup}/`)) continue;
    const contract = key.slice(contractGroup.length + 1);
    if ((contract === 'v1beta1' || contract === 'v1beta2') && value.split('_').includes(version)) return contract;
  }
  throw new ContractError(`cannot find any contract version matching version ${version} for CRD ${crdName}`, {
    kind: 'CustomResourceDefinition',
    name: crdName,
    fieldPath: 'metadata.labels',
    reason: 'ContractVersionNotFound',
  });
}

/**
 * The contract assumed for a kind whose CRD is not at hand (`plan` on manifest files): v1beta2 for API versions at or
 * above v1beta2, v1beta1 below.
 */
export function computeAssumedContract(version: string): ContractVersion {
  return compareKubeAwareVersions(version, 'v1beta2') >= 0 ? ContractVersion.V1Beta2 : ContractVersion.V1Beta1;
}
