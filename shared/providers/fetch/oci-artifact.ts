// Provider artefacts published as an OCI artifact (upstream operator's `fetchConfig.oci`): the manifest's layers
// are files named by their `org.opencontainers.image.title` annotation; metadata.yaml and the components YAML are
// read from them over the OCI distribution API (anonymous, basic or bearer-token auth).
import { createHash } from 'node:crypto';
import { errorMessage } from '#shared/errors/index.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';
import { ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';

/** Config variables upstream reads OCI credentials from. */
export const OciVariables = {
  username: 'OCI_USERNAME',
  password: 'OCI_PASSWORD',
  accessToken: 'OCI_ACCESS_TOKEN',
  refreshToken: 'OCI_REFRESH_TOKEN',
} as const;

export type OciSource = {
  readonly registry: string;
  readonly repository: string;
  readonly tag: string;
  readonly plainHttp: boolean;
};

/**
 * Splits an OCI source (`[http://]registry[:port]/repo[:tag]`) as upstream's `parseOCISource`: the tag in the URL
 * wins over the provider version.
 *
 * @example
 * parseOciSource('ghcr.io/acme/capi-provider:v1.2.0', ''); // { registry: 'ghcr.io', repository: 'acme/capi-provider', tag: 'v1.2.0', plainHttp: false }
 */
export function parseOciSource(url: string, version: string): OciSource {
  const plainHttp = url.startsWith('http://');
  let rest = plainHttp ? url.slice('http://'.length) : url.replace(/^oci:\/\//, '');
  let tag = version;
  const parts = rest.split(':');
  if (parts.length === 2 && !(parts[1] ?? '').includes('/')) {
    rest = parts[0] ?? '';
    tag = parts[1] ?? '';
  } else if (parts.length >= 3) {
    tag = parts.slice(2).join(':');
    rest = `${parts[0] ?? ''}:${parts[1] ?? ''}`;
  }
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) throw new ProviderFetchError(`invalid OCI source "${url}"`);
  if (!tag) throw new ProviderFetchError(`OCI source "${url}" has no tag and the provider has no version`);
  return { registry: rest.slice(0, slash), repository: rest.slice(slash + 1), tag, plainHttp };
}

/**
 * The file names upstream looks for, most specific first.
 *
 * @example
 * computeOciFileNames('infrastructure', 'aws', 'v2.5.0').components[0]; // 'infrastructure-aws-v2.5.0-components.yaml'
 */
export function computeOciFileNames(
  type: string,
  name: string,
  version: string,
): { metadata: string[]; components: string[] } {
  return {
    metadata: [`${type}-${name}-${version}-metadata.yaml`, 'metadata.yaml'],
    components: [`${type}-${name}-${version}-components.yaml`, `${type}-components.yaml`, 'components.yaml'],
  };
}

type Manifest = { layers?: { digest?: string; annotations?: Record<string, string> }[] };

const manifestTypes = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.artifact.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

function parseChallenge(header: string): Record<string, string> | undefined {
  const m = /^Bearer\s+(.*)$/i.exec(header.trim());
  if (!m) return undefined;
  const out: Record<string, string> = {};
  for (const part of (m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)) out[part[1] ?? ''] = part[2] ?? '';
  return out;
}

/** A small OCI distribution client: GETs with the registry's auth challenge answered once. */
function createRegistryClient(fetchFn: FetchFn, source: OciSource, variables: Readonly<Record<string, string>>) {
  const base = `${source.plainHttp ? 'http' : 'https'}://${source.registry}/v2/${source.repository}`;
  const user = variables[OciVariables.username] ?? '';
  const password = variables[OciVariables.password] ?? '';
  const basic = user || password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined;
  let authorization: string | undefined = variables[OciVariables.accessToken]
    ? `Bearer ${variables[OciVariables.accessToken]}`
    : basic;

  async function authenticate(res: Response): Promise<boolean> {
    const challenge = parseChallenge(res.headers.get('www-authenticate') ?? '');
    if (!challenge?.['realm']) return false;
    const q = new URLSearchParams();
    if (challenge['service']) q.set('service', challenge['service']);
    q.set('scope', challenge['scope'] ?? `repository:${source.repository}:pull`);
    const refresh = variables[OciVariables.refreshToken];
    const tokenRes = refresh
      ? await fetchFn(challenge['realm'], {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: refresh,
            ...Object.fromEntries(q),
          }).toString(),
        })
      : await fetchFn(`${challenge['realm']}?${q.toString()}`, { headers: basic ? { Authorization: basic } : {} });
    if (!tokenRes.ok) return false;
    const body = (await tokenRes.json()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) return false;
    authorization = `Bearer ${token}`;
    return true;
  }

  return async function get(path: string, accept?: string): Promise<Response> {
    const url = `${base}${path}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const headers: Record<string, string> = {};
      if (accept) headers['Accept'] = accept;
      if (authorization) headers['Authorization'] = authorization;
      let res: Response;
      try {
        res = await fetchFn(url, { headers });
      } catch (err) {
        if (err instanceof ProviderFetchError) throw err;
        throw new ProviderFetchError(`failed to get ${url}: ${errorMessage(err)}`, {}, { cause: err });
      }
      if (res.status === 401 && attempt === 0 && (await authenticate(res))) continue;
      if (!res.ok) throw new ProviderFetchError(`failed to get ${url}: HTTP ${res.status}`);
      return res;
    }
    throw new ProviderFetchError(`failed to get ${url}: unauthorized`);
  };
}

/**
 * Downloads metadata.yaml and the components YAML of a provider from an OCI artifact; blobs are checked against
 * their digest.
 */
export async function fetchOciArtifact(
  fetchFn: FetchFn,
  source: OciSource,
  files: { metadata: readonly string[]; components: readonly string[] },
  variables: Readonly<Record<string, string>>,
): Promise<{ metadataYaml: string; componentsYaml: string; reference: string }> {
  const reference = `${source.registry}/${source.repository}:${source.tag}`;
  const get = createRegistryClient(fetchFn, source, variables);
  const manifest = (await (await get(`/manifests/${source.tag}`, manifestTypes)).json()) as Manifest;
  const byTitle = new Map<string, string>();
  for (const layer of manifest.layers ?? []) {
    const title = layer.annotations?.['org.opencontainers.image.title'];
    if (title && layer.digest) byTitle.set(title, layer.digest);
  }
  async function read(names: readonly string[], what: string): Promise<string> {
    const name = names.find((n) => byTitle.has(n));
    const digest = name ? byTitle.get(name) : undefined;
    if (!digest) {
      throw new ProviderFetchError(`OCI artifact ${reference} needs to provide ${what} as ${names.join(' or ')}`);
    }
    const bytes = Buffer.from(await (await get(`/blobs/${digest}`)).arrayBuffer());
    const [algorithm, hex] = digest.split(':');
    if (algorithm === 'sha256' && createHash('sha256').update(bytes).digest('hex') !== hex) {
      throw new ProviderFetchError(`OCI artifact ${reference}: blob ${name ?? ''} does not match digest ${digest}`);
    }
    return bytes.toString('utf8');
  }
  return {
    metadataYaml: await read(files.metadata, 'metadata'),
    componentsYaml: await read(files.components, 'components'),
    reference,
  };
}
