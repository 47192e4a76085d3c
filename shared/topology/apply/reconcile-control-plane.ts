// The ControlPlane and its machine infrastructure template (upstream reconcileControlPlane): health check first,
// nothing else while an upgrade is pending, template rotation before the ControlPlane points at the new template,
// and the old template deleted only once the ControlPlane no longer references it.
import { reconcileMachineHealthCheck } from '#shared/topology/apply/reconcile-machine-health-check.ts';
import { defaultAllowedPaths } from '#shared/topology/apply/apply-intent.ts';
import {
  cleanupCreatedObject,
  deleteCurrentObject,
  getCreateRefusal,
  reconcileObject,
  type ApplyContext,
} from '#shared/topology/apply/reconcile-object.ts';
import { reconcileReferencedTemplate } from '#shared/topology/apply/reconcile-referenced-template.ts';
import { controlPlaneContractPaths } from '#shared/topology/contract/control-plane-contract.ts';
import { computeHeldBack } from '#shared/topology/desired/compute-held-back.ts';
import { namePrefixes } from '#shared/topology/desired/names.ts';
import { getPath, setPath } from '#shared/topology/desired/paths.ts';
import type { CurrentState, DesiredState, Unstructured } from '#shared/topology/types.ts';

/** What a control plane reconcile created: the ControlPlane itself, and every object it created (any kind). */
export type ControlPlaneResult = { readonly controlPlaneCreated: boolean; readonly created: readonly Unstructured[] };

/**
 * Reconciles the control plane; resolves whether the ControlPlane object was created in this pass and every object
 * created (so a pass that fails before the Cluster references them can remove them again).
 *
 * @example
 * const { controlPlaneCreated } = await reconcileControlPlane(ctx, current, desired);
 */
export async function reconcileControlPlane(
  ctx: ApplyContext,
  current: CurrentState,
  desired: DesiredState,
): Promise<ControlPlaneResult> {
  await checkControlPlaneRefusedAgain(ctx, current, desired);
  // NOTE: health checks do not depend on the Kubernetes version, so they follow even while an upgrade is pending.
  const healthCheck = await reconcileMachineHealthCheck(
    ctx,
    current.controlPlane?.machineHealthCheck,
    desired.controlPlane.machineHealthCheck,
  );
  const createdHealthCheck = healthCheck ? [healthCheck] : [];
  // Changing the ControlPlane while its upgrade waits would start a rollout now and another one with the upgrade.
  if (computeHeldBack(current, desired).controlPlane)
    return { controlPlaneCreated: false, created: createdHealthCheck };

  const desiredTemplate = desired.controlPlane.infrastructureMachineTemplate;
  const currentTemplate = current.controlPlane?.infrastructureMachineTemplate;
  let controlPlane = desired.controlPlane.object;
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
    // The ControlPlane still references the old template: the new one must not linger; nor a health check created
    // for a ControlPlane that does not exist.
    await cleanupCreatedObject(ctx, created);
    if (!current.controlPlane?.object) for (const obj of createdHealthCheck) await cleanupCreatedObject(ctx, obj);
    throw err;
  }
  if (currentTemplate && desiredTemplate && created && currentTemplate.metadata.name !== created.metadata.name) {
    await deleteCurrentObject(ctx, currentTemplate);
  }
  return {
    controlPlaneCreated: result.created,
    created: [
      ...createdHealthCheck,
      ...(created ? [created] : []),
      ...(result.created && result.object ? [result.object] : []),
    ],
  };
}

/**
 * Throws the create error of a ControlPlane that does not exist yet when a dry run of its create is refused with the
 * error the previous pass already ended with: the pass then creates no health check and no machine template only to
 * delete them again (upstream creates both on every retry, deleting the template and leaking the health check). A
 * first attempt, or a dry run refused otherwise (e.g. by a webhook that wants the template to exist), writes as
 * upstream does.
 */
async function checkControlPlaneRefusedAgain(
  ctx: ApplyContext,
  current: CurrentState,
  desired: DesiredState,
): Promise<void> {
  const previousError = ctx.previousError;
  if (previousError === undefined || current.controlPlane?.object) return;
  if (computeHeldBack(current, desired).controlPlane) return;
  let controlPlane = desired.controlPlane.object;
  const template = desired.controlPlane.infrastructureMachineTemplate;
  if (template) {
    const refPath = controlPlaneContractPaths(desired.controlPlane.contract).machineTemplateInfrastructureRef;
    const ref = getPath(controlPlane, refPath) as Record<string, unknown>;
    controlPlane = setPath(controlPlane, refPath, { ...ref, name: template.metadata.name });
  }
  const refusal = await getCreateRefusal(ctx, controlPlane, { allowedPaths: defaultAllowedPaths });
  if (refusal !== undefined && previousError.includes(refusal.message)) throw refusal;
}
