// Upstream Cluster API's own provider components for one release, built by build-provider-components.sh from the
// published Go modules with kustomize (as upstream's `make release-manifests` does) and cached: what a platform team
// mirrors into ConfigMaps for the Cluster API Operator's air-gapped path.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genericCrd } from '#test/support/harness/clusters.ts';
import type { KubeObject } from '#shared/kube/index.ts';

export type UpstreamProvider = 'core' | 'bootstrap-kubeadm' | 'control-plane-kubeadm' | 'infrastructure-docker';

export type UpstreamRelease = {
  readonly version: string;
  /** The provider's components YAML, with clusterctl's `${VAR:=default}` variables unprocessed. */
  components(provider: UpstreamProvider): string;
  /** The release's metadata.yaml (release series and contracts). */
  readonly metadata: string;
};

const built = new Map<string, string>();

/**
 * Builds (first run: kustomize from its Go module, then the modules' config/; progress on stderr) or finds the release
 * `version` of upstream's core, kubeadm bootstrap, kubeadm control-plane and Docker providers.
 *
 * @example
 * const release = resolveUpstreamRelease('v1.14.2');
 * release.components('core'); // '---\napiVersion: v1\nkind: Namespace\n...'
 */
export function resolveUpstreamRelease(version: string): UpstreamRelease {
  let dir = built.get(version);
  if (dir === undefined) {
    const script = join(dirname(fileURLToPath(import.meta.url)), 'build-provider-components.sh');
    const out = execFileSync('bash', [script, version], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    dir = out.trim().split('\n').pop() ?? '';
    built.set(version, dir);
  }
  const root = dir;
  return {
    version,
    components: (provider) => readFileSync(join(root, provider, 'components.yaml'), 'utf8'),
    metadata: readFileSync(join(root, 'metadata.yaml'), 'utf8'),
  };
}

/**
 * CRDs for the cert-manager kinds upstream's components contain (Certificate, Issuer). NOTE: look-alikes that keep
 * every field: no cert-manager runs in the harness (nothing issues certificates; no kubelet runs the managers either),
 * so the API server only needs to store what the operator and the providers pass write.
 */
export function certManagerCrds(): KubeObject[] {
  return [
    genericCrd('cert-manager.io', 'v1', 'Certificate', { contract: 'none' }),
    genericCrd('cert-manager.io', 'v1', 'Issuer', { contract: 'none' }),
  ];
}
