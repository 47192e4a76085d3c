// Downloading provider releases: a release server on loopback in GitHub's layout (reached through the injected
// `fetch`, which maps github.com and api.github.com to it) serves the predefined `cluster-api` repository; a fake OCI
// registry on loopback with bearer-token auth serves an infrastructure provider. Downloads are cached in ConfigMaps,
// so later passes need no network. Every download passes the fetch policy: the loopback registry is reached only
// because the test allow-lists it (PROVIDER_FETCH_ALLOWED_HOSTS), and is refused, with a condition, without that.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { listObjects } from '#shared/kube/index.ts';
import { findPredefinedRepository } from '#shared/providers/fetch/predefined-repositories.ts';
import { defaultFetchPolicy, type FetchPolicy } from '#shared/providers/fetch/fetch-policy.ts';
import { parseRepositoryUrl } from '#shared/providers/fetch/release-repository.ts';
import { parseOciSource } from '#shared/providers/fetch/oci-artifact.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import { startManagementCluster, type TestCluster } from '#test/support/harness/clusters.ts';
import {
  applyProvider,
  conditionOf,
  containerOf,
  createSecret,
  ensureNamespace,
  getDeployment,
  markAvailable,
  pass,
  readComponents,
  readMetadata,
  readProvider,
  waitForProviderKinds,
} from '#test/integration/providers/provider-fixtures.ts';

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function startReleaseServer(): Promise<{ server: Server; base: string; requests: string[] }> {
  const requests: string[] = [];
  let base = '';
  const ociFiles: Record<string, string> = {
    'metadata.yaml': readMetadata('infrastructure'),
    'infrastructure-components.yaml': readComponents('infrastructure', 'v1.0.0'),
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, headers);
      res.end(body);
    };
    let m = /^\/api\/repos\/kubernetes-sigs\/cluster-api\/releases$/.exec(url.pathname);
    if (m) {
      const tags = ['v2.0.0-rc.0', 'v1.1.0', 'nightly', 'v1.0.0'];
      return send(200, JSON.stringify(tags.map((tag_name) => ({ tag_name }))), { 'Content-Type': 'application/json' });
    }
    m = /^\/github\/kubernetes-sigs\/cluster-api\/releases\/download\/(v[^/]+)\/([^/]+)$/.exec(url.pathname);
    if (m) {
      const [, version = '', file = ''] = m;
      if (!['v1.0.0', 'v1.1.0', 'v2.0.0-rc.0'].includes(version)) return send(404, 'Not Found');
      if (file === 'metadata.yaml') return send(200, readMetadata('core'));
      if (file === 'core-components.yaml') return send(200, readComponents('core', version));
      return send(404, 'Not Found');
    }
    if (url.pathname === '/token') {
      return url.searchParams.get('scope') === 'repository:acme/fake-infra:pull'
        ? send(200, JSON.stringify({ token: 'pull-token' }))
        : send(403, 'bad scope');
    }
    if (url.pathname.startsWith('/v2/acme/fake-infra/')) {
      if (req.headers.authorization !== 'Bearer pull-token') {
        return send(401, '', {
          'WWW-Authenticate': `Bearer realm="${base}/token",service="registry.test",scope="repository:acme/fake-infra:pull"`,
        });
      }
      if (url.pathname === '/v2/acme/fake-infra/manifests/v1.0.0') {
        const layers = Object.entries(ociFiles).map(([title, text]) => ({
          mediaType: 'application/vnd.oci.image.layer.v1.tar',
          digest: sha(text),
          size: text.length,
          annotations: { 'org.opencontainers.image.title': title },
        }));
        return send(200, JSON.stringify({ schemaVersion: 2, layers }), {
          'Content-Type': 'application/vnd.oci.image.manifest.v1+json',
        });
      }
      const blob = Object.values(ociFiles).find((text) => url.pathname === `/v2/acme/fake-infra/blobs/${sha(text)}`);
      return blob === undefined ? send(404, 'Not Found') : send(200, blob);
    }
    return send(404, 'Not Found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      base = `http://127.0.0.1:${port}`;
      resolve({ server, base, requests });
    }),
  );
}

