// The finalizers a ClusterResourceSet carries once the add-on pass has been over it. capi-serverless keeps its own
// finalizer and takes upstream's away (the switch-over from upstream's controller, and a guard ever after): upstream's
// ClusterResourceSet controller adds its finalizer before anything else, so while it is missing, that write is the one
// the handoff policy refuses and upstream never gets as far as applying resources into a workload cluster.
import {
  ClusterResourceSetFinalizer,
  UpstreamClusterResourceSetFinalizer,
  type ClusterResourceSet,
} from '#shared/api/addons/v1beta2/cluster-resource-set.ts';

/** The finalizers the add-on pass handles: its own and upstream's. */
export const handledFinalizers: readonly string[] = [ClusterResourceSetFinalizer, UpstreamClusterResourceSetFinalizer];

/**
 * The finalizers `crs` should carry: while it lives, capi-serverless's (appended when missing) and not upstream's;
 * once its bindings are cleaned up on deletion (`released`), neither. Other finalizers keep their place.
 *
 * @example
 * computeFinalizers({ metadata: { finalizers: ['addons.cluster.x-k8s.io'] } }, 'active');
 * // ['management.cluster.x-k8s.io/clusterresourceset']
 */
export function computeFinalizers(crs: Pick<ClusterResourceSet, 'metadata'>, phase: 'active' | 'released'): string[] {
  const others = (crs.metadata.finalizers ?? []).filter((f) => f !== UpstreamClusterResourceSetFinalizer);
  if (phase === 'released') return others.filter((f) => f !== ClusterResourceSetFinalizer);
  return others.includes(ClusterResourceSetFinalizer) ? others : [...others, ClusterResourceSetFinalizer];
}

/**
 * Whether the pass still has to clean up after `crs` on deletion: it carries either finalizer (upstream's too: a
 * ClusterResourceSet upstream reconciled before the switch-over is cleaned up by capi-serverless alone).
 *
 * @example
 * holdsFinalizer({ metadata: { finalizers: ['addons.cluster.x-k8s.io'] } }); // true
 */
export function holdsFinalizer(crs: Pick<ClusterResourceSet, 'metadata'>): boolean {
  return (crs.metadata.finalizers ?? []).some((f) => handledFinalizers.includes(f));
}
