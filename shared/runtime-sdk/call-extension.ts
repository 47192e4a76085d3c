// One HTTPS call to a Runtime Extension: the hook's request as JSON, TLS verified with the ExtensionConfig's CA
// bundle, a deadline from the handler's timeoutSeconds, upstream's failurePolicy, the response checked against the
// hook's schema. An extension behind a Kubernetes Service is reached through the API server's service proxy, since
// a Lambda function is not inside the cluster network.
import { request as httpsRequest } from 'node:https';
import type * as z from 'zod';
import type { ClientConfig, ExtensionConfig, ExtensionHandler } from '#shared/api/runtime-extension.ts';
import { hooksGroupVersion } from '#shared/api/runtime-extension.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { KubeClient } from '#shared/kube/index.ts';
import {
  defaultHandlerTimeoutSeconds,
  discoveryTimeoutSeconds,
  hookPath,
  hooks,
  type Hook,
  type HookResponse,
} from '#shared/runtime-sdk/catalog.ts';
import { extensionFailures, RuntimeExtensionError } from '#shared/runtime-sdk/errors.ts';

/** Responses larger than this are refused (upstream reads at most 1 MiB of an error body, too). */
const maxResponseBytes = 10 * 1024 * 1024;

export type ExtensionCallDeps = {
  /** Reaches `service` client configs through the API server's service proxy. */
  readonly kube: KubeClient;
  /**
   * Told of every failed call that `failurePolicy: Ignore` forgave (the caller goes on as if it answered Success):
   * `plan` names them, so a desired state without that extension's answer is never printed silently.
   */
  readonly onIgnoredFailure?: (error: RuntimeExtensionError) => void;
};

export type ExtensionCallOptions = {
  /** Aborts the call (e.g. the pass's deadline), on top of the handler's own timeout. */
  readonly signal?: AbortSignal;
};

/**
 * Calls one registered handler of `hook` with `request` (the hook's fields without apiVersion/kind/settings; the
 * ExtensionConfig's settings are merged in as upstream does). With `failurePolicy: Ignore`, a handler that cannot
 * be reached answers as `{ status: 'Success' }`. Throws {@link RuntimeExtensionError} otherwise, including for a
 * `Failure` answer.
 *
 * @example
 * const answer = await callExtensionHandler(deps, 'BeforeClusterCreate', extensionConfig, handler, { cluster });
 * if (answer.retryAfterSeconds > 0) return requeueAfter(answer.retryAfterSeconds);
 */
