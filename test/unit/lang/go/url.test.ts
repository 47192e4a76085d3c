// Go's net/url (shared/lang/go/url.ts); every field against Go itself in test/integration/oracles/url-oracle.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UrlError, parse, parseRequestURI } from '#shared/lang/go/url.ts';

describe('parseRequestURI (Go net/url.ParseRequestURI)', () => {
  const cases: [string, string, string | { scheme: string }][] = [
    ['accepts an https URL with port and path', 'https://ext.example:8443/hooks', { scheme: 'https' }],
    ['lower-cases the scheme', 'HTTPS://ext.example', { scheme: 'https' }],
    ['accepts an absolute path', '/hooks/v1', { scheme: '' }],
    ['accepts a bracketed IPv6 host', 'https://[::1]:8443/', { scheme: 'https' }],
    ['reads a rootless URI as opaque', 'mailto:ops@example.com', { scheme: 'mailto' }],
    ['refuses a host and path without scheme', 'ext.example/hooks', 'invalid URI for request'],
    ['refuses a leading colon', ':8443/hooks', 'missing protocol scheme'],
    ['refuses a control character', 'https://ext.example/\n', 'net/url: invalid control character in URL'],
    ['refuses a space in the host', 'https://ext example/', 'invalid character " " in host name'],
    ['refuses a port that is not a number', 'https://ext.example:https/', 'invalid port ":https" after host'],
    ['refuses a second colon in an https host', 'https://a:1:2/', 'invalid port ":1:2" after host'],
    ['refuses a bad escape in the path', 'https://ext.example/%zz', 'invalid URL escape "%zz"'],
    ['refuses an escaped ASCII byte in the host', 'https://ext%2Eexample/', 'invalid URL escape "%2E"'],
    ['refuses a bracket missing its end', 'https://[::1/', "missing ']' in host"],
    ['refuses a bracket after the start of the host', 'https://a[::1]/', 'invalid IP-literal'],
    ['refuses an IPv4 address in brackets', 'https://[1.2.3.4]/', 'invalid IP-literal'],
    [
      "words netip's reason for a bad IPv6 literal",
      'https://[::g]/',
      'invalid host: ParseAddr("::g"): each colon-separated field must have at least one digit (at "g")',
    ],
    ['refuses a space in the userinfo', 'https://a b@ext.example/', 'net/url: invalid userinfo'],
  ];
  for (const [name, raw, want] of cases) {
    test(name, () => {
      if (typeof want === 'string') assert.throws(() => parseRequestURI(raw), new UrlError(raw, want));
      else assert.equal(parseRequestURI(raw).scheme, want.scheme);
    });
  }
});

describe('parse (Go net/url.Parse)', () => {
  test('reads every part of an absolute URL', () => {
    const u = parse('HTTPS://user@ext.example:8443/a%2Fb/c?x=1&y=a+b&x=2#frag%20ment');
    assert.deepEqual(
      {
        scheme: u.scheme,
        host: u.host,
        hostname: u.hostname(),
        port: u.port(),
        path: u.path,
        rawPath: u.rawPath,
        escapedPath: u.escapedPath(),
        query: Object.fromEntries(u.query()),
        fragment: u.fragment,
      },
      {
        scheme: 'https',
        host: 'ext.example:8443',
        hostname: 'ext.example',
        port: '8443',
        path: '/a/b/c',
        rawPath: '/a%2Fb/c',
        escapedPath: '/a%2Fb/c',
        query: { x: ['1', '2'], y: ['a b'] },
        fragment: 'frag ment',
      },
    );
  });
  test('accepts a relative path that url.ParseRequestURI refuses', () => {
    assert.equal(parse('a/b').path, 'a/b');
    assert.throws(() => parseRequestURI('a/b'), UrlError);
  });
  test('refuses a colon in the first segment of a relative path', () => {
    assert.throws(
      () => parse('a:b/c'.replace('a:', '1a:')),
      new UrlError('1a:b/c', 'first path segment in URL cannot contain colon'),
    );
  });
});
