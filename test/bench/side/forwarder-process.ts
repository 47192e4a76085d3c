// Side B's forwarder as a process of its own (as it runs in the cluster: one Deployment), so its CPU and memory are
// measured apart: the same startForwarder as functions/forwarder, its sink posting to the functions process's
// `POST /events` (what PutEvents is to EventBridge). Prints `READY` once the watches started; stops on SIGTERM.
import { createKubeClient } from '#shared/kube/index.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';

const kubeconfigPath = process.env['BENCH_KUBECONFIG'];
const eventsUrl = process.env['BENCH_EVENTS_URL'];
if (!kubeconfigPath || !eventsUrl) throw new Error('BENCH_KUBECONFIG and BENCH_EVENTS_URL must be set');

const kube = await createKubeClient({ kubeconfigPath });
const targets = [...defaultTargets(), ...(await discoverProviderTargets(kube))];
const forwarder = startForwarder({
  kube,
  source: { kubeconfigPath },
  targets,
  // NOTE: the deployed default (500 ms).
  coalesceMs: 500,
  sink: async (batch) => {
    const res = await fetch(eventsUrl, { method: 'POST', body: JSON.stringify(batch) });
    if (!res.ok) throw new Error(`events endpoint answered ${res.status}`);
    return (await res.json()) as ObjectChange[];
  },
});

process.on('SIGTERM', () => {
  void forwarder.stop().then(() => {
    kube.close();
    process.exit(0);
  });
});
process.stdout.write(`READY ${JSON.stringify({ targets: targets.length })}\n`);
