// MachineDeployments of a topology (upstream reconcileMachineDeployments): create new ones with their templates and
// health checks, update existing ones (template rotation first, the MachineDeployment repointed after), delete
// removed ones, and finally delete the topology's templates nothing references any more.
import type { MachineDeployment } from '#shared/api/core/v1beta2/machine-deployment.ts';
import { listObjects, UnknownKindError } from '#shared/kube/index.ts';
import { reconcileMachineHealthCheck } from '#shared/topology/apply/reconcile-machine-health-check.ts';
import {
  cleanupCreatedObject,
  deleteCurrentObject,
  reconcileObject,
  type ApplyContext,
} from '#shared/topology/apply/reconcile-object.ts';
import { reconcileReferencedTemplate } from '#shared/topology/apply/reconcile-referenced-template.ts';
import { computeRecordedNamesOf } from '#shared/topology/current/get-current-state.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import { computeHeldBack } from '#shared/topology/desired/compute-held-back.ts';
import { namePrefixes } from '#shared/topology/desired/names.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import { groupOf } from '#shared/topology/desired/template-to-object.ts';
import {
  ClusterNameLabel,
  ClusterTopologyMachineDeploymentNameLabel,
  ClusterTopologyOwnedLabel,
} from '#shared/topology/labels.ts';
import type {
  CurrentState,
  DesiredMachineDeployment,
  DesiredState,
  MachineDeploymentState,
  Unstructured,
} from '#shared/topology/types.ts';

/** A template reference: ContractVersionedObjectReference (apiGroup) in v1beta2, apiVersion in v1beta1 objects. */
type Ref = {
  apiGroup?: string | undefined;
  apiVersion?: string | undefined;
  kind?: string | undefined;
  name?: string | undefined;
};

const infrastructureRefPath = ['spec', 'template', 'spec', 'infrastructureRef'];
const configRefPath = ['spec', 'template', 'spec', 'bootstrap', 'configRef'];

const templateKey = (ref: Ref) =>
  `${ref.apiGroup ?? groupOf(ref.apiVersion ?? '')}/${ref.kind ?? ''}/${ref.name ?? ''}`;

function refsOf(md: MachineDeployment): Ref[] {
  const spec = md.spec.template.spec;
  return [spec.infrastructureRef, ...(spec.bootstrap.configRef ? [spec.bootstrap.configRef] : [])];
}

function withTemplateNames(md: MachineDeployment, infrastructure: string, bootstrap: string): MachineDeployment {
  const spec = md.spec.template.spec;
  return {
    ...md,
    spec: {
      ...md.spec,
      template: {
        ...md.spec.template,
        spec: {
          ...spec,
          infrastructureRef: { ...spec.infrastructureRef, name: infrastructure },
          bootstrap: {
            ...spec.bootstrap,
            configRef: { apiGroup: '', kind: '', ...spec.bootstrap.configRef, name: bootstrap },
          },
        },
      },
    },
  };
}

/** Creates one MachineDeployment: templates, then the MachineDeployment, then its health check. */
async function createMachineDeployment(
  ctx: ApplyContext,
  clusterName: string,
  topologyName: string,
  desired: DesiredMachineDeployment,
): Promise<MachineDeployment> {
  const prefix = namePrefixes.machineDeploymentTemplate(clusterName, topologyName);
  const infrastructure = await reconcileReferencedTemplate(ctx, {
    desired: desired.infrastructureMachineTemplate,
    templateNamePrefix: prefix,
  });
  let bootstrap;
  try {
    bootstrap = await reconcileReferencedTemplate(ctx, {
      desired: desired.bootstrapTemplate,
      templateNamePrefix: prefix,
    });
  } catch (err) {
    await cleanupCreatedObject(ctx, infrastructure.created);
    throw err;
  }
  const md = withTemplateNames(desired.object, infrastructure.name, bootstrap.name);
  try {
    await reconcileObject(ctx, { desired: md as Unstructured });
  } catch (err) {
    await cleanupCreatedObject(ctx, infrastructure.created);
    await cleanupCreatedObject(ctx, bootstrap.created);
    throw err;
  }
  await reconcileMachineHealthCheck(ctx, undefined, desired.machineHealthCheck);
  return md;
}

