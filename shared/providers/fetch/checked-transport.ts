// The providers function's HTTP transport: node's http/https with a DNS lookup that refuses the addresses the fetch
// policy refuses, at connection time. `checkFetchTarget` already checked the host's addresses before the request;
// this closes the gap where a name resolves to a public address for the check and to a private one for the
// connection (DNS rebinding).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import {
  computeBlockedAddressReason,
  FetchTargetRefusedError,
  isAllowedHost,
  type FetchPolicy,
} from '#shared/providers/fetch/fetch-policy.ts';
import type { FetchFn } from '#shared/providers/fetch/fetch-fn.ts';

function checkedLookup(url: URL, policy: Pick<FetchPolicy, 'allowedHosts'>): LookupFunction {
  const exempt = isAllowedHost(url, policy.allowedHosts);
  return (hostname, options, callback) => {
    const all: LookupAllOptions = { ...options, all: true };
    dnsLookup(hostname, all, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = exempt ? undefined : addresses.find((a) => computeBlockedAddressReason(a.address));
      if (blocked) {
        const why = computeBlockedAddressReason(blocked.address) ?? '';
        const refusal = new FetchTargetRefusedError(
          `refused to fetch ${url.protocol}//${url.host}${url.pathname}: ${why} (${hostname} resolves to ${blocked.address} at connection time)`,
        );
        return callback(refusal, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

function toResponse(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
    headers.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
  const status = res.statusCode ?? 0;
  const empty = method === 'HEAD' || status === 204 || status === 304;
  if (empty) res.resume();
  return new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
}

/**
 * A `fetch` over node's http/https whose connections never reach an address the policy refuses (unless the host
 * is allow-listed). Redirects are returned, not followed (`createGuardedFetch` follows them); bodies may be strings.
 *
 * @example
 * const fetchFn = createGuardedFetch(createCheckedTransport(policy), policy);
 */
export function createCheckedTransport(policy: Pick<FetchPolicy, 'allowedHosts'>): FetchFn {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      const method = (init.method ?? 'GET').toUpperCase();
      const body = init.body;
      if (body !== undefined && body !== null && typeof body !== 'string') {
        reject(new TypeError('the checked transport sends string bodies only'));
        return;
      }
      const headers = Object.fromEntries(new Headers(init.headers));
      const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
      if (!send) {
        reject(new TypeError(`unsupported protocol ${url.protocol}`));
        return;
      }
      const req = send(url, {
        method,
        headers,
        lookup: checkedLookup(url, policy),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.on('response', (res) => resolve(toResponse(res, method)));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
}
