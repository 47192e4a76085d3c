// Reads the ClusterClass of a Cluster and every template it references (upstream getBlueprint).
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type { ClusterClassTemplateReference } from '#shared/api/core/v1beta2/common.ts';
import { parseObject } from '#shared/api/parse.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { ContractResolver } from '#shared/topology/current/get-contracts.ts';
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
  ref: ClusterClassTemplateReference | undefined,
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
  const clusterNamespace = cluster.metadata.namespace ?? '';
  const classRef = cluster.spec?.topology?.classRef;
  // NOTE: spec.topology.classRef.namespace selects a ClusterClass in another namespace; the Cluster's by default.
  const namespace = classRef?.namespace || clusterNamespace;
  const name = classRef?.name ?? '';
  const raw = await reader.get({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'ClusterClass', namespace, name });
  if (!raw) {
    throw new BlueprintError(
      `ClusterClass ${namespace}/${name} referenced by Cluster ${clusterNamespace}/${cluster.metadata.name ?? ''} not found`,
      {
        kind: 'Cluster',
        namespace: clusterNamespace,
        name: cluster.metadata.name ?? '',
        fieldPath: 'spec.topology.classRef',
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
 * const blueprint = await getBlueprint(reader, createContractResolver(reader), clusterClass);
 */
export async function getBlueprint(
  reader: TopologyReader,
  contracts: ContractResolver,
  cc: ClusterClass,
): Promise<Blueprint> {
  const spec = cc.spec;
  // NOTE: every template is read at once (a new Cluster's first pass waits for these reads before BeforeClusterCreate);
  // a failure is reported for the first failing reference in the class's order, as reading them one by one would.
  const reads = createOrderedReads();
  const template = (ref: ClusterClassTemplateReference | undefined, field: string) =>
    reads.add(getTemplate(reader, cc, ref, field));
  const mdReads = (spec.workers?.machineDeployments ?? []).map((md, i) => ({
    className: md.class,
    bootstrapTemplate: template(
      md.bootstrap.templateRef,
      `spec.workers.machineDeployments[${i}].bootstrap.templateRef`,
    ),
    infrastructureMachineTemplate: template(
      md.infrastructure.templateRef,
      `spec.workers.machineDeployments[${i}].infrastructure.templateRef`,
    ),
  }));
  const mpReads = (spec.workers?.machinePools ?? []).map((mp, i) => ({
    className: mp.class,
    bootstrapTemplate: template(mp.bootstrap.templateRef, `spec.workers.machinePools[${i}].bootstrap.templateRef`),
    infrastructureMachinePoolTemplate: template(
      mp.infrastructure.templateRef,
      `spec.workers.machinePools[${i}].infrastructure.templateRef`,
    ),
  }));
  const controlPlaneRead = template(spec.controlPlane.templateRef, 'spec.controlPlane.templateRef');
  const infrastructureRead = template(spec.infrastructure.templateRef, 'spec.infrastructure.templateRef');
  const cpMachineRead = spec.controlPlane.machineInfrastructure
    ? template(
        spec.controlPlane.machineInfrastructure.templateRef,
        'spec.controlPlane.machineInfrastructure.templateRef',
      )
    : undefined;
  await reads.settled();
  const machineDeployments: Record<string, MachineDeploymentBlueprint> = {};
  for (const md of mdReads) {
    machineDeployments[md.className] = {
      className: md.className,
      bootstrapTemplate: await md.bootstrapTemplate,
      infrastructureMachineTemplate: await md.infrastructureMachineTemplate,
    };
  }
  const machinePools: Record<string, MachinePoolBlueprint> = {};
  for (const mp of mpReads) {
    machinePools[mp.className] = {
      className: mp.className,
      bootstrapTemplate: await mp.bootstrapTemplate,
      infrastructureMachinePoolTemplate: await mp.infrastructureMachinePoolTemplate,
    };
  }
  const controlPlaneTemplate = await controlPlaneRead;
  return {
    clusterClass: cc,
    infrastructureClusterTemplate: await infrastructureRead,
    controlPlaneTemplate,
    controlPlaneInfrastructureMachineTemplate: cpMachineRead === undefined ? undefined : await cpMachineRead,
    // NOTE: the ControlPlane is created with the template's API version, so its contract is the one that version
    // implements (upstream GetContractVersionForVersion on the desired ControlPlane).
    controlPlaneContract: await contracts.contractOf(
      controlPlaneTemplate.apiVersion,
      controlPlaneTemplate.kind.replace(/Template$/, ''),
    ),
    machineDeployments,
    machinePools,
  };
}

/**
 * Reads started together and failing in the order they were added: `settled()` waits for all of them and throws
 * the error of the first one added that failed (so which error a pass reports does not depend on timing).
 */
function createOrderedReads() {
  const all: Promise<unknown>[] = [];
  return {
    add<T>(read: Promise<T>): Promise<T> {
      // NOTE: the caller awaits each read only after settled(); until then a rejection must not count as unhandled.
      read.catch(() => undefined);
      all.push(read);
      return read;
    },
    async settled(): Promise<void> {
      const results = await Promise.allSettled(all);
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