/** Updates one MachineDeployment; resolves the MachineDeployment as it references templates after this pass. */
async function updateMachineDeployment(
  ctx: ApplyContext,
  clusterName: string,
  topologyName: string,
  current: MachineDeploymentState,
  desired: DesiredMachineDeployment,
  pendingUpgrade: boolean,
): Promise<MachineDeployment> {
  await reconcileMachineHealthCheck(ctx, current.machineHealthCheck, desired.machineHealthCheck);
  // Changing it now would roll it out twice: once now, once when its upgrade may start.
  if (pendingUpgrade) return current.object;
  const prefix = namePrefixes.machineDeploymentTemplate(clusterName, topologyName);
  const infrastructure = await reconcileReferencedTemplate(ctx, {
    current: current.infrastructureMachineTemplate,
    desired: desired.infrastructureMachineTemplate,
    templateNamePrefix: prefix,
  });
  let bootstrap;
  try {
    bootstrap = await reconcileReferencedTemplate(ctx, {
      current: current.bootstrapTemplate,
      desired: desired.bootstrapTemplate,
      templateNamePrefix: prefix,
    });
  } catch (err) {
    await cleanupCreatedObject(ctx, infrastructure.created);
    throw err;
  }
  const md = withTemplateNames(desired.object, infrastructure.name, bootstrap.name);
  try {
    await reconcileObject(ctx, { current: current.object as Unstructured, desired: md as Unstructured });
  } catch (err) {
    // The MachineDeployment still references the old templates: the half-made rotation is undone.
    await cleanupCreatedObject(ctx, infrastructure.created);
    await cleanupCreatedObject(ctx, bootstrap.created);
    throw err;
  }
  return md;
}

/** Templates referenced by the MachineSets of the Cluster (a rollout still in progress needs the old ones). */
async function listMachineSetTemplateKeys(ctx: ApplyContext, namespace: string, clusterName: string) {
  try {
    const list = await listObjects(ctx.kube, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineSet',
      namespace,
      labelSelector: `${ClusterNameLabel}=${clusterName}`,
    });
    // NOTE: as upstream's CalculateTemplatesInUse: a MachineSet being deleted no longer needs its templates.
    return list.items
      .filter((ms) => !ms.metadata.deletionTimestamp)
      .flatMap((ms) =>
        [infrastructureRefPath, configRefPath].flatMap((path) => {
          const ref = getPath(ms, path) as Ref | undefined;
          return ref ? [templateKey(ref)] : [];
        }),
      );
  } catch (err) {
    if (err instanceof UnknownKindError) return [];
    throw err;
  }
}

/**
 * The topology's templates of `kind` that the label-selected LIST would find, read by name: those the last pass that
 * succeeded left (`recorded`) and those the MachineDeployments referenced when this pass read them (a rotation's old
 * ones). NOTE: a pass that succeeded deleted every unused template it knew of (one a MachineSet holds makes it a
 * Requeue, and the pass after a Requeue, an Error or a pass that died lists them), so no other can exist but one a
 * user made with the topology's labels, which the next forced or sweep pass lists.
 */
async function getRecordedTemplates(
  reader: TopologyReader,
  recorded: ReadonlySet<string>,
  current: CurrentState,
  kind: Ref,
  labels: Readonly<Record<string, string>>,
): Promise<Unstructured[]> {
  const namespace = current.cluster.metadata.namespace ?? '';
  const sameKind = (t: Unstructured | undefined): t is Unstructured =>
    t !== undefined && t.kind === kind.kind && groupOf(t.apiVersion) === groupOf(kind.apiVersion ?? '');
  const referenced = Object.values(current.machineDeployments)
    .flatMap((md) => [md.infrastructureMachineTemplate, md.bootstrapTemplate])
    .filter(sameKind)
    .map((t) => t.metadata.name ?? '');
  const names = [...new Set([...computeRecordedNamesOf(recorded, kind.kind ?? '', namespace), ...referenced])].sort();
  const found = await Promise.all(
    names.map((name) => reader.get({ apiVersion: kind.apiVersion ?? '', kind: kind.kind ?? '', namespace, name })),
  );
  return found.filter(
    (t): t is Unstructured => t !== undefined && Object.entries(labels).every(([k, v]) => t.metadata.labels?.[k] === v),
  );
}

/**
 * Deletes the MachineDeployment templates of this Cluster that no MachineDeployment or MachineSet references: the
 * templates replaced by a rotation and those of removed MachineDeployments. Runs after every MachineDeployment was
 * written, so a template is never deleted while its owner still points at it.
 */
