// Upstream Cluster API's own CRDs and admission webhook configurations, read at run time from the published Go
// modules (test/support/harness/fetch-upstream.sh caches them; nothing upstream is committed here), with what upstream's
// kustomize adds: the labels of each component's `config/crd` and `config/default` kustomizations (the contract
// labels `cluster.x-k8s.io/v1beta1`/`v1beta2` on provider CRDs, `cluster.x-k8s.io/provider`), and, when the serving
// manager runs, the conversion webhook stanza and the webhook configurations pointing at its loopback address.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { installCrds, type KubeClient, type KubeObject } from '#shared/kube/index.ts';

/** The upstream components whose manifests the harness uses (folder names in the cache). */
export const upstreamComponents = [
  'core',
  'bootstrap-kubeadm',
  'control-plane-kubeadm',
  'infrastructure-docker',
  'operator',
] as const;
export type UpstreamComponent = (typeof upstreamComponents)[number];

export type UpstreamManifests = {
  /** Cache directory written by fetch-upstream.sh. */
  readonly dir: string;
  readonly capiVersion: string;
  readonly operatorVersion: string;
  /** Module source directories in the Go module cache (read-only). */
  readonly moduleDirs: {
    readonly capi: string;
    readonly capiApi: string;
    readonly capiTest: string;
    readonly operator: string;
  };
  /** Upstream's e2e data for the in-memory backend (test/e2e/data/infrastructure-docker/main of the test module). */
  readonly e2e: {
    readonly dataDir: string;
    readonly clusterClassInMemory: string;
    readonly clusterTemplateInMemoryTopology: string;
    readonly clusterTemplateInMemoryScale: string;
  };
};

let cachedManifests: UpstreamManifests | undefined;

