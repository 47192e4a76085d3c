// The providers function's download policy: which addresses are refused by default, exact allow-list and host
// matching, the checks on one URL (with a resolver table standing in for DNS), and redirects re-checked and
// bounded (against real HTTP servers on loopback, which the allow-list lets through).
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  checkFetchTarget,
  computeBlockedAddressReason,
  createGuardedFetch,
  defaultFetchPolicy,
  FetchTargetRefusedError,
  isAllowedHost,
  type FetchPolicy,
} from '#shared/providers/fetch/fetch-policy.ts';

describe('computeBlockedAddressReason', () => {
  const cases: [string, string, RegExp | undefined][] = [
    ['refuses IPv4 loopback', '127.0.0.1', /loopback/],
    ['refuses all of 127.0.0.0/8', '127.255.0.9', /loopback/],
    ['refuses the cloud metadata address', '169.254.169.254', /link-local .*metadata/],
    ['refuses 0.0.0.0', '0.0.0.0', /unspecified/],
    ['refuses RFC 1918 10/8', '10.1.2.3', /private/],
    ['refuses RFC 1918 172.16/12', '172.31.255.1', /private/],
    ['refuses RFC 1918 192.168/16', '192.168.0.1', /private/],
    ['refuses carrier-grade NAT space', '100.64.0.1', /shared/],
    ['refuses multicast', '239.1.1.1', /multicast/],
    ['refuses the broadcast address', '255.255.255.255', /reserved/],
    ['refuses IPv6 loopback', '::1', /loopback/],
    ['refuses IPv6 unspecified', '::', /unspecified/],
    ['refuses IPv6 link-local', 'fe80::1', /link-local/],
    ['refuses the IPv6 instance metadata address', 'fd00:ec2::254', /unique-local/],
    ['refuses an IPv4-mapped loopback', '::ffff:127.0.0.1', /loopback/],
    ['refuses an IPv4-mapped metadata address in hex', '::ffff:a9fe:a9fe', /link-local/],
    ['refuses a NAT64 private address', '64:ff9b::10.0.0.1', /private/],
    ['refuses a bracketed IPv6 literal', '[::1]', /loopback/],
    ['allows a public IPv4 address', '140.82.112.3', undefined],
    ['allows 172.32.0.1 (outside 172.16/12)', '172.32.0.1', undefined],
    ['allows a public IPv6 address', '2606:50c0:8000::153', undefined],
    ['allows an IPv4-mapped public address', '::ffff:140.82.112.3', undefined],
    ['says a name is not an address', 'github.com', /not an IP address/],
  ];
  for (const [name, address, want] of cases) {
    test(name, () => {
      const got = computeBlockedAddressReason(address);
      if (want === undefined) assert.equal(got, undefined);
      else assert.match(got ?? '', want);
    });
  }
});

describe('isAllowedHost', () => {
  const cases: [string, string, string[], boolean][] = [
    ['matches a host exactly', 'http://registry.local/v2/', ['registry.local'], true],
    ['matches host:port exactly', 'http://127.0.0.1:5000/v2/', ['127.0.0.1:5000'], true],
    ['is case-insensitive', 'https://Registry.Local/v2/', ['registry.local'], true],
    ['does not match another port', 'http://127.0.0.1:5001/v2/', ['127.0.0.1:5000'], false],
    ['does not match a suffix', 'https://evil-registry.local/', ['registry.local'], false],
    ['does not match a prefix', 'https://registry.local.attacker.example/', ['registry.local'], false],
    ['matches an IPv6 literal with brackets', 'http://[::1]:8080/', ['[::1]:8080'], true],
    ['uses the default port of the scheme', 'http://registry.local/v2/', ['registry.local:80'], true],
  ];
  for (const [name, url, allowed, want] of cases)
    test(name, () => assert.equal(isAllowedHost(new URL(url), allowed), want));
});