async function deleteUnusedTemplates(
  ctx: ApplyContext,
  reader: TopologyReader,
  current: CurrentState,
  kept: readonly MachineDeployment[],
  kinds: readonly Ref[],
): Promise<void> {
  const namespace = current.cluster.metadata.namespace ?? '';
  const clusterName = current.cluster.metadata.name ?? '';
  const candidates = new Map<string, Unstructured>();
  const labels = { [ClusterNameLabel]: clusterName, [ClusterTopologyOwnedLabel]: '' };
  for (const kind of kinds) {
    const owned = ctx.recordedNames
      ? await getRecordedTemplates(reader, ctx.recordedNames, current, kind, labels)
      : await reader.list({ apiVersion: kind.apiVersion ?? '', kind: kind.kind ?? '', namespace, matchLabels: labels });
    for (const t of owned)
      if (t.metadata.labels?.[ClusterTopologyMachineDeploymentNameLabel] !== undefined)
        candidates.set(templateKey({ apiVersion: t.apiVersion, kind: t.kind, name: t.metadata.name }), t);
  }
  for (const md of kept) for (const ref of refsOf(md)) candidates.delete(templateKey(ref));
  if (candidates.size === 0) return;
  // NOTE: a MachineDeployment of this Cluster the pass did not manage (e.g. one whose topology label was removed by
  // hand) still needs its templates.
  const managed = new Set(Object.values(current.machineDeployments).map((s) => s.object.metadata.name));
  const all = await reader.list({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    namespace,
    matchLabels: { [ClusterNameLabel]: clusterName },
  });
  for (const md of all)
    if (!managed.has(md.metadata.name))
      for (const path of [infrastructureRefPath, configRefPath]) {
        const ref = getPath(md, path) as Ref | undefined;
        if (ref) candidates.delete(templateKey(ref));
      }
  if (candidates.size === 0) return;
  for (const key of await listMachineSetTemplateKeys(ctx, namespace, clusterName)) {
    const held = candidates.get(key);
    if (held) ctx.heldTemplates?.push(`${held.kind} ${namespace}/${held.metadata.name ?? ''}`);
    candidates.delete(key);
  }
  for (const key of [...candidates.keys()].sort()) await deleteCurrentObject(ctx, candidates.get(key) as Unstructured);
}

/**
 * Creates, updates and deletes the MachineDeployments of a topology, in topology-name order.
 *
 * @example
 * await reconcileMachineDeployments(ctx, reader, current, desired);
 */
export async function reconcileMachineDeployments(
  ctx: ApplyContext,
  reader: TopologyReader,
  current: CurrentState,
  desired: DesiredState,
): Promise<void> {
  const clusterName = current.cluster.metadata.name ?? '';
  const held = computeHeldBack(current, desired).machineDeployments;
  const changesBefore = ctx.changed.length;
  const names = [...new Set([...Object.keys(current.machineDeployments), ...Object.keys(desired.machineDeployments)])];
  const kept: MachineDeployment[] = [];
  const kinds = new Map<string, Ref>();
  // NOTE: templates are listed by kind with the API version of the template objects at hand (the references hold
  // only the group).
  const noteKinds = (...templates: (Unstructured | undefined)[]) => {
    for (const t of templates)
      if (t) kinds.set(`${groupOf(t.apiVersion)}/${t.kind}`, { apiVersion: t.apiVersion, kind: t.kind });
  };
  for (const name of names.sort()) {
    const have = current.machineDeployments[name];
    const want = desired.machineDeployments[name];
    if (have) noteKinds(have.infrastructureMachineTemplate, have.bootstrapTemplate);
    if (want) noteKinds(want.infrastructureMachineTemplate, want.bootstrapTemplate);
    if (want && !have) {
      if (held.create.has(name)) continue;
      kept.push(await createMachineDeployment(ctx, clusterName, name, want));
    } else if (want && have) {
      kept.push(await updateMachineDeployment(ctx, clusterName, name, have, want, held.update.has(name)));
    } else if (have) {
      await reconcileMachineHealthCheck(ctx, have.machineHealthCheck, undefined);
      await deleteCurrentObject(ctx, have.object as Unstructured);
    }
  }
  // NOTE: unused templates come only from a rotation, a removed MachineDeployment or a template a MachineSet held:
  // a write of this pass, or something an earlier pass that did not succeed left (see discoverLeftovers).
  if (ctx.discoverLeftovers !== false || ctx.changed.length > changesBefore)
    await deleteUnusedTemplates(ctx, reader, current, kept, [...kinds.values()]);
}
