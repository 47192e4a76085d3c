// `npm start`: the local mode. Starts a real management cluster (kube-apiserver + etcd on loopback, our CRDs
// installed) and DynamoDB Local, prints how to reach them, and shuts everything down on Ctrl-C.
// NOTE: the reconcile passes join this loop as their issues land (topology, addons, providers).
import { startManagementCluster } from '#test/harness/clusters.ts';

async function main(): Promise<void> {
  const started = Date.now();
  console.log('capi-serverless local mode: starting a management cluster (kube-apiserver + etcd on loopback)…');
  const mgmt = await startManagementCluster({ name: 'mgmt' });
  const stops: (() => Promise<void>)[] = [() => mgmt.stop()];
  try {
    const { startDynamoDB } = await import('#test/harness/dynamodb.ts');
    const dynamo = await startDynamoDB();
    stops.unshift(() => dynamo.stop());
    console.log(`DynamoDB Local:      ${dynamo.endpoint}`);
  } catch (err) {
    console.log(`DynamoDB Local:      not started (${(err as Error).message})`);
  }
  console.log(`management cluster:  ${mgmt.controlPlane.server} (ready in ${Date.now() - started} ms)`);
  console.log(`kubeconfig:          ${mgmt.controlPlane.kubeconfigPath}`);
  console.log(`try:                 kubectl --kubeconfig ${mgmt.controlPlane.kubeconfigPath} get crds`);
  console.log('Ctrl-C stops everything and removes the data.');
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    for (const stop of stops) await stop();
    process.exit(0);
  };
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  if (process.env['CAPI_SERVERLESS_EXIT_AFTER_START'] === '1') await shutdown();
  await new Promise(() => undefined);
}

await main();
