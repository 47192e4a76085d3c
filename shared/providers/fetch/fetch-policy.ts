// Where the providers function may download from: HTTPS only, never to loopback, link-local (cloud metadata),
// private or otherwise special addresses, unless an explicit allow-list names the host; redirects are followed by
// hand, at most a few, each target checked again. Anyone allowed to create provider objects chooses these URLs, so
// this is the server-side request forgery boundary of the providers function.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { errorMessage } from '#shared/errors/index.ts';
import { ProviderFetchError } from '#shared/providers/fetch/provider-release.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';

export type FetchPolicy = {
  /**
   * Hosts (`host` or `host:port`, matched exactly, case-insensitive) exempt from the HTTPS and address rules, e.g. an
   * in-cluster registry on a private address or a test server on loopback. Empty by default.
   */
  readonly allowedHosts: readonly string[];
  /** GitLab hosts (exact) whose `/api/v4/projects/...` URLs are GitLab repositories (default `gitlab.com`). */
  readonly gitlabHosts: readonly string[];
  /** Redirects followed per request (default 5). */
  readonly maxRedirects?: number;
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  readonly resolve?: (host: string) => Promise<readonly string[]>;
};

export const defaultFetchPolicy: FetchPolicy = { allowedHosts: [], gitlabHosts: ['gitlab.com'] };

/** A download the policy does not allow; its message says why and how to allow it. */
export class FetchTargetRefusedError extends ProviderFetchError {
  constructor(message: string) {
    super(message, { reason: 'FetchTargetNotAllowed' });
  }
}

// NOTE: RFC 1918, CGNAT and IPv6 unique-local addresses are refused too: inside a VPC they reach internal services,
// and a private registry is one allow-list entry away. IPv4-mapped and NAT64 IPv6 addresses are checked as the IPv4
// address they carry.
const blocked: readonly (readonly [string, number, 'ipv4' | 'ipv6', string])[] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'ipv4', 'a private (RFC 1918) address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud instance metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'a private (RFC 1918) address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol assignment address'],
  ['192.168.0.0', 16, 'ipv4', 'a private (RFC 1918) address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fc00::', 7, 'ipv6', 'a unique-local (private) address (cloud instance metadata included)'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];
const blockLists = blocked.map(([network, prefix, family, why]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, why };
});

function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  for (const prefix of ['::ffff:', '64:ff9b::']) {
    if (!lower.startsWith(prefix)) continue;
    const rest = lower.slice(prefix.length);
    if (isIP(rest) === 4) return rest;
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
    if (hex) {
      const n = (parseInt(hex[1] ?? '0', 16) << 16) | parseInt(hex[2] ?? '0', 16);
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    }
  }
  return undefined;
}

/**
 * Why an address may not be fetched from by default (undefined: a public address).
 *
 * @example
 * computeBlockedAddressReason('169.254.169.254'); // 'a link-local address (cloud instance metadata)'
 * computeBlockedAddressReason('140.82.112.3'); // undefined
 */
export function computeBlockedAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  if (v4 !== undefined) {
    return blockLists.find((b) => b.family === 'ipv4' && b.list.check(v4, 'ipv4'))?.why;
  }
  return blockLists.find((b) => b.family === 'ipv6' && b.list.check(bare, 'ipv6'))?.why;
}

/** `host` and `host:port` of a URL, lower-case, without IPv6 brackets for the host. */
function hostKeys(url: URL): { host: string; hostPort: string } {
  const hostname = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'http:' ? '80' : url.protocol === 'https:' ? '443' : '');
  return { host: hostname.replace(/^\[|\]$/g, ''), hostPort: `${hostname}:${port}` };
}

/**
 * Whether `url`'s host is on the allow-list (`host` or `host:port`, exact).
 *
 * @example
 * isAllowedHost(new URL('http://127.0.0.1:5000/v2/'), ['127.0.0.1:5000']); // true
 */
export function isAllowedHost(url: URL, allowedHosts: readonly string[]): boolean {
  const { host, hostPort } = hostKeys(url);
  return allowedHosts.some((entry) => {
    const e = entry.trim().toLowerCase();
    return e === host || e === hostPort || e === `[${host}]`;
  });
}

const defaultResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks one URL against the policy: throws FetchTargetRefusedError naming the URL and the rule, or a
 * ProviderFetchError when its host does not resolve.
 *
 * @example
 * await checkFetchTarget(new URL('http://169.254.169.254/latest/meta-data/'), defaultFetchPolicy); // throws
 */
export async function checkFetchTarget(url: URL, policy: FetchPolicy): Promise<void> {
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username || url.password) throw new FetchTargetRefusedError(`refused to fetch ${shown}: credentials in url`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new FetchTargetRefusedError(`refused to fetch ${shown}: only https is allowed`);
  if (isAllowedHost(url, policy.allowedHosts)) return;
  const hint = `(allow the host with PROVIDER_FETCH_ALLOWED_HOSTS)`;
  if (url.protocol !== 'https:')
    throw new FetchTargetRefusedError(`refused to fetch ${shown}: only https is allowed ${hint}`);
  const { host } = hostKeys(url);
  let addresses: readonly string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch (err) {
      throw new ProviderFetchError(`failed to get ${shown}: cannot resolve ${host}: ${errorMessage(err)}`);
    }
  }
  if (addresses.length === 0) throw new ProviderFetchError(`failed to get ${shown}: ${host} has no address`);
  for (const address of addresses) {
    const why = computeBlockedAddressReason(address);
    if (why) {
      const via = address === host ? '' : ` (${host} resolves to ${address})`;
      throw new FetchTargetRefusedError(`refused to fetch ${shown}: ${why}${via} ${hint}`);
    }
  }
}

/**
 * Wraps a `fetch` so every request, and every redirect it gets, is checked against the policy first; at most
 * `maxRedirects` redirects are followed, and credentials are not sent on to another origin.
 *
 * @example
 * const guarded = createGuardedFetch(fetch, { ...defaultFetchPolicy, allowedHosts: ['registry.local:5000'] });
 */
export function createGuardedFetch(fetchFn: FetchFn, policy: FetchPolicy): FetchFn {
  const maxRedirects = policy.maxRedirects ?? 5;
  return async (input, init = {}) => {
    let url = new URL(input);
    let headers = new Headers(init.headers);
    let { method = 'GET', body } = init;
    for (let redirects = 0; ; redirects++) {
      await checkFetchTarget(url, policy);
      const res = await fetchFn(url.href, {
        ...init,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
      });
      const location = res.headers.get('location');
      if (![301, 302, 303, 307, 308].includes(res.status) || location === null) return res;
      if (redirects >= maxRedirects)
        throw new FetchTargetRefusedError(`refused to fetch ${input}: more than ${maxRedirects} redirects`);
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        headers = new Headers(headers);
        headers.delete('authorization');
        headers.delete('cookie');
      }
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
      }
      url = next;
    }
  };
}
