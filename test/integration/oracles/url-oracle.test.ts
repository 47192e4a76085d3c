// Oracle test: Go's net/url (shared/lang/go/url.ts) against Go's own url.Parse and url.ParseRequestURI: every field,
// EscapedPath, Hostname, Port, Query and the error messages, over named edge cases and generated URLs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse, parseRequestURI } from '#shared/lang/go/url.ts';
import type { URL } from '#shared/lang/go/url.ts';
import { urlString } from '#test/support/oracles/cel-library-arbitraries.ts';
import { oracleRunSettings, startGoOracle } from '#test/support/oracles/go-oracle.ts';
import type { GoOracle, GoUrl } from '#test/support/oracles/go-oracle.ts';

let go: GoOracle;
before(() => {
  go = startGoOracle();
});
after(() => go.close());

type Seen = { readonly input: string; readonly error?: string; readonly url?: Record<string, unknown> };

function fields(u: URL): Record<string, unknown> {
  return {
    scheme: u.scheme,
    opaque: u.opaque,
    host: u.host,
    path: u.path,
    rawPath: u.rawPath,
    rawQuery: u.rawQuery,
    fragment: u.fragment,
    rawFragment: u.rawFragment,
    escapedPath: u.escapedPath(),
    hostname: u.hostname(),
    port: u.port(),
    query: Object.fromEntries(u.query()),
  };
}

function goFields(u: GoUrl): Record<string, unknown> {
  const { error: _error, user: _user, query, ...rest } = u;
  return { ...rest, query: query ?? {} };
}

async function assertSameAsGo(inputs: readonly string[], requestURI: boolean): Promise<void> {
  const want = await go.ask({ op: 'url', inputs, requestURI });
  const got = inputs.map((input): Seen => {
    try {
      return { input, url: fields(requestURI ? parseRequestURI(input) : parse(input)) };
    } catch (error) {
      return { input, error: error instanceof Error ? error.message : String(error) };
    }
  });
  assert.deepEqual(
    got,
    inputs.map((input, i): Seen => {
      const u = want.urls?.[i];
      if (u === undefined) return { input, error: 'no answer' };
      return u.error !== undefined ? { input, error: u.error } : { input, url: goFields(u) };
    }),
  );
}

const named = [
  '',
  '*',
  'https://example.com',
  'https://user:pa%20ss@example.com:8443/a/b%2Fc/../d?x=1&y=a+b&x=2&z#frag%20ment',
  'http://[fe80::1%25en0]:80/',
  'http://[::ffff:1.2.3.4]/',
  'http://[1.2.3.4]/',
  'http://[::1/',
  'http://[::g]/',
  'http://[1::2::3]:80/',
  'http://[::1%25%7a]:8/',
  'http://a:b:c/',
  'ftp://a:b:80/',
  'http://ex%41mple.com/',
  'http://ex%0aample.com/',
  'http://exa mple.com/',
  'http://example.com/%zz',
  'http://example.com/a b',
  'http://example.com/é?é=ü#é',
  'http://example.com/%ff',
  'http://example.com/?;a=b&c=d',
  'http://example.com/?',
  'http://example.com/??',
  'mailto:someone@example.com',
  'urn:isbn:0451450523',
  '/relative/path?q#f',
  'relative:colon',
  'relative/with:colon',
  '//host/path',
  '///triple',
  ':missing',
  '1http://x',
  'http://x/\x7f',
  'http://x/\t',
  'http://user@@host/',
  'http://us er@host/',
  'http://host:/',
  'http://host:port/',
  'https://example.com#',
  'https://example.com#%zz',
  'https://example.com#a#b',
];

describe('net/url oracle (Go url.Parse and url.ParseRequestURI)', () => {
  test('url.Parse of the named edge cases', () => assertSameAsGo(named, false));
  test('url.ParseRequestURI of the named edge cases', () => assertSameAsGo(named, true));
  test('url.Parse and url.ParseRequestURI of generated URLs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(urlString, { maxLength: 20 }), async (inputs) => {
        await assertSameAsGo(inputs, false);
        await assertSameAsGo(inputs, true);
      }),
      oracleRunSettings(150),
    );
  });
});
