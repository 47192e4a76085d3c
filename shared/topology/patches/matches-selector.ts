// Whether a patch definition's selector picks a target, exactly as upstream's inline generator decides.
import type { PatchSelector } from '#shared/api/core/v1beta2/cluster-class.ts';
import { HolderKind } from '#shared/topology/patches/patch-target.ts';
import type { PatchTarget } from '#shared/topology/patches/patch-target.ts';
import { getVariableValue } from '#shared/topology/patches/variable-value.ts';
import type { VariableMap } from '#shared/topology/patches/variable-value.ts';

/**
 * Whether `name` (from `matchResources.*Class.names`) matches a class: equal, `*`, `*suffix` or `prefix*`.
 *
 * @example
 * matchesClassName('default-*', 'default-worker'); // true
 */
export function matchesClassName(name: string, className: string): boolean {
  if (name === '*' || name === className) return true;
  if (name.startsWith('*') && className.endsWith(name.slice(1))) return true;
  if (name.endsWith('*') && className.startsWith(name.slice(0, -1))) return true;
  return false;
}

// NOTE: upstream compares the raw JSON of the builtin with the quoted name, and prefix/suffix patterns with the
// unquoted string ('' when the builtin is not a string), so `*` matches whenever the builtin exists.
function matchesClassVariable(
  templateVariables: VariableMap,
  path: string,
  names: readonly string[] | undefined,
): boolean {
  let value: unknown;
  try {
    value = getVariableValue(templateVariables, path);
  } catch {
    return false;
  }
  const className = typeof value === 'string' ? value : '';
  return (names ?? []).some((name) => {
    if (name === '*' || (typeof value === 'string' && value === name)) return true;
    if (name.startsWith('*') && className.endsWith(name.slice(1))) return true;
    return name.endsWith('*') && className.startsWith(name.slice(0, -1));
  });
}

/**
 * Upstream's `matchesSelector`: the template's apiVersion and kind must equal the selector's, then one enabled
 * `matchResources` must apply to the target's holder:
 * - `infrastructureCluster`: the InfrastructureCluster template;
 * - `controlPlane`: the ControlPlane template AND the control plane's machine infrastructure template;
 * - `machineDeploymentClass.names` / `machinePoolClass.names`: bootstrap and infrastructure templates of workers whose
 *   class (read from the target's own `builtin.machineDeployment.class` / `builtin.machinePool.class`) matches a name,
 *   where a name may be `*`, `prefix*` or `*suffix`.
 *
 * @example
 * matchesSelector(target, templateVariables, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
 *   kind: 'AWSClusterTemplate', matchResources: { infrastructureCluster: true } });
 */
export function matchesSelector(target: PatchTarget, templateVariables: VariableMap, selector: PatchSelector): boolean {
  if (target.template.apiVersion !== selector.apiVersion || target.template.kind !== selector.kind) return false;
  const { matchResources } = selector;
  const kind = target.holder.kind;

  if (matchResources.infrastructureCluster === true && kind === HolderKind.InfrastructureCluster) return true;

  if (
    matchResources.controlPlane === true &&
    (kind === HolderKind.ControlPlane || kind === HolderKind.ControlPlaneMachineInfrastructure)
  ) {
    return true;
  }

  if (
    matchResources.machineDeploymentClass !== undefined &&
    (kind === HolderKind.MachineDeploymentBootstrap || kind === HolderKind.MachineDeploymentInfrastructure)
  ) {
    if (
      matchesClassVariable(
        templateVariables,
        'builtin.machineDeployment.class',
        matchResources.machineDeploymentClass.names,
      )
    ) {
      return true;
    }
  }

  if (
    matchResources.machinePoolClass !== undefined &&
    (kind === HolderKind.MachinePoolBootstrap || kind === HolderKind.MachinePoolInfrastructure)
  ) {
    if (matchesClassVariable(templateVariables, 'builtin.machinePool.class', matchResources.machinePoolClass.names)) {
      return true;
    }
  }

  return false;
}
