// Installs CustomResourceDefinitions and waits until the API server serves them.
import type { KubeClient } from '#shared/kube/client.ts';
import { applyObject, getObject, type KubeObject } from '#shared/kube/objects.ts';

/** Applies the CRDs and waits until each reports `Established=True`. */
export async function installCrds(
  kube: KubeClient,
  crds: readonly KubeObject[],
  opts: { fieldManager: string; timeoutMs?: number },
): Promise<void> {
  for (const crd of crds) await applyObject(kube, crd, { fieldManager: opts.fieldManager, force: true });
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (const crd of crds) {
    for (;;) {
      const current = await getObject(kube, {
        apiVersion: crd.apiVersion,
        kind: crd.kind,
        name: crd.metadata.name ?? '',
      });
      const conditions =
        (current['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} not established in time`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // NOTE: discovery results cached before the CRDs existed would hide the new kinds.
  kube.discovery.clear();
  // NOTE: "Established" can come before the storage serves requests ("storage is (re)initializing"): wait until a
  // list of each new resource answers, so the first write after this returns never races the API server.
  for (const crd of crds) {
    const spec = crd['spec'] as {
      group: string;
      names: { plural: string };
      versions: { name: string; storage?: boolean }[];
    };
    const version = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name ?? 'v1';
    for (;;) {
      try {
        await kube.request({
          method: 'GET',
          path: `/apis/${spec.group}/${version}/${spec.names.plural}`,
          query: { limit: '1' },
          target: { verb: 'list', kind: spec.names.plural },
        });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
