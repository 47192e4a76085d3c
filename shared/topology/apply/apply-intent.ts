// What a topology write sends: the desired object cut down to the fields the topology controller owns (upstream
// structuredmerge allowed paths), so other controllers and users keep theirs under server-side apply.
import {
  ClusterNameLabel,
  ClusterTopologyOwnedLabel,
  ClusterTopologyUpgradeStepAnnotation,
} from '#shared/topology/labels.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export type FieldPath = readonly string[];

/** The paths the topology owns on every object but the Cluster. */
export const defaultAllowedPaths: readonly FieldPath[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'labels'],
  ['metadata', 'annotations'],
  ['metadata', 'ownerReferences'],
  ['spec'],
];

/** The Cluster is created by the user: the topology owns two labels, the upgrade step and the two references only. */
export const clusterAllowedPaths: readonly FieldPath[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'labels', ClusterNameLabel],
  ['metadata', 'labels', ClusterTopologyOwnedLabel],
  ['metadata', 'annotations', ClusterTopologyUpgradeStepAnnotation],
  ['spec', 'infrastructureRef'],
  ['spec', 'controlPlaneRef'],
];

/** Annotation telling provider webhooks a request is the topology's dry run (upstream TopologyDryRunAnnotation). */
export const TopologyDryRunAnnotation = 'topology.cluster.x-k8s.io/dry-run';

export type IntentOptions = {
  readonly allowedPaths: readonly FieldPath[];
  /** Paths inside the allowed ones that are dropped (e.g. an empty InfrastructureCluster controlPlaneEndpoint). */
  readonly ignorePaths?: readonly FieldPath[];
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isEmptyObject = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

// NOTE: a map that filtering left empty is dropped, not kept as `{}` (upstream FilterIntent: "we are not leaving
// empty maps around"). Kept, the Cluster's intent carried `annotations: {}` whenever the Cluster had some annotation
// (a pending hook, say) and nothing otherwise, so its no-change proof flipped as other managers' annotations came
// and went, and every such Cluster was dry-run twice in the bench's fleet-wide ClusterClass change.
function pick(value: unknown, paths: readonly FieldPath[]): unknown {
  if (paths.some((p) => p.length === 0)) return structuredClone(value);
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  const heads = [...new Set(paths.map((p) => p[0] as string))];
  for (const head of heads) {
    if (!(head in value)) continue;
    const picked = pick(
      value[head],
      paths.filter((p) => p[0] === head).map((p) => p.slice(1)),
    );
    const emptiedByFilter = isEmptyObject(picked) && !isEmptyObject(value[head]);
    if (picked !== undefined && !emptiedByFilter) out[head] = picked;
  }
  return out;
}

function drop(value: Record<string, unknown>, path: FieldPath): void {
  const [head, ...rest] = path;
  if (head === undefined || !(head in value)) return;
  if (rest.length === 0) {
    delete value[head];
    return;
  }
  const child = value[head];
  if (!isObject(child)) return;
  drop(child, rest);
  if (Object.keys(child).length === 0) delete value[head];
}

/**
 * `obj` reduced to `allowedPaths` minus `ignorePaths` (a new object; `obj` is untouched).
 *
 * @example
 * computeFilteredObject(cluster, { allowedPaths: clusterAllowedPaths }); // { apiVersion, kind, metadata: {...}, spec: { infrastructureRef, controlPlaneRef } }
 */
export function computeFilteredObject(obj: object, opts: IntentOptions): Record<string, unknown> {
  const out = (pick(obj, opts.allowedPaths) ?? {}) as Record<string, unknown>;
  for (const path of opts.ignorePaths ?? []) drop(out, path);
  return out;
}

/**
 * The server-side apply body for `desired`: the owned fields only, with the uid of the current object so an update
 * never re-creates an object deleted meanwhile (no uid: create or update).
 */
export function computeApplyIntent(desired: Unstructured, opts: IntentOptions, uid: string | undefined): Unstructured {
  const intent = computeFilteredObject(desired, opts) as Unstructured;
  const metadata = { ...(intent.metadata ?? {}) };
  delete metadata.uid;
  // NOTE: upstream's objects omit empty label and annotation maps (ObjectMeta's omitempty); so does the intent.
  if (isEmptyObject(metadata.labels)) delete metadata.labels;
  if (isEmptyObject(metadata.annotations)) delete metadata.annotations;
  if (uid) metadata.uid = uid;
  return { ...intent, apiVersion: desired.apiVersion, kind: desired.kind, metadata };
}

/**
 * Paths of an InfrastructureCluster's controlPlaneEndpoint left at zero values: never applied, so the
 * infrastructure provider keeps the endpoint it sets (upstream InfrastructureClusterContract.IgnorePaths).
 */
export function computeInfrastructureClusterIgnorePaths(infrastructureCluster: Unstructured): FieldPath[] {
  const endpoint = (infrastructureCluster['spec'] as { controlPlaneEndpoint?: { host?: unknown; port?: unknown } })
    ?.controlPlaneEndpoint;
  const paths: FieldPath[] = [];
  if (endpoint && endpoint.host === '') paths.push(['spec', 'controlPlaneEndpoint', 'host']);
  if (endpoint && endpoint.port === 0) paths.push(['spec', 'controlPlaneEndpoint', 'port']);
  return paths;
}
