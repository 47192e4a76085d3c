// Whether a MachineDeployment is still rolling to its version (upstream internal/topology/check
// IsMachineDeploymentUpgrading), shared by the topology pass and the Cluster webhook's upgrade checks. Pure: callers
// pass the Machines its selector matches.
import { getPath } from '#shared/topology/desired/paths.ts';
import type { Unstructured } from '#shared/topology/types.ts';

const text = (obj: Unstructured, path: readonly string[]): string | undefined => {
  const v = getPath(obj, path);
  return typeof v === 'string' ? v : undefined;
};

/**
 * upstream check.IsMachineDeploymentUpgrading (v1.14, with #13876): a Machine of the MachineDeployment has another
 * `spec.version`, or its Node's kubelet (`status.nodeInfo.kubeletVersion`, when reported) runs another, so that an
 * in-place upgrade counts as upgrading until the kubelet reports the new version. An error string (upstream's
 * message) when a Machine has no version; false when the MachineDeployment has none.
 *
 * @example
 * isMachineDeploymentUpgrading(md, [machineWithSpecVersionNewButKubeletOld]); // true
 */
export function isMachineDeploymentUpgrading(md: Unstructured, machines: readonly Unstructured[]): boolean | string {
  const version = text(md, ['spec', 'template', 'spec', 'version']) ?? '';
  if (version === '') return false;
  for (const machine of machines) {
    const machineVersion = text(machine, ['spec', 'version']) ?? '';
    if (machineVersion === '')
      return `failed to check if MachineDeployment ${md.metadata.name} is upgrading: Machine ${machine.metadata.name} has no version`;
    if (machineVersion !== version) return true;
    const kubelet = text(machine, ['status', 'nodeInfo', 'kubeletVersion']) ?? '';
    if (kubelet !== '' && kubelet !== version) return true;
  }
  return false;
}