describe('provider releases from URLs and OCI artifacts', () => {
  let mgmt: TestCluster;
  let release: Awaited<ReturnType<typeof startReleaseServer>>;
  let fetchCalls = 0;
  const routed: FetchFn = (url, init) => {
    fetchCalls++;
    const target = url
      .replace(/^https:\/\/api\.github\.com\//, `${release.base}/api/`)
      .replace(/^https:\/\/github\.com\//, `${release.base}/github/`);
    return fetch(target, init);
  };
  // NOTE: github.com and api.github.com are allow-listed because `routed` stands in for them (no DNS here); the
  // registry is the loopback server itself.
  const allowed = (): FetchPolicy => ({
    ...defaultFetchPolicy,
    allowedHosts: ['github.com', 'api.github.com', new URL(release.base).host],
  });

  before(async () => {
    release = await startReleaseServer();
    mgmt = await startManagementCluster({ name: 'providers-url' });
    await waitForProviderKinds(mgmt.kube);
  });
  after(async () => {
    release?.server.close();
    await mgmt?.stop();
  });

  test('the predefined cluster-api repository is read in GitHub layout, its latest release chosen and cached', async () => {
    await ensureNamespace(mgmt.kube, 'capi-system');
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {});
    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', routed, allowed());
    assert.equal(outcome.result, 'Requeue', outcome.error);
    assert.ok(release.requests.includes('/api/repos/kubernetes-sigs/cluster-api/releases'));
    assert.ok(
      release.requests.includes('/github/kubernetes-sigs/cluster-api/releases/download/v1.1.0/core-components.yaml'),
    );

    const core = await readProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api');
    assert.equal(core.spec?.version, 'v1.1.0', 'a release beats a newer pre-release; the version is written back');
    const cache = await listObjects(mgmt.kube, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'capi-system',
      labelSelector: 'managed-by.operator.cluster.x-k8s.io=true,provider.cluster.x-k8s.io/name=cluster-api',
    });
    assert.deepEqual(
      cache.items.map((cm) => cm.metadata.name),
      ['core-cluster-api-v1.1.0'],
    );
    assert.deepEqual(cache.items[0]?.metadata.labels, {
      'managed-by.operator.cluster.x-k8s.io': 'true',
      'provider.cluster.x-k8s.io/name': 'cluster-api',
      'provider.cluster.x-k8s.io/type': 'core',
      'provider.cluster.x-k8s.io/version': 'v1.1.0',
    });
    const d = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal(containerOf(d).image, 'registry.k8s.io/cluster-api/cluster-api-controller:v1.1.0');
    await markAvailable(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.equal(
      (await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', routed, allowed())).result,
      'Success',
    );
  });

  test('a loopback registry is refused without the allow-list, with a condition saying why and how to allow it', async () => {
    await ensureNamespace(mgmt.kube, 'capf-system');
    const before = release.requests.length;
    const sources = [
      [
        `${release.base}/acme/fake-infra:v1.0.0`,
        /only https is allowed \(allow the host with PROVIDER_FETCH_ALLOWED_HOSTS\)/,
      ],
      [`${new URL(release.base).host}/acme/fake-infra:v1.0.0`, /a loopback address/],
      ['169.254.169.254/latest/meta-data:v1.0.0', /a link-local address \(cloud instance metadata\)/],
    ] as const;
    for (const [oci, why] of sources) {
      await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', { fetchConfig: { oci } });
      const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', (url, init) =>
        fetch(url, init),
      );
      assert.equal(outcome.result, 'Error');
      const installed = conditionOf(
        await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake'),
        'ProviderInstalled',
      );
      assert.equal(installed?.status, 'False');
      assert.equal(installed?.reason, 'FetchTargetNotAllowed');
      assert.match(installed?.message ?? '', /^refused to fetch /);
      assert.match(installed?.message ?? '', why);
    }
    assert.equal(release.requests.length, before, 'nothing reached the server');
  });

  test('an infrastructure provider is installed from an OCI artifact behind bearer-token auth', async () => {
    await ensureNamespace(mgmt.kube, 'capf-system');
    await createSecret(mgmt.kube, 'capf-system', 'capf-variables', { FAKE_REGION: 'oci-region', FAKE_TOKEN: 'x' });
    await applyProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', {
      fetchConfig: { oci: `${release.base}/acme/fake-infra:v1.0.0` },
      configSecret: { name: 'capf-variables' },
    });
    const outcome = await pass(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake', routed, allowed());
    assert.equal(outcome.result, 'Requeue', outcome.error);
    assert.ok(outcome.changed.includes('created ConfigMap capf-system/infrastructure-fake-v1.0.0'));
    const infra = await readProvider(mgmt.kube, 'InfrastructureProvider', 'capf-system', 'fake');
    assert.equal(infra.spec?.version, 'v1.0.0');
    assert.equal(infra.status?.contract, 'v1beta1');
    assert.equal(conditionOf(infra, 'ProviderInstalled')?.status, 'True');
  });

  test('with the release server stopped, a reconfiguration is served from the cache', async () => {
    await new Promise((resolve) => release.server.close(resolve));
    fetchCalls = 0;
    await applyProvider(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', {
      version: 'v1.1.0',
      manager: { verbosity: 4 },
    });
    const outcome = await pass(mgmt.kube, 'CoreProvider', 'capi-system', 'cluster-api', routed, allowed());
    assert.notEqual(outcome.result, 'Error', outcome.error);
    assert.equal(fetchCalls, 0, 'no network access');
    const d = await getDeployment(mgmt.kube, 'capi-system', 'capi-controller-manager');
    assert.ok(containerOf(d).args?.includes('--v=4'));
  });

  const urls = [
    {
      name: 'reads a GitHub release url',
      url: 'https://github.com/acme/capx/releases/v1.2.0/infrastructure-components.yaml',
      want: {
        type: 'github',
        owner: 'acme',
        repository: 'capx',
        defaultVersion: 'v1.2.0',
        componentsPath: 'infrastructure-components.yaml',
      },
    },
    {
      name: 'reads a GitLab generic package url',
      url: 'https://gitlab.example.com/api/v4/projects/group%2Fcapx/packages/generic/capx/v0.3.0/infrastructure-components.yaml',
      want: {
        type: 'gitlab',
        host: 'gitlab.example.com',
        projectSlug: 'group%2Fcapx',
        packageName: 'capx',
        defaultVersion: 'v0.3.0',
        componentsPath: 'infrastructure-components.yaml',
      },
    },
  ];
  for (const c of urls) test(c.name, () => assert.deepEqual(parseRepositoryUrl(c.url, ['gitlab.example.com']), c.want));

  test('refuses urls outside the GitHub and GitLab layouts', () => {
    for (const url of [
      'http://github.com/a/b/releases/latest/c.yaml',
      'https://github.com/a/b/tags/v1/c.yaml',
      'https://example.com/x',
    ]) {
      assert.throws(() => parseRepositoryUrl(url), /invalid|only GitHub/);
    }
  });

  test('takes GitLab hosts by exact name only (no `gitlab.` prefix match)', () => {
    const path = '/api/v4/projects/group%2Fcapx/packages/generic/capx/v0.3.0/infrastructure-components.yaml';
    for (const host of ['gitlab.attacker.example', 'gitlab.example.com.attacker.example', 'xgitlab.example.com']) {
      assert.throws(
        () => parseRepositoryUrl(`https://${host}${path}`, ['gitlab.example.com']),
        new RegExp(`${host.replaceAll('.', '\\.')} is not a known GitLab host \\(add it to PROVIDER_GITLAB_HOSTS\\)`),
      );
    }
    assert.equal(parseRepositoryUrl(`https://gitlab.com${path}`).type, 'gitlab', 'gitlab.com by default');
    assert.throws(() => parseRepositoryUrl(`https://gitlab.example.com${path}`), /not a known GitLab host/);
  });

  test('knows the predefined repositories of well-known provider names', () => {
    assert.equal(
      findPredefinedRepository('InfrastructureProvider', 'docker'),
      'https://github.com/kubernetes-sigs/cluster-api/releases/latest/infrastructure-components-development.yaml',
    );
    assert.equal(findPredefinedRepository('InfrastructureProvider', 'no-such-provider'), undefined);
  });

  test('splits OCI sources as upstream, the tag in the url winning over the version', () => {
    assert.deepEqual(parseOciSource('registry.local:5000/capi/core:v1.9.0', 'v1.0.0'), {
      registry: 'registry.local:5000',
      repository: 'capi/core',
      tag: 'v1.9.0',
      plainHttp: false,
    });
    assert.deepEqual(parseOciSource('http://registry.local/capi/core', 'v1.0.0'), {
      registry: 'registry.local',
      repository: 'capi/core',
      tag: 'v1.0.0',
      plainHttp: true,
    });
  });
});
