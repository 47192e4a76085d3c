// A Deployment manifest's container resource requests (vCPU, MiB): what the scheduler reserves on a node, which the
// cost model charges as the pod's share of node capacity.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { PodRequests } from '#shared/pricing/compute-marginal-cost.ts';

/** The forwarder's Deployment, as shipped. */
export const forwarderManifest = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'functions',
  'forwarder',
  'manifests',
  'deployment.yaml',
);

/** `20m` → 0.02, `1` → 1 (vCPU). */
export function parseCpuQuantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(q.trim());
  if (!m) throw new Error(`unsupported CPU quantity ${JSON.stringify(q)}`);
  return Number(m[1]) / (m[2] === 'm' ? 1000 : 1);
}

/** `64Mi` → 64, `1Gi` → 1024, `100M` → 95.37 (MiB). */
export function parseMemoryQuantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(q.trim());
  if (!m) throw new Error(`unsupported memory quantity ${JSON.stringify(q)}`);
  const factor: Record<string, number> = {
    Ki: 1 / 1024,
    Mi: 1,
    Gi: 1024,
    K: 1e3 / 2 ** 20,
    M: 1e6 / 2 ** 20,
    G: 1e9 / 2 ** 20,
    '': 1 / 2 ** 20,
  };
  return Number(m[1]) * (factor[m[2] ?? ''] ?? 1);
}

type Resources = { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };

/**
 * The summed requests of a Deployment's containers, and their summed memory limit when every container has one.
 *
 * @example
 * readPodRequests(forwarderManifest); // { cpu: 0.02, memoryMiB: 80, memoryLimitMiB: 128 }
 */
export function readPodRequests(file: string): PodRequests {
  const doc = parse(readFileSync(file, 'utf8')) as {
    spec?: {
      template?: { spec?: { containers?: { resources?: Resources }[] } };
    };
  };
  const containers = doc.spec?.template?.spec?.containers ?? [];
  if (containers.length === 0) throw new Error(`${file}: no containers`);
  const requests = containers.reduce(
    (sum, c) => {
      const r = c.resources?.requests;
      if (!r?.cpu || !r.memory) throw new Error(`${file}: every container needs cpu and memory requests`);
      return { cpu: sum.cpu + parseCpuQuantity(r.cpu), memoryMiB: sum.memoryMiB + parseMemoryQuantity(r.memory) };
    },
    { cpu: 0, memoryMiB: 0 },
  );
  const limits = containers.map((c) => c.resources?.limits?.memory);
  return limits.every((l): l is string => l !== undefined)
    ? { ...requests, memoryLimitMiB: limits.reduce((sum, l) => sum + parseMemoryQuantity(l), 0) }
    : requests;
}
