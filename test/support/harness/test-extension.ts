// Upstream Cluster API's test Runtime Extension (built from the Go module by build-test-extension.sh) as a process
// on loopback: HTTPS with a throwaway CA, talking to a harness management cluster for its hook-response ConfigMaps.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPki, issueCertificate } from '#test/support/harness/certs.ts';
import { getFreePort } from '#test/support/harness/ports.ts';

export type TestExtension = {
  /** `https://127.0.0.1:<port>`, the ExtensionConfig's `clientConfig.url`. */
  readonly url: string;
  /** base64 of the CA that signed its serving certificate: the ExtensionConfig's `clientConfig.caBundle`. */
  readonly caBundle: string;
  /** Everything it printed, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
};

let binary: string | undefined;

/** Builds (once, cached) and returns the test extension binary; prints build progress. */
export function resolveTestExtensionBinary(): string {
  if (binary) return binary;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'build-test-extension.sh');
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  binary = out.trim().split('\n').pop() ?? '';
  return binary;
}

/**
 * Starts the test extension against the cluster whose kubeconfig is at `kubeconfigPath` and waits until it
 * accepts connections.
 *
 * @example
 * const ext = await startTestExtension(mgmt.controlPlane.kubeconfigPath);
 */
export async function startTestExtension(kubeconfigPath: string): Promise<TestExtension> {
  // NOTE: a port getFreePort found can be taken by a parallel test before the extension binds it: start again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTestExtensionOnce(kubeconfigPath);
    } catch (err) {
      if (attempt >= 3 || !String(err instanceof Error ? err.message : err).includes('address already in use'))
        throw err;
    }
  }
}

async function startTestExtensionOnce(kubeconfigPath: string): Promise<TestExtension> {
  const bin = resolveTestExtensionBinary();
  const dir = mkdtempSync(join(tmpdir(), 'capi-serverless-test-extension-'));
  const pki = createPki(dir);
  const certDir = join(dir, 'serving');
  mkdirSync(certDir);
  // NOTE: also valid for the Service name upstream's e2e ExtensionConfigs use, for upstream's managers that call it
  // by that name (in-place updates: test/upstream-e2e/run.ts maps the name to the Service's pod address).
  const { namespace, name } = { namespace: 'test-extension-system', name: 'test-extension-webhook-service' };
  const serving = issueCertificate(pki, dir, 'extension-serving', {
    serving: true,
    dnsNames: [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`],
  });
  copyFileSync(serving.cert, join(certDir, 'tls.crt'));
  copyFileSync(serving.key, join(certDir, 'tls.key'));
  const [port, health, diagnostics] = [await getFreePort(), await getFreePort(), await getFreePort()];
  let output = '';
  const proc: ChildProcess = spawn(
    bin,
    [
      `--webhook-port=${port}`,
      `--webhook-cert-dir=${certDir}`,
      `--health-addr=127.0.0.1:${health}`,
      `--diagnostics-address=127.0.0.1:${diagnostics}`,
      '--insecure-diagnostics',
      '--leader-elect=false',
    ],
    { env: { ...process.env, KUBECONFIG: kubeconfigPath }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, 30_000, () => proc.exitCode !== null);
  } catch (err) {
    await stop();
    throw new Error(`test extension did not start: ${String(err)}\n${output.slice(-4000)}`, { cause: err });
  }
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: readFileSync(pki.caCert).toString('base64'),
    logs: () => output,
    stop,
  };
}

async function waitForPort(port: number, timeoutMs: number, dead: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead()) throw new Error('the process exited');
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`port ${port} not open after ${timeoutMs} ms`);
}
