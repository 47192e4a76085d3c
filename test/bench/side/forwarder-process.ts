// Side B's forwarder as a process of its own (as it runs in the cluster: one Deployment), so its CPU and memory are
// measured apart: the same startForwarder as functions/forwarder, its sink posting to the functions process's
// `POST /events` (what PutEvents is to EventBridge). Prints `READY` once the watches started; stops on SIGTERM.
import { request } from 'node:http';
// NOTE: the client module alone, as functions/forwarder/main.ts imports it (index.ts loads @kubernetes/client-node,
// which needs fetch, which the image's --jitless leaves without its WebAssembly HTTP parser).
import { createKubeClient } from '#shared/kube/client.ts';
import type { ObjectChange } from '#shared/runtime/events.ts';
import { defaultTargets, discoverProviderTargets } from '#functions/forwarder/default-targets.ts';
import { startForwarder } from '#functions/forwarder/start-forwarder.ts';

const kubeconfigPath = process.env['BENCH_KUBECONFIG'] ?? '';
const eventsUrl = process.env['BENCH_EVENTS_URL'] ?? '';
if (!kubeconfigPath || !eventsUrl) throw new Error('BENCH_KUBECONFIG and BENCH_EVENTS_URL must be set');

// NOTE: no top-level await: bundled as CommonJS, as the image bundles the forwarder (an ES module's import of node:http
// loads fetch's WebAssembly parser, which the image's --jitless leaves out).
void main();

async function main(): Promise<void> {
  const kube = await createKubeClient({ kubeconfigPath });
  const targets = [...defaultTargets(), ...(await discoverProviderTargets(kube))];
  const forwarder = startForwarder({
    kube,
    source: { kubeconfigPath },
    targets,
    // NOTE: the deployed default (500 ms).
    coalesceMs: 500,
    sink: (batch) => postEvents(eventsUrl, batch),
  });

  process.on('SIGTERM', () => {
    void forwarder.stop().then(() => {
      kube.close();
      process.exit(0);
    });
  });
  process.stdout.write(`READY ${JSON.stringify({ targets: targets.length })}\n`);
}

/**
 * POSTs a batch to the functions process; answers the changes it refused. NOTE: node:http, not fetch: the image's
 * node flags (--jitless, --no-expose-wasm) leave fetch's HTTP parser (WebAssembly) out, as the deployed forwarder's
 * AWS SDK client does without it.
 */
function postEvents(url: string, batch: readonly ObjectChange[]): Promise<ObjectChange[]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`events endpoint answered ${res.statusCode}`));
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ObjectChange[]);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(batch));
  });
}
