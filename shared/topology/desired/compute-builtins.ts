// The builtin variables (`builtin.cluster.*`, `builtin.controlPlane.*`, `builtin.machineDeployment.*`,
// `builtin.machinePool.*`) exactly as upstream builds them from the desired objects: values come from what this
// pass will write (e.g. the control plane version after upgrade sequencing), fields omitted when upstream omits them.
import type { Cluster } from '#shared/api/core/v1beta2/cluster.ts';
import { controlPlaneContract } from '#shared/topology/desired/compute-control-plane.ts';
import { getPath } from '#shared/topology/desired/paths.ts';
import type { DesiredMachineDeployment, DesiredMachinePool, Unstructured } from '#shared/topology/types.ts';

export type JsonObject = { [key: string]: unknown };

export type Builtins = {
  /** `{ cluster: {...} }` — global to every patch target. */
  readonly global: JsonObject;
  /** `{ controlPlane: {...} }` — merged into the control plane targets (and, as upstream, every target). */
  readonly controlPlane: JsonObject;
  /** `{ machineDeployment: {...} }` per MachineDeployment topology name. */
  readonly machineDeployments: Readonly<Record<string, JsonObject>>;
  /** `{ machinePool: {...} }` per MachinePool topology name. */
  readonly machinePools: Readonly<Record<string, JsonObject>>;
};

function ipFamilyOf(cidrs: readonly string[]): 'IPv4' | 'IPv6' | 'DualStack' | 'Invalid' {
  if (cidrs.length > 2) return 'Invalid';
  let v4 = false;
  let v6 = false;
  for (const cidr of cidrs) {
    const ip = cidr.split('/')[0] ?? '';
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) v4 = true;
    else if (ip.includes(':')) v6 = true;
    else return 'Invalid';
  }
  if (v4 && v6) return 'DualStack';
  if (v4) return 'IPv4';
  if (v6) return 'IPv6';
  return 'Invalid';
}

/** upstream Cluster.GetIPFamily, rendered as ipFamilyToString renders it. */
export function computeIPFamily(cluster: Cluster): string {
  const pods = cluster.spec?.clusterNetwork?.pods?.cidrBlocks ?? [];
  const services = cluster.spec?.clusterNetwork?.services?.cidrBlocks ?? [];
  if (pods.length === 0 && services.length === 0) return 'IPv4';
  if (pods.length === 0) return ipFamilyOf(services);
  const podFamily = ipFamilyOf(pods);
  if (services.length === 0) return podFamily;
  const serviceFamily = ipFamilyOf(services);
  return podFamily === serviceFamily ? podFamily : 'Invalid';
}

function metadataOf(obj: {
  metadata: { labels?: Record<string, string> | undefined; annotations?: Record<string, string> | undefined };
}): JsonObject | undefined {
  const { labels, annotations } = obj.metadata;
  if (!labels && !annotations) return undefined;
  return { ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) };
}

/** `builtin.cluster.topology`: version and the ClusterClass (`class`/`classNamespace` and `classRef`). */
function computeTopologyBuiltins(cluster: Cluster): JsonObject {
  const topology = cluster.spec?.topology;
  const name = topology?.classRef.name ?? '';
  const namespace = topology?.classRef.namespace || (cluster.metadata.namespace ?? '');
  return {
    version: topology?.version ?? '',
    classRef: { name, namespace },
    ...(name ? { class: name } : {}),
    ...(namespace ? { classNamespace: namespace } : {}),
  };
}

/** `builtin.cluster`. */
export function computeClusterBuiltins(cluster: Cluster): JsonObject {
  const c: JsonObject = {
    name: cluster.metadata.name ?? '',
    namespace: cluster.metadata.namespace ?? '',
    ...(cluster.metadata.uid ? { uid: cluster.metadata.uid } : {}),
    topology: computeTopologyBuiltins(cluster),
  };
  const network = cluster.spec?.clusterNetwork;
  if (network) {
    c['network'] = {
      ipFamily: computeIPFamily(cluster),
      ...(network.serviceDomain ? { serviceDomain: network.serviceDomain } : {}),
      ...(network.services?.cidrBlocks ? { services: network.services.cidrBlocks } : {}),
      ...(network.pods?.cidrBlocks ? { pods: network.pods.cidrBlocks } : {}),
    };
  }
  return { cluster: c };
}

/** `builtin.controlPlane`, from the desired ControlPlane. */
export function computeControlPlaneBuiltins(
  cluster: Cluster,
  controlPlane: Unstructured,
  infrastructureMachineTemplate: Unstructured | undefined,
): JsonObject {
  const cp: JsonObject = {
    name: controlPlane.metadata.name ?? '',
    version: String(getPath(controlPlane, controlPlaneContract.version) ?? ''),
  };
  if (cluster.spec?.topology?.controlPlane?.replicas !== undefined) {
    const replicas = getPath(controlPlane, controlPlaneContract.replicas);
    if (typeof replicas === 'number') cp['replicas'] = replicas;
  }
  const metadata = metadataOf(controlPlane);
  if (metadata) cp['metadata'] = metadata;
  if (infrastructureMachineTemplate)
    cp['machineTemplate'] = { infrastructureRef: { name: infrastructureMachineTemplate.metadata.name ?? '' } };
  return { controlPlane: cp };
}

/** What `builtin.machineDeployment` and `builtin.machinePool` read of a desired worker object. */
type WorkerObject = {
  readonly metadata: {
    name?: string | undefined;
    labels?: Record<string, string> | undefined;
    annotations?: Record<string, string> | undefined;
  };
  readonly spec: {
    readonly replicas?: number | undefined;
    readonly template: { readonly spec: { readonly version?: string | undefined } };
  };
};

/** The builtins a MachineDeployment and a MachinePool share: version, class, names, replicas, metadata, references. */
function computeWorkerBuiltins(
  topologyName: string,
  className: string,
  o: WorkerObject,
  bootstrapName: string | undefined,
  infrastructureName: string | undefined,
): JsonObject {
  const b: JsonObject = {
    version: o.spec.template.spec.version ?? '',
    class: className,
    name: o.metadata.name ?? '',
    topologyName,
  };
  if (o.spec.replicas !== undefined) b['replicas'] = o.spec.replicas;
  const metadata = metadataOf(o);
  if (metadata) b['metadata'] = metadata;
  b['bootstrap'] = { configRef: { name: bootstrapName ?? '' } };
  b['infrastructureRef'] = { name: infrastructureName ?? '' };
  return b;
}

/** `builtin.machineDeployment`, from a desired MachineDeployment. */
export function computeMachineDeploymentBuiltins(
  topologyName: string,
  className: string,
  md: DesiredMachineDeployment,
): JsonObject {
  return {
    machineDeployment: computeWorkerBuiltins(
      topologyName,
      className,
      md.object,
      md.bootstrapTemplate.metadata.name,
      md.infrastructureMachineTemplate.metadata.name,
    ),
  };
}

/** `builtin.machinePool`, from a desired MachinePool. */
export function computeMachinePoolBuiltins(
  topologyName: string,
  className: string,
  mp: DesiredMachinePool,
): JsonObject {
  return {
    machinePool: computeWorkerBuiltins(
      topologyName,
      className,
      mp.object,
      mp.bootstrapObject.metadata.name,
      mp.infrastructureMachinePoolObject.metadata.name,
    ),
  };
}
