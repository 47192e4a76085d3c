// What the forwarder watches: the controllers' kinds, their ConfigMaps/Secrets, the provider objects, and every
// provider template kind the cluster serves.
import { listObjects, type KubeClient } from '#shared/kube/index.ts';
import { providerKinds } from '#shared/runtime/routes.ts';
import type { WatchTarget } from '#functions/forwarder/watch-kind.ts';

/** The kinds every deployment watches (kinds the cluster does not serve are logged and skipped). */
export function defaultTargets(secretLabelSelector?: string): WatchTarget[] {
  return [
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster' },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'ClusterClass' },
    { apiVersion: 'addons.cluster.x-k8s.io/v1beta1', kind: 'ClusterResourceSet' },
    { apiVersion: 'addons.cluster.x-k8s.io/v1beta1', kind: 'ClusterResourceSetBinding' },
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { apiVersion: 'v1', kind: 'Secret', ...(secretLabelSelector ? { labelSelector: secretLabelSelector } : {}) },
    ...providerKinds.map((kind) => ({ apiVersion: 'operator.cluster.x-k8s.io/v1alpha2', kind })),
  ];
}

/** Every served `*Template` kind of a `*.cluster.x-k8s.io` group (the templates ClusterClasses reference). */
export async function discoverTemplateTargets(kube: KubeClient): Promise<WatchTarget[]> {
  const crds = await listObjects(kube, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
  const targets: WatchTarget[] = [];
  for (const crd of crds.items) {
    const spec = crd['spec'] as
      { group?: string; names?: { kind?: string }; versions?: { name: string; storage?: boolean }[] } | undefined;
    const kind = spec?.names?.kind ?? '';
    const version = spec?.versions?.find((v) => v.storage)?.name;
    if (!spec?.group?.endsWith('cluster.x-k8s.io') || !kind.endsWith('Template') || !version) continue;
    targets.push({ apiVersion: `${spec.group}/${version}`, kind });
  }
  return targets;
}
