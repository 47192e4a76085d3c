// The ControlPlane and its machine infrastructure template (upstream reconcileControlPlane): health check first,
// nothing else while an upgrade is pending, template rotation before the ControlPlane points at the new template,
// and the old template deleted only once the ControlPlane no longer references it.
import { reconcileMachineHealthCheck } from '#shared/topology/apply/reconcile-machine-health-check.ts';
import {
  cleanupCreatedObject,
  deleteCurrentObject,
  reconcileObject,
  type ApplyContext,
} from '#shared/topology/apply/reconcile-object.ts';
import { reconcileReferencedTemplate } from '#shared/topology/apply/reconcile-referenced-template.ts';
import { controlPlaneContractPaths } from '#shared/topology/contract/control-plane-contract.ts';
import { namePrefixes } from '#shared/topology/desired/names.ts';
import { getPath, setPath } from '#shared/topology/desired/paths.ts';
import type { CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';

/**
 * Reconciles the control plane; resolves whether the ControlPlane object was created in this pass.
 *
 * @example
 * const created = await reconcileControlPlane(ctx, current, desired);
 */
export async function reconcileControlPlane(
  ctx: ApplyContext,
  current: CurrentState,
  desired: DesiredState,
): Promise<boolean> {
  // NOTE: health checks do not depend on the Kubernetes version, so they follow even while an upgrade is pending.
  await reconcileMachineHealthCheck(
    ctx,
    current.controlPlane?.machineHealthCheck,
    desired.controlPlane.machineHealthCheck,
  );
  // Changing the ControlPlane while its upgrade waits would start a rollout now and another one with the upgrade.
  if (desired.upgrade.controlPlane.isPendingUpgrade) return false;

  let controlPlane = desired.controlPlane.object;
  const desiredTemplate = desired.controlPlane.infrastructureMachineTemplate;
  const currentTemplate = current.controlPlane?.infrastructureMachineTemplate;
  let created: Unstructured | undefined;
  if (desiredTemplate) {
    const template = await reconcileReferencedTemplate(ctx, {
      current: currentTemplate,
      desired: desiredTemplate,
      templateNamePrefix: namePrefixes.controlPlaneInfrastructureMachineTemplate(current.cluster.metadata.name ?? ''),
    });
    created = template.created;
    const refPath = controlPlaneContractPaths(desired.controlPlane.contract).machineTemplateInfrastructureRef;
    const ref = getPath(controlPlane, refPath) as Record<string, unknown>;
    controlPlane = setPath(controlPlane, refPath, {
      ...ref,
      name: template.name,
    });
  }

  let result;
  try {
    result = await reconcileObject(ctx, { current: current.controlPlane?.object, desired: controlPlane });
  } catch (err) {
    // The ControlPlane still references the old template: the new one must not linger.
    await cleanupCreatedObject(ctx, created);
    throw err;
  }
  if (currentTemplate && desiredTemplate && created && currentTemplate.metadata.name !== created.metadata.name) {
    await deleteCurrentObject(ctx, currentTemplate);
  }
  return result.created;
}