export async function callExtensionHandler<H extends Exclude<Hook, 'Discovery'>>(
  deps: ExtensionCallDeps,
  hook: H,
  extensionConfig: ExtensionConfig,
  handler: ExtensionHandler,
  request: Readonly<Record<string, unknown>>,
  options: ExtensionCallOptions = {},
): Promise<HookResponse<H>> {
  const extension = extensionConfig.metadata.name ?? '';
  const what = { extension, handler: handler.name, hook };
  const shortName = handler.name.endsWith(`.${extension}`)
    ? handler.name.slice(0, -(extension.length + 1))
    : handler.name;
  const settings = { ...(extensionConfig.spec.settings ?? {}), ...((request['settings'] as object) ?? {}) };
  const body = {
    apiVersion: hooksGroupVersion,
    kind: `${hook}Request`,
    ...request,
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
  };
  const timeoutSeconds =
    handler.timeoutSeconds === undefined || handler.timeoutSeconds === 0
      ? defaultHandlerTimeoutSeconds
      : handler.timeoutSeconds;
  try {
    const raw = await post(deps, extensionConfig.spec.clientConfig, hookPath(hook, shortName), body, {
      timeoutSeconds,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const answer = parseResponse(hooks[hook].response, raw, 'response does not match the hook');
    if (answer.status === 'Failure') {
      throw new RuntimeExtensionError(
        what,
        extensionFailures.response,
        `got failure response: ${answer.message ?? ''}`,
      );
    }
    return answer as HookResponse<H>;
  } catch (err) {
    const error =
      err instanceof RuntimeExtensionError
        ? err
        : new RuntimeExtensionError(what, extensionFailures.call, `http call failed: ${errorMessage(err)}`, {
            cause: err,
          });
    if (error.failure === extensionFailures.call && handler.failurePolicy === 'Ignore') {
      deps.onIgnoredFailure?.(error);
      return hooks[hook].response.parse({ status: 'Success', message: '' }) as HookResponse<H>;
    }
    throw error;
  }
}

/**
 * Calls the extension's discovery endpoint (10 s deadline). Throws {@link RuntimeExtensionError} when it cannot be
 * reached, answers garbage or answers Failure.
 *
 * @example
 * const answer = await callDiscovery(deps, extensionConfig);
 */
export async function callDiscovery(
  deps: ExtensionCallDeps,
  extensionConfig: ExtensionConfig,
  options: ExtensionCallOptions = {},
): Promise<HookResponse<'Discovery'>> {
  const what = { extension: extensionConfig.metadata.name ?? '', hook: 'Discovery' };
  let raw: unknown;
  try {
    raw = await post(
      deps,
      extensionConfig.spec.clientConfig,
      hookPath('Discovery'),
      { apiVersion: hooksGroupVersion, kind: 'DiscoveryRequest' },
      { timeoutSeconds: discoveryTimeoutSeconds, ...(options.signal ? { signal: options.signal } : {}) },
    );
  } catch (err) {
    throw new RuntimeExtensionError(what, extensionFailures.call, `http call failed: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const answer = parseResponse(hooks.Discovery.response, raw, 'response does not match DiscoveryResponse');
  if (answer.status === 'Failure') {
    throw new RuntimeExtensionError(what, extensionFailures.response, `got failure response: ${answer.message ?? ''}`);
  }
  return answer;
}

function parseResponse<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${what}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  return parsed.data;
}

/** `10s`, as Go's time.Duration prints whole seconds. */
function goDuration(seconds: number): string {
  return `${seconds}s`;
}

async function post(
  deps: ExtensionCallDeps,
  config: ClientConfig,
  path: string,
  body: unknown,
  options: { readonly timeoutSeconds: number; readonly signal?: AbortSignal },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutSeconds * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  if (config.service !== undefined) {
    const { namespace, name, port, path: base } = config.service;
    // NOTE: the API server's service proxy: authenticated with our credentials, TLS to the extension is the
    // API server's (it does not verify the extension's certificate). Listed in docs/differences.md.
    const proxied = `/api/v1/namespaces/${namespace}/services/https:${name}:${port ?? 443}/proxy${joinPath(base ?? '', path)}`;
    const request = deps.kube.request({
      method: 'POST',
      path: proxied,
      query: { timeout: goDuration(options.timeoutSeconds) },
      body,
      target: { verb: 'call', kind: 'Service', namespace, name },
    });
    return await raceAbort(request, signal);
  }
  if (config.url === undefined || config.url === '') {
    throw new Error('failed to compute URL: at least one of service and url should be defined in config');
  }
  let url: URL;
  try {
    url = new URL(config.url);
  } catch (err) {
    throw new Error(`failed to compute URL: failed to parse url from clientConfig: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (url.protocol !== 'https:') throw new Error(`failed to compute URL: expected https scheme, got ${url.protocol}`);
  url.pathname = joinPath(url.pathname, path);
  url.searchParams.set('timeout', goDuration(options.timeoutSeconds));
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const payload = Buffer.from(JSON.stringify(body));
  return await new Promise<unknown>((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
        ...(ca ? { ca } : {}),
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            req.destroy(new Error(`response larger than ${maxResponseBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            const shown = text.length > 512 ? `${text.slice(0, 512)}...` : text;
            reject(
              new Error(
                `got response with status code ${res.statusCode ?? 0} != 200: response : ${JSON.stringify(shown)}`,
              ),
            );
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new Error(`failed to decode response: ${errorMessage(err)}`, { cause: err }));
          }
        });
      },
    );
    req.on('error', (err) =>
      reject(
        signal.aborted && timeout.aborted ? new Error(`request timeout expired (${options.timeoutSeconds}s)`) : err,
      ),
    );
    req.end(payload);
  });
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw new Error('request timeout expired');
  return await new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('request timeout expired'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(errorMessage(err)));
      },
    );
  });
}
