// `npm start`: the whole product on one machine (see start-local-mode.ts). Prints progress as passes run, the
// kubeconfig to use with kubectl, and stops everything on Ctrl-C / SIGTERM. Environment: see local-config.ts.
import { errorMessage } from '#shared/errors/index.ts';
import { computeLocalConfig } from '#shared/local/local-config.ts';
import { startLocalMode, type LocalMode } from '#shared/local/start-local-mode.ts';

const print = (line: string) => console.log(line);

async function main(): Promise<void> {
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
