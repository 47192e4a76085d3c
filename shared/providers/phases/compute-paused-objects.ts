// The Deployments to apply while a provider is paused (replicas 0, the original count recorded) or being unpaused
// (the recorded count restored), so that installing or upgrading never undoes a pause. Pure.
import type { KubeObject } from '#shared/kube/index.ts';
import type { ComponentObject } from '#shared/providers/desired/parse-components-yaml.ts';
import { originalReplicasAnnotation } from '#shared/providers/apply/scale-deployments.ts';

function replicasOf(o: { [k: string]: unknown }): number | undefined {
  const r = (o['spec'] as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : undefined;
}

/**
 * Returns `objects` with each Deployment adjusted for the pause state, given the live Deployments.
 *
 * @example
 * computePausedObjects(objects, live, true); // Deployments at replicas 0 with the original count annotated
 */
export function computePausedObjects(
  objects: readonly ComponentObject[],
  live: readonly KubeObject[],
  paused: boolean,
): ComponentObject[] {
  return objects.map((o) => {
    if (o.kind !== 'Deployment') return o;
    const current = live.find((d) => d.metadata.name === o.metadata.name);
    const recorded = current?.metadata.annotations?.[originalReplicasAnnotation];
    if (paused) {
      const original = recorded ?? String((current ? replicasOf(current) : undefined) ?? replicasOf(o) ?? 1);
      return {
        ...o,
        metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, [originalReplicasAnnotation]: original } },
        spec: { ...(o['spec'] as object), replicas: 0 },
      };
    }
    if (recorded === undefined) return o;
    const replicas = Number.parseInt(recorded, 10);
    return { ...o, spec: { ...(o['spec'] as object), replicas: Number.isFinite(replicas) ? replicas : 1 } };
  });
}
