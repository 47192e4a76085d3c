// Finds kube-apiserver and etcd: KUBEBUILDER_ASSETS (the envtest convention) or a one-time build from the
// Kubernetes Go modules, cached in the user cache directory (test/support/harness/build-control-plane.sh).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ControlPlaneAssets = {
  readonly kubeApiServer: string;
  readonly etcd: string;
  /** Absent from asset directories built before it was added (or from envtest's, which ship none). */
  readonly kubeControllerManager: string | undefined;
};

let cached: ControlPlaneAssets | undefined;

/** Resolves the binaries once per process; builds them (printing progress) when nothing is cached yet. */
export function resolveControlPlaneAssets(env: NodeJS.ProcessEnv = process.env): ControlPlaneAssets {
  if (cached) return cached;
  let dir = env['KUBEBUILDER_ASSETS'];
  if (!dir) {
    const script = join(dirname(fileURLToPath(import.meta.url)), 'build-control-plane.sh');
    const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    dir = out.trim().split('\n').pop() ?? '';
  }
  const assets = { kubeApiServer: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') };
  for (const [name, path] of Object.entries(assets)) {
    if (!existsSync(path))
      throw new Error(`control plane asset ${name} not found at ${path} (KUBEBUILDER_ASSETS=${dir})`);
  }
  const kcm = join(dir, 'kube-controller-manager');
  cached = { ...assets, kubeControllerManager: existsSync(kcm) ? kcm : undefined };
  return cached;
}
