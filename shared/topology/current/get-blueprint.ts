// Reads the ClusterClass of a Cluster and every template it references (upstream getBlueprint).
import type { Cluster } from '#shared/api/cluster.ts';
import { ClusterClass } from '#shared/api/cluster-class.ts';
import type { ObjectReference } from '#shared/api/object-meta.ts';
import { parseObject } from '#shared/api/parse.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { TopologyReader } from '#shared/topology/current/reader.ts';
import type {
  Blueprint,
  MachineDeploymentBlueprint,
  MachinePoolBlueprint,
  Unstructured,
} from '#shared/topology/types.ts';

export class BlueprintError extends CapiError {}

async function getTemplate(
  reader: TopologyReader,
  cc: ClusterClass,
  ref: ObjectReference | undefined,
  field: string,
): Promise<Unstructured> {
  const namespace = cc.metadata.namespace ?? '';
  const id = { kind: 'ClusterClass', namespace, name: cc.metadata.name ?? '', fieldPath: field };
  if (!ref?.apiVersion || !ref.kind || !ref.name) {
    throw new BlueprintError(`ClusterClass ${namespace}/${id.name}: ${field} is incomplete`, {
      ...id,
      reason: 'InvalidReference',
    });
  }
  const template = await reader.get({ apiVersion: ref.apiVersion, kind: ref.kind, namespace, name: ref.name });
  if (!template) {
    throw new BlueprintError(
      `failed to get ${ref.kind} ${namespace}/${ref.name} referenced in ClusterClass ${namespace}/${id.name} ${field}: not found`,
      {
        ...id,
        reason: 'TemplateNotFound',
      },
    );
  }
  return template;
}

/** The ClusterClass of the Cluster, parsed; throws BlueprintError naming the Cluster when it does not exist. */
export async function getClusterClass(reader: TopologyReader, cluster: Cluster): Promise<ClusterClass> {
  const namespace = cluster.metadata.namespace ?? '';
  const name = cluster.spec?.topology?.class ?? '';
  const raw = await reader.get({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'ClusterClass', namespace, name });
  if (!raw) {
    throw new BlueprintError(
      `ClusterClass ${namespace}/${name} referenced by Cluster ${namespace}/${cluster.metadata.name ?? ''} not found`,
      {
        kind: 'Cluster',
        namespace,
        name: cluster.metadata.name ?? '',
        fieldPath: 'spec.topology.class',
        reason: 'ClusterClassNotFound',
      },
    );
  }
  return parseObject(ClusterClass, 'ClusterClass', raw);
}

/**
 * The blueprint: the ClusterClass and every referenced template.
 *
 * @example
 * const blueprint = await getBlueprint(reader, clusterClass);
 */
export async function getBlueprint(reader: TopologyReader, cc: ClusterClass): Promise<Blueprint> {
  const spec = cc.spec ?? {};
  const machineDeployments: Record<string, MachineDeploymentBlueprint> = {};
  for (const [i, md] of (spec.workers?.machineDeployments ?? []).entries()) {
    machineDeployments[md.class] = {
      className: md.class,
      bootstrapTemplate: await getTemplate(
        reader,
        cc,
        md.template.bootstrap.ref,
        `spec.workers.machineDeployments[${i}].template.bootstrap.ref`,
      ),
      infrastructureMachineTemplate: await getTemplate(
        reader,
        cc,
        md.template.infrastructure.ref,
        `spec.workers.machineDeployments[${i}].template.infrastructure.ref`,
      ),
    };
  }
  const machinePools: Record<string, MachinePoolBlueprint> = {};
  for (const [i, mp] of (spec.workers?.machinePools ?? []).entries()) {
    machinePools[mp.class] = {
      className: mp.class,
      bootstrapTemplate: await getTemplate(
        reader,
        cc,
        mp.template.bootstrap.ref,
        `spec.workers.machinePools[${i}].template.bootstrap.ref`,
      ),
      infrastructureMachinePoolTemplate: await getTemplate(
        reader,
        cc,
        mp.template.infrastructure.ref,
        `spec.workers.machinePools[${i}].template.infrastructure.ref`,
      ),
    };
  }
  return {
    clusterClass: cc,
    infrastructureClusterTemplate: await getTemplate(reader, cc, spec.infrastructure?.ref, 'spec.infrastructure.ref'),
    controlPlaneTemplate: await getTemplate(reader, cc, spec.controlPlane?.ref, 'spec.controlPlane.ref'),
    controlPlaneInfrastructureMachineTemplate: spec.controlPlane?.machineInfrastructure
      ? await getTemplate(
          reader,
          cc,
          spec.controlPlane.machineInfrastructure.ref,
          'spec.controlPlane.machineInfrastructure.ref',
        )
      : undefined,
    machineDeployments,
    machinePools,
  };
}
