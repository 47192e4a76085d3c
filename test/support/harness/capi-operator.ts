// The Cluster API Operator itself (sigs.k8s.io/cluster-api-operator, built from its Go module by
// build-capi-operator.sh) as a process against a harness management cluster: the oracle for the providers pass's
// adoption and differential tests. Its admission webhooks are served but not registered (tests apply provider objects
// with every defaulted field set), and no kubelet runs, so tests mark Deployments available themselves.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueCertificate, renderKubeconfig } from '#test/support/harness/certs.ts';
import type { TestCluster } from '#test/support/harness/clusters.ts';
import { getFreePort } from '#test/support/harness/ports.ts';
import {
  probeHttp,
  startHarnessProcess,
  waitForProcesses,
  type HarnessProcess,
} from '#test/support/harness/processes.ts';

/** The user the operator's requests run as (audit logs, managedFields show its field manager, `capi-operator`). */
export const capiOperatorUser = 'capi-operator';

let cachedBinary: string | undefined;

/** Builds (first run: several CPU-minutes, progress on stderr) or finds the operator's binary; returns its path. */
export function resolveCapiOperatorBinary(): string {
  if (cachedBinary) return cachedBinary;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'build-capi-operator.sh');
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  cachedBinary = join(out.trim().split('\n').pop() ?? '', 'capi-operator');
  return cachedBinary;
}

export type CapiOperator = {
  readonly process: HarnessProcess;
  stop(): Promise<void>;
};

/**
 * Runs the Cluster API Operator against `mgmt` (which needs the operator's CRDs, e.g. the harness default) and waits
 * until its health endpoint answers. `extraArgs` are appended (e.g. `--watch-configmap`).
 *
 * @example
 * const operator = await startCapiOperator(mgmt);
 * try { ... } finally { await operator.stop(); }
 */
export async function startCapiOperator(
  mgmt: TestCluster,
  opts: { extraArgs?: readonly string[]; verbose?: boolean } = {},
): Promise<CapiOperator> {
  const binary = resolveCapiOperatorBinary();
  const dir = mkdtempSync(join(tmpdir(), `capi-serverless-operator-${mgmt.controlPlane.name}-`));
  const { pki, server } = mgmt.controlPlane;
  const certDir = join(dir, 'webhook-certs');
  mkdirSync(certDir, { recursive: true });
  const serving = issueCertificate(pki, dir, 'serving', { serving: true });
  writeFileSync(join(certDir, 'tls.crt'), readFileSync(serving.cert));
  writeFileSync(join(certDir, 'tls.key'), readFileSync(serving.key));
  const client = issueCertificate(pki, dir, 'client', { user: capiOperatorUser, groups: ['system:masters'] });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    renderKubeconfig(mgmt.controlPlane.name, server, {
      caCert: pki.caCert,
      adminCert: client.cert,
      adminKey: client.key,
    }),
  );
  const [webhookPort, healthPort, diagnosticsPort] = [await getFreePort(), await getFreePort(), await getFreePort()];
  const args = [
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    `--webhook-port=${webhookPort}`,
    `--webhook-cert-dir=${certDir}`,
    `--health-addr=127.0.0.1:${healthPort}`,
    `--diagnostics-address=127.0.0.1:${diagnosticsPort}`,
    '--insecure-diagnostics=true',
    '--profiler-address=',
    ...(opts.extraArgs ?? []),
  ];
  const proc = startHarnessProcess('capi-operator', binary, args, {
    ...(opts.verbose === undefined ? {} : { verbose: opts.verbose }),
  });
  const stop = async () => {
    await proc.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForProcesses(
      'capi-operator',
      async () => (await probeHttp(`http://127.0.0.1:${healthPort}/readyz`)) === 200,
      [proc],
      60_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { process: proc, stop };
}
