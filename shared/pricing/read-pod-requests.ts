// The forwarder pod's resource requests (vCPU, MiB) as the Helm chart's values.yaml sets them: what the scheduler
// reserves on a node, which the cost model charges as the pod's share of node capacity.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { PodRequests } from '#shared/pricing/compute-marginal-cost.ts';

/** The chart's values.yaml (`forwarder.resources`), as shipped. */
export const forwarderValues = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'infra',
  'chart',
  'capi-serverless',
  'values.yaml',
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
 * The forwarder's requests and memory limit from a values file of the chart (`forwarder.resources`; one container).
 *
 * @example
 * readPodRequests(forwarderValues); // { cpu: 0.005, memoryMiB: 72, memoryLimitMiB: 128 }
 */
export function readPodRequests(file: string): PodRequests {
  const values = parse(readFileSync(file, 'utf8')) as { forwarder?: { resources?: Resources } } | null;
  const resources = values?.forwarder?.resources;
  const requests = resources?.requests;
  if (!resources || !requests?.cpu || !requests.memory)
    throw new Error(`${file}: forwarder.resources.requests needs cpu and memory`);
  const limit = resources.limits?.memory;
  return {
    cpu: parseCpuQuantity(String(requests.cpu)),
    memoryMiB: parseMemoryQuantity(String(requests.memory)),
    ...(limit === undefined ? {} : { memoryLimitMiB: parseMemoryQuantity(String(limit)) }),
  };
}
