// `npm start`: the whole product on one machine (see start-local-mode.ts). Prints progress as passes run, the
// kubeconfig to use with kubectl, and stops everything on Ctrl-C / SIGTERM. Environment: see local-config.ts.
import { errorMessage } from '#shared/errors/index.ts';
import { computeLocalConfig } from '#shared/local/local-config.ts';
import { startLocalMode, type LocalMode } from '#shared/local/start-local-mode.ts';

const print = (line: string) => console.log(line);

const usage = `usage: npm start [-- --help]

Runs capi-serverless on this machine: a management cluster (kube-apiserver + etcd on loopback, or KUBECONFIG),
DynamoDB Local, the forwarder, the same controller handlers and admission webhooks as Lambda, ticks on a timer, and
the bundled examples. Ctrl-C stops everything and removes its data.

environment:
  KUBECONFIG                          an existing management cluster to use instead of starting one
  CAPI_SERVERLESS_EXAMPLES=0|1        apply the bundled examples (default 1)
  CAPI_SERVERLESS_TICK_MS=<ms>        how often each controller gets a tick (default 15000)
  CAPI_SERVERLESS_EXIT_WHEN_READY=0|1 exit 0 once the examples are reconciled (default 0)
  CAPI_SERVERLESS_READY_TIMEOUT_MS=<ms>  with EXIT_WHEN_READY: exit 1 after this long (default 300000)
  POWERTOOLS_LOG_LEVEL=<level>        the functions' own JSON logs: SILENT (default), ERROR, WARN, INFO, DEBUG
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(usage);
    return;
  }
  const config = computeLocalConfig(process.env);
  const local: LocalMode = await startLocalMode(config, print);
  let stopping: Promise<void> | undefined;
  let stoppingSince = 0;
  const shutdown = (code: number) => {
    if (stopping) {
      // NOTE: a terminal's Ctrl-C reaches us twice (directly and relayed by npm/tsx): only a later one forces the
      // exit, where the harness's exit hooks kill the servers.
      if (Date.now() - stoppingSince > 2_000) process.exit(130);
      return;
    }
    stoppingSince = Date.now();
    print('stopping…');
    stopping = local.stop().then(
      () => {
        print('stopped; all servers and their data are gone');
        process.exit(code);
      },
      (err: unknown) => {
        print(`failed to stop cleanly: ${errorMessage(err)}`);
        process.exit(1);
      },
    );
  };
  // NOTE: the harness installs signal hooks that kill its servers abruptly; from here on we stop them in order.
  // Only the visible listeners go: tsx keeps a hidden one that tells its parent process we handle the signal
  // (without it, tsx would SIGKILL us mid-shutdown).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => shutdown(0));
  }
  print(`kubeconfig:          ${local.kubeconfigPath}`);
  print(`try:                 kubectl --kubeconfig ${local.kubeconfigPath} get clusters,machinedeployments -A`);
  print('Ctrl-C stops everything and removes the data.');
  const timeout = config.exitWhenReady
    ? setTimeout(() => {
        print(`not reconciled within ${config.readyTimeoutMs / 1000} s`);
        shutdown(1);
      }, config.readyTimeoutMs)
    : undefined;
  void local.ready.then(
    (what) => {
      print(`reconciled: ${what}`);
      if (config.exitWhenReady) {
        clearTimeout(timeout);
        shutdown(0);
      }
    },
    () => undefined,
  );
}

main().catch((err: unknown) => {
  console.error(`capi-serverless local mode failed: ${errorMessage(err)}`);
  process.exit(1);
});