describe('checkFetchTarget', () => {
  const dns: Record<string, string[]> = {
    'github.com': ['140.82.112.3'],
    'rebound.example': ['140.82.112.3', '127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'internal.example': ['10.0.0.7'],
  };
  const policy: FetchPolicy = {
    ...defaultFetchPolicy,
    resolve: async (host) => {
      const found = dns[host];
      if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
      return found;
    },
  };
  const refused: [string, string, FetchPolicy, RegExp][] = [
    ['refuses plain http to a public host', 'http://github.com/x', policy, /only https is allowed \(allow the host/],
    ['refuses an https loopback literal', 'https://127.0.0.1:8443/x', policy, /a loopback address/],
    [
      'refuses a name resolving to the metadata address',
      'https://metadata.example/x',
      policy,
      /metadata\.example resolves to 169\.254\.169\.254/,
    ],
    ['refuses a name with any loopback address among its answers', 'https://rebound.example/x', policy, /loopback/],
    ['refuses a private address by default', 'https://internal.example/x', policy, /private \(RFC 1918\)/],
    ['refuses credentials in the url', 'https://user:pass@github.com/x', policy, /credentials in url/],
    ['refuses other schemes', 'file:///etc/passwd', policy, /only https/],
    [
      'refuses an allow-listed host on another port',
      'http://127.0.0.1:9/x',
      { ...policy, allowedHosts: ['127.0.0.1:8080'] },
      /only https/,
    ],
  ];
  for (const [name, url, p, why] of refused) {
    test(name, async () => {
      await assert.rejects(checkFetchTarget(new URL(url), p), (err: unknown) => {
        assert.ok(err instanceof FetchTargetRefusedError, String(err));
        assert.equal(err.reason, 'FetchTargetNotAllowed');
        assert.match(err.message, why);
        assert.ok(!err.message.includes('user:pass'), 'credentials are never echoed');
        return true;
      });
    });
  }
  test('allows https to a public host', () => checkFetchTarget(new URL('https://github.com/a'), policy));
  test('allows an allow-listed private host over http', () =>
    checkFetchTarget(new URL('http://internal.example:5000/v2/'), {
      ...policy,
      allowedHosts: ['internal.example:5000'],
    }));
  test('a name that does not resolve is a fetch error, not a refusal', async () => {
    await assert.rejects(
      checkFetchTarget(new URL('https://nowhere.example/'), policy),
      /cannot resolve nowhere\.example/,
    );
  });
});

describe('createGuardedFetch', () => {
  let server: Server;
  let base = '';
  let other = '';
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      const [path = '', query = ''] = (req.url ?? '').split('?');
      const n = Number(new URLSearchParams(query).get('n') ?? '0');
      const redirect = (location: string) => res.writeHead(302, { location }).end();
      if (path === '/loop') return redirect(`/loop?n=${n + 1}`);
      if (path === '/to-metadata') return redirect('http://169.254.169.254/latest/meta-data/');
      if (path === '/to-other') return redirect(`${other}/landing`);
      if (path === '/hop') return redirect('/landing');
      res.writeHead(200).end('landed');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    other = `http://localhost:${port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const guarded = () =>
    createGuardedFetch((url, init) => fetch(url, init), {
      ...defaultFetchPolicy,
      allowedHosts: [new URL(base).host, new URL(other).host],
    });

  test('follows a redirect it may follow', async () => {
    const res = await guarded()(`${base}/hop`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'landed');
  });

  test('checks every redirect target: an allow-listed server cannot bounce a request to the metadata address', async () => {
    await assert.rejects(
      guarded()(`${base}/to-metadata`),
      /refused to fetch http:\/\/169\.254\.169\.254\/latest\/meta-data\//,
    );
  });

  test('stops after five redirects', async () => {
    const before = seen.length;
    await assert.rejects(guarded()(`${base}/loop`), /more than 5 redirects/);
    assert.equal(seen.length - before, 6, 'the first request and five redirects');
  });

  test('does not carry credentials to another origin', async () => {
    seen.length = 0;
    const res = await guarded()(`${base}/to-other`, { headers: { Authorization: 'Bearer t0ken' } });
    assert.equal(res.status, 200);
    assert.equal(seen[0]?.headers.authorization, 'Bearer t0ken');
    assert.equal(seen[1]?.path, '/landing');
    assert.equal(seen[1]?.headers.authorization, undefined);
  });

  test('refuses a loopback server that is not allow-listed, before connecting', async () => {
    const before = seen.length;
    const strict = createGuardedFetch((url, init) => fetch(url, init), defaultFetchPolicy);
    await assert.rejects(strict(`${base}/hop`), FetchTargetRefusedError);
    assert.equal(seen.length, before);
  });
});
