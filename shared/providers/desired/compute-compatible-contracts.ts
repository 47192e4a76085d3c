// Contract compatibility as clusterctl applies it (Cluster API `internal/contract.GetCompatibleVersions`): a contract
// is compatible with itself, and v1beta2 temporarily with v1beta1 too, until v1beta1 reaches end of life.

/**
 * The contracts providers may implement beside a core provider on `contract`.
 *
 * @example
 * computeCompatibleContracts('v1beta2'); // ['v1beta2', 'v1beta1']
 */
export function computeCompatibleContracts(contract: string): string[] {
  return contract === 'v1beta2' ? ['v1beta2', 'v1beta1'] : [contract];
}
