// Pausing a provider (the proposal): its Deployments scale to 0 and remember their replicas in an annotation;
// unpausing restores them.
import { describeObject } from '#shared/errors/index.ts';
import { patchObject, refOf } from '#shared/kube/index.ts';
import type { KubeClient, KubeObject } from '#shared/kube/index.ts';

/** The proposal's record of a paused provider Deployment's replicas. */
export const originalReplicasAnnotation = 'management.cluster.x-k8s.io/original-controller-replicas';

function replicasOf(d: KubeObject): number {
  const r = (d['spec'] as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : 1;
}

/** Whether a Deployment is held at 0 by a pause. */
export function isPausedDeployment(d: KubeObject): boolean {
  return d.metadata.annotations?.[originalReplicasAnnotation] !== undefined;
}

/** Scales running Deployments to 0, recording their replicas; returns what changed. */
export async function pauseDeployments(
  kube: KubeClient,
  deployments: readonly KubeObject[],
  fieldManager: string,
): Promise<string[]> {
  const changed: string[] = [];
  for (const d of deployments) {
    const recorded = d.metadata.annotations?.[originalReplicasAnnotation];
    if (recorded !== undefined && replicasOf(d) === 0) continue;
    const patch = {
      metadata: {
        resourceVersion: d.metadata.resourceVersion,
        annotations: { [originalReplicasAnnotation]: recorded ?? String(replicasOf(d)) },
      },
      spec: { replicas: 0 },
    };
    await patchObject(kube, refOf(d), patch, { fieldManager });
    changed.push(`paused ${describeObject(d.kind, d.metadata.namespace, d.metadata.name)}`);
  }
  return changed;
}

/** Restores the recorded replicas of paused Deployments and drops the annotation; returns what changed. */
export async function unpauseDeployments(
  kube: KubeClient,
  deployments: readonly KubeObject[],
  fieldManager: string,
): Promise<string[]> {
  const changed: string[] = [];
  for (const d of deployments) {
    const recorded = d.metadata.annotations?.[originalReplicasAnnotation];
    if (recorded === undefined) continue;
    const replicas = Number.parseInt(recorded, 10);
    const patch = {
      metadata: { resourceVersion: d.metadata.resourceVersion, annotations: { [originalReplicasAnnotation]: null } },
      spec: { replicas: Number.isFinite(replicas) && replicas >= 0 ? replicas : 1 },
    };
    await patchObject(kube, refOf(d), patch, { fieldManager });
    changed.push(`unpaused ${describeObject(d.kind, d.metadata.namespace, d.metadata.name)}`);
  }
  return changed;
}
