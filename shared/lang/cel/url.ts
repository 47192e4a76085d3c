// The Kubernetes CEL url library (k8s.io/apiserver/pkg/cel/library/urls.go) over Go's net/url
// (shared/lang/go/url.ts): `url()` checks its argument with url.ParseRequestURI and keeps url.Parse's result.
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from '#shared/lang/cel/function-error.ts';
import { URL, UrlError, parse, parseRequestURI } from '#shared/lang/go/url.ts';

/**
 * Why Go's url.ParseRequestURI refuses a string, if it does (also the Kubernetes format library's `uri`).
 *
 * @example
 * requestURIError('a b'); // 'parse "a b": invalid URI for request'
 */
export function requestURIError(s: string): string | undefined {
  try {
    parseRequestURI(s);
    return undefined;
  } catch (error) {
    if (error instanceof UrlError) return error.message;
    throw error;
  }
}

/** The library's url(): ParseRequestURI must accept the text, url.Parse gives the URL. */
function urlOf(s: string): URL {
  try {
    parseRequestURI(s);
    return parse(s);
  } catch (error) {
    if (error instanceof UrlError)
      throw new CelFunctionError(`URL parse error during conversion from string: ${error.message}`);
    throw error;
  }
}

/**
 * Registers Kubernetes' url library: `url`, `isURL`, `getScheme`, `getHost`, `getHostname`, `getPort`,
 * `getEscapedPath`, `getQuery` (`==` between URLs is refused).
 *
 * @example
 * registerUrlLibrary(env).evaluate("url('https://example.com:80/a').getPort()"); // '80'
 */
export function registerUrlLibrary(env: Environment): Environment {
  return env
    .registerType('URL', URL)
    .registerFunction('url(string): URL', urlOf)
    .registerFunction('isURL(string): bool', (s: string) => requestURIError(s) === undefined)
    .registerFunction('URL.getScheme(): string', (u: URL) => u.scheme)
    .registerFunction('URL.getHost(): string', (u: URL) => u.host)
    .registerFunction('URL.getHostname(): string', (u: URL) => u.hostname())
    .registerFunction('URL.getPort(): string', (u: URL) => u.port())
    .registerFunction('URL.getEscapedPath(): string', (u: URL) => u.escapedPath())
    .registerFunction('URL.getQuery(): map<string, list<string>>', (u: URL) => u.query())
    .registerOperator('URL == URL', () => {
      // NOTE: Go compares URL.String(), which is not re-implemented (docs/differences.md, "CEL rules").
      throw new CelFunctionError('comparing two URLs is not supported');
    });
}
