// Turning ClusterClass templates into objects (`templateToObject`) and into per-Cluster template clones
// (`templateToTemplate`), exactly as upstream: labels, cloned-from annotations, owner reference, names.
import type { OwnerReference } from '#shared/api/object-meta.ts';
import type { Unstructured } from '#shared/topology/types.ts';
import {
  ClusterNameLabel,
  ClusterTopologyOwnedLabel,
  LastAppliedConfigAnnotation,
  TemplateClonedFromGroupKindAnnotation,
  TemplateClonedFromNameAnnotation,
} from '#shared/topology/labels.ts';
import { CapiError } from '#shared/errors/index.ts';

export class TemplateError extends CapiError {}

export type TemplateToInput = {
  readonly template: Unstructured;
  readonly clusterName: string;
  readonly namespace: string;
  /** Name used when there is no current object. */
  readonly generatedName: string;
  /** The name of the object that exists today; kept so a pass never renames. */
  readonly currentName?: string | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  readonly ownerRef?: OwnerReference | undefined;
  /** Owner references instead of `ownerRef` (the InfrastructureCluster and ControlPlane: those carried over). */
  readonly ownerReferences?: readonly OwnerReference[] | undefined;
};

/** `group` of an apiVersion (`''` for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** `Kind.group`, as upstream writes GroupKind strings. */
export function groupKindOf(apiVersion: string, kind: string): string {
  const group = groupOf(apiVersion);
  return group ? `${kind}.${group}` : kind;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * An object from a template's `spec.template` (e.g. DockerClusterTemplate → DockerCluster), or from nothing when the
 * template has none: metadata from the
 * template's `spec.template.metadata`, the given labels and annotations on top, the cluster-name and topology-owned
 * labels, cloned-from annotations, kind without the `Template` suffix.
 */
export function computeObjectFromTemplate(input: TemplateToInput): Unstructured {
  const { template } = input;
  const spec = template['spec'] as { template?: unknown } | undefined;
  // NOTE: as upstream's GenerateTemplate, a template without spec.template (upstream v1.14's own
  // KubeadmControlPlaneTemplate may have none) yields an object with metadata only.
  if (spec?.template !== undefined && (typeof spec.template !== 'object' || spec.template === null)) {
    throw new TemplateError(
      `${template.kind} ${input.namespace}/${template.metadata.name ?? ''} has a spec.template that is not an object`,
      {
        kind: template.kind,
        namespace: template.metadata.namespace ?? input.namespace,
        name: template.metadata.name ?? '',
        fieldPath: 'spec.template',
        reason: 'InvalidTemplate',
      },
    );
  }
  const source = clone(spec?.template ?? {}) as {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    [k: string]: unknown;
  };
  const { metadata: templateMeta, ...rest } = source;
  const annotations: Record<string, string> = { ...(templateMeta?.annotations ?? {}), ...(input.annotations ?? {}) };
  annotations[TemplateClonedFromNameAnnotation] = template.metadata.name ?? '';
  annotations[TemplateClonedFromGroupKindAnnotation] = groupKindOf(template.apiVersion, template.kind);
  const labels: Record<string, string> = { ...(templateMeta?.labels ?? {}), ...(input.labels ?? {}) };
  labels[ClusterNameLabel] = input.clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  const object: Unstructured = {
    ...rest,
    apiVersion: typeof rest['apiVersion'] === 'string' ? (rest['apiVersion'] as string) : template.apiVersion,
    kind: typeof rest['kind'] === 'string' ? (rest['kind'] as string) : template.kind.replace(/Template$/, ''),
    metadata: {
      name: input.currentName || input.generatedName,
      namespace: input.namespace,
      labels,
      annotations,
      ...(input.ownerRef ? { ownerReferences: [{ ...input.ownerRef }] } : {}),
      ...(input.ownerReferences ? { ownerReferences: input.ownerReferences.map((r) => ({ ...r })) } : {}),
    },
  };
  return object;
}

/**
 * A per-Cluster clone of a template (e.g. the DockerMachineTemplate of one MachineDeployment): the template as is,
 * server-set metadata dropped, labels/annotations added, cloned-from annotations, the Cluster as owner.
 */
export function computeTemplateFromTemplate(input: TemplateToInput): Unstructured {
  const source = clone(input.template);
  const labels: Record<string, string> = { ...(source.metadata.labels ?? {}), ...(input.labels ?? {}) };
  labels[ClusterNameLabel] = input.clusterName;
  labels[ClusterTopologyOwnedLabel] = '';
  const annotations: Record<string, string> = { ...(source.metadata.annotations ?? {}), ...(input.annotations ?? {}) };
  annotations[TemplateClonedFromNameAnnotation] = input.template.metadata.name ?? '';
  annotations[TemplateClonedFromGroupKindAnnotation] = groupKindOf(input.template.apiVersion, input.template.kind);
  delete annotations[LastAppliedConfigAnnotation];
  const { status: _status, ...rest } = source;
  return {
    ...rest,
    metadata: {
      name: input.currentName || input.generatedName,
      namespace: input.namespace,
      labels,
      annotations,
      ...(input.ownerRef ? { ownerReferences: [{ ...input.ownerRef }] } : {}),
    },
  };
}

/**
 * An owner reference to the Cluster, as upstream's ownerrefs.OwnerReferenceTo (no controller flag). A Cluster not
 * yet created (no uid: only in `plan`, a pass reads its Cluster from the server) gets `uid: ''` as upstream's does.
 */
export function computeClusterOwnerRef(cluster: {
  metadata: { name?: string | undefined; uid?: string | undefined };
}): OwnerReference {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    name: cluster.metadata.name ?? '',
    uid: cluster.metadata.uid ?? '',
  };
}