/** Runs fetch-upstream.sh once per process (a no-op when cached) and returns where everything is. */
export function resolveUpstreamManifests(): UpstreamManifests {
  if (cachedManifests) return cachedManifests;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'fetch-upstream.sh');
  const out = execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const dir = out.trim().split('\n').pop() ?? '';
  const env = Object.fromEntries(
    readFileSync(join(dir, 'versions.env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );
  const need = (key: string): string => {
    const value = env[key];
    if (!value) throw new Error(`${join(dir, 'versions.env')}: ${key} missing`);
    return value;
  };
  const dataDir = join(dir, 'e2e', 'infrastructure-docker', 'main');
  cachedManifests = {
    dir,
    capiVersion: need('CAPI_VERSION'),
    operatorVersion: need('CAPI_OPERATOR_VERSION'),
    moduleDirs: {
      capi: need('CAPI_MODULE_DIR'),
      capiApi: need('CAPI_API_MODULE_DIR'),
      capiTest: need('CAPI_TEST_MODULE_DIR'),
      operator: need('CAPI_OPERATOR_MODULE_DIR'),
    },
    e2e: {
      dataDir,
      clusterClassInMemory: join(dataDir, 'clusterclass-in-memory.yaml'),
      clusterTemplateInMemoryTopology: join(dataDir, 'cluster-template-in-memory-topology.yaml'),
      clusterTemplateInMemoryScale: join(dataDir, 'cluster-template-in-memory-scale.yaml'),
    },
  };
  return cachedManifests;
}

/** Where a manager serves its webhooks on loopback: base URL (`https://127.0.0.1:<port>`) and the CA (PEM). */
export type WebhookEndpoint = { readonly url: string; readonly caBundle: string };

type Kustomization = {
  resources?: string[];
  patches?: { path?: string }[];
  labels?: { pairs?: Record<string, string> }[];
  commonLabels?: Record<string, string>;
  namePrefix?: string;
};

function readKustomization(path: string): Kustomization {
  return (parseYaml(readFileSync(path, 'utf8')) ?? {}) as Kustomization;
}

function labelsOf(k: Kustomization): Record<string, string> {
  return Object.assign({}, k.commonLabels, ...(k.labels ?? []).map((l) => l.pairs ?? {})) as Record<string, string>;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The CRDs of the given components as upstream's `config/default` kustomization renders them (resources listed in
 * `config/crd/kustomization.yaml`, labels of both kustomizations). For each component in `conversion`, the CRDs that
 * upstream patches for conversion get `spec.conversion` with a URL client config at that endpoint; the others keep
 * the base's strategy (None).
 */
export function computeUpstreamCrds(
  opts: {
    components?: readonly UpstreamComponent[];
    conversion?: Partial<Record<UpstreamComponent, WebhookEndpoint>>;
  } = {},
): KubeObject[] {
  const { dir } = resolveUpstreamManifests();
  const out: KubeObject[] = [];
  for (const component of opts.components ?? upstreamComponents) {
    const crdDir = join(dir, component, 'config', 'crd');
    const crdKustomization = readKustomization(join(crdDir, 'kustomization.yaml'));
    const defaultKustomization = readKustomization(join(dir, component, 'config', 'default', 'kustomization.yaml'));
    const labels = { ...labelsOf(defaultKustomization), ...labelsOf(crdKustomization) };
    const conversionPatches = new Map<string, { path: string; reviewVersions: string[] }>();
    for (const patch of crdKustomization.patches ?? []) {
      if (!patch.path) continue;
      const doc = parseYaml(readFileSync(join(crdDir, patch.path), 'utf8')) as {
        metadata?: { name?: string };
        spec?: {
          conversion?: {
            webhook?: { conversionReviewVersions?: string[]; clientConfig?: { service?: { path?: string } } };
          };
        };
      };
      const webhook = doc.spec?.conversion?.webhook;
      if (!doc.metadata?.name || !webhook) continue;
      conversionPatches.set(doc.metadata.name, {
        path: webhook.clientConfig?.service?.path ?? '/convert',
        reviewVersions: webhook.conversionReviewVersions ?? ['v1'],
      });
    }
    const endpoint = opts.conversion?.[component];
    for (const resource of crdKustomization.resources ?? []) {
      const crd = parseYaml(readFileSync(join(crdDir, resource), 'utf8')) as KubeObject;
      const name = crd.metadata.name ?? '';
      crd.metadata = { ...crd.metadata, labels: { ...crd.metadata.labels, ...labels } };
      delete crd.metadata.annotations?.['cert-manager.io/inject-ca-from'];
      const patch = conversionPatches.get(name);
      if (endpoint && patch) {
        (crd['spec'] as Record<string, unknown>)['conversion'] = {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: patch.reviewVersions,
            clientConfig: {
              url: `${endpoint.url}${patch.path}`,
              caBundle: Buffer.from(endpoint.caBundle).toString('base64'),
            },
          },
        };
      }
      delete crd['status'];
      out.push(crd);
    }
  }
  return out;
}

/**
 * Upstream's admission webhook configurations of one component (`config/webhook/manifests.yaml`), named as its
 * `config/default` kustomization names them, every service reference rewritten to a URL at `endpoint`.
 */
export function computeUpstreamWebhookConfigurations(
  component: UpstreamComponent,
  endpoint: WebhookEndpoint,
): KubeObject[] {
  const { dir } = resolveUpstreamManifests();
  const prefix = readKustomization(join(dir, component, 'config', 'default', 'kustomization.yaml')).namePrefix ?? '';
  const labels = labelsOf(readKustomization(join(dir, component, 'config', 'default', 'kustomization.yaml')));
  const text = readFileSync(join(dir, component, 'config', 'webhook', 'manifests.yaml'), 'utf8');
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    const obj = doc.toJS() as KubeObject | null;
    if (!obj) continue;
    const config = clone(obj);
    config.metadata = {
      ...config.metadata,
      name: `${prefix}${config.metadata.name ?? ''}`,
      labels: { ...config.metadata.labels, ...labels },
    };
    const webhooks = (config['webhooks'] ?? []) as {
      clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
    }[];
    for (const webhook of webhooks) {
      webhook.clientConfig = {
        url: `${endpoint.url}${webhook.clientConfig.service?.path ?? '/'}`,
        caBundle: Buffer.from(endpoint.caBundle).toString('base64'),
      };
    }
    out.push(config);
  }
  return out;
}

export const upstreamFieldManager = 'capi-serverless-upstream-harness';

/**
 * Installs upstream's CRDs (see `computeUpstreamCrds`) into a cluster and waits until each is established and
 * served. Do not combine with the project's own CRDs (`ourCrds()`): both define `clusters.cluster.x-k8s.io` & co.
 */
export async function installUpstreamCrds(
  kube: KubeClient,
  opts: Parameters<typeof computeUpstreamCrds>[0] & { timeoutMs?: number } = {},
): Promise<KubeObject[]> {
  const crds = computeUpstreamCrds(opts);
  await installCrds(kube, crds, {
    fieldManager: upstreamFieldManager,
    ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
  });
  return crds;
}
