// kube-controller-manager against a harness control plane, built from the same Kubernetes modules as kube-apiserver
// (test/support/harness/build-control-plane.sh), so owner references and namespace deletion act as in a real cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveControlPlaneAssets } from '#test/support/harness/assets.ts';
import type { ControlPlane } from '#test/support/harness/control-plane.ts';
import { getFreePort } from '#test/support/harness/ports.ts';
import {
  probeLoopback,
  startHarnessProcess,
  waitForProcesses,
  type HarnessProcess,
} from '#test/support/harness/processes.ts';

/**
 * The controllers the harness runs by default: the garbage collector (owner references, foreground/background/orphan
 * deletion) and the namespace controller (a deleted namespace is emptied and its `kubernetes` finalizer removed).
 * Neither needs service-account tokens: kube-controller-manager uses its own (admin) kubeconfig for both unless
 * `--use-service-account-credentials` is set.
 */
export const defaultControllers = ['garbagecollector', 'namespace'] as const;

export type ControllerManager = {
  readonly process: HarnessProcess;
  /** `https://127.0.0.1:<port>` (self-signed; `/healthz` needs no credentials). */
  readonly url: string;
  stop(): Promise<void>;
};

export type StartControllerManagerOptions = {
  /** `--controllers` (default `defaultControllers`). */
  readonly controllers?: readonly string[];
  readonly extraArgs?: readonly string[];
  readonly verbose?: boolean;
  readonly startTimeoutMs?: number;
};

/**
 * Starts kube-controller-manager for `controlPlane` on loopback (`--leader-elect=false`) and waits until it is healthy.
 * The garbage collector re-reads discovery every 30 s: dependents whose kinds appear after the start (CRDs installed
 * later) are tracked only from the next resync.
 */
export async function startControllerManager(
  controlPlane: ControlPlane,
  opts: StartControllerManagerOptions = {},
): Promise<ControllerManager> {
  const bin = resolveControlPlaneAssets().kubeControllerManager;
  if (!bin) {
    throw new Error(
      'kube-controller-manager not found next to kube-apiserver: rebuild the control plane assets with ' +
        'test/support/harness/build-control-plane.sh (or unset a KUBEBUILDER_ASSETS that lacks it)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), `capi-serverless-kcm-${controlPlane.name}-`));
  const port = await getFreePort();
  const proc = startHarnessProcess(
    `kube-controller-manager ${controlPlane.name}`,
    bin,
    [
      `--kubeconfig=${controlPlane.kubeconfigPath}`,
      `--controllers=${(opts.controllers ?? defaultControllers).join(',')}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${dir}`,
      '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
      '--concurrent-gc-syncs=5',
      '--v=1',
      ...(opts.extraArgs ?? []),
    ],
    opts.verbose === undefined ? {} : { verbose: opts.verbose },
  );
  const url = `https://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForProcesses(
      `kube-controller-manager ${controlPlane.name}`,
      async () => (await probeLoopback(`${url}/healthz`)) === 200,
      [proc],
      opts.startTimeoutMs ?? 60_000,
    );
    return { process: proc, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
