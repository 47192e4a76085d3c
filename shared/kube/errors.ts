// Kubernetes API failures mapped once to typed errors carrying the server's Status.message (never the raw client
// exception, which would dump headers).
import { CapiError, describeObject, type ErrorFields } from '#shared/errors/index.ts';

/** The `metav1.Status` body the API server returns on failure. */
export type KubeStatus = {
  readonly kind?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly KubeCause[];
  };
};

export type KubeCause = { readonly reason?: string; readonly message?: string; readonly field?: string };

/** The group and kind the server's Status names (`details.group`, `details.kind`), as the webhook or server set them. */
export type KubeStatusGroupKind = { readonly group: string; readonly kind: string };

export class KubeError extends CapiError {
  readonly statusCode: number;
  readonly serverMessage: string;
  readonly causes: readonly KubeCause[];
  readonly statusGroupKind: KubeStatusGroupKind | undefined;

  constructor(
    message: string,
    statusCode: number,
    serverMessage: string,
    fields: ErrorFields,
    causes: readonly KubeCause[] = [],
    cause?: unknown,
    statusGroupKind?: KubeStatusGroupKind,
  ) {
    super(message, fields, cause === undefined ? undefined : { cause });
    this.statusCode = statusCode;
    this.serverMessage = serverMessage;
    this.causes = causes;
    this.statusGroupKind = statusGroupKind;
  }
}
export class KubeNotFoundError extends KubeError {}
export class KubeConflictError extends KubeError {}
export class KubeInvalidError extends KubeError {}
export class KubeForbiddenError extends KubeError {}
export class KubeUnavailableError extends KubeError {}

/**
 * The API server kept answering 429 (API priority and fairness, max-in-flight) and the caller's time ran out first:
 * the message names the object, says the server throttled it, and why the client stopped retrying.
 */
export class KubeThrottledError extends KubeUnavailableError {
  /** How many 429s this request met. */
  readonly throttles: number;
  /** The last Retry-After the server sent, in milliseconds. */
  readonly retryAfterMs: number;

  constructor(message: string, last: KubeError, throttles: number, retryAfterMs: number) {
    super(
      message,
      429,
      last.serverMessage,
      {
        ...(last.kind === undefined ? {} : { kind: last.kind }),
        ...(last.namespace === undefined ? {} : { namespace: last.namespace }),
        ...(last.objectName === undefined ? {} : { name: last.objectName }),
        reason: 'TooManyRequests',
      },
      last.causes,
      last,
      last.statusGroupKind,
    );
    this.throttles = throttles;
    this.retryAfterMs = retryAfterMs;
  }
}

export type RequestTarget = {
  readonly verb: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
};

/**
 * Builds the typed error for a failed response.
 *
 * @example
 * throw mapKubeError(404, body, { verb: 'get', kind: 'Cluster', namespace: 'default', name: 'c1' });
 * // KubeNotFoundError: failed to get Cluster default/c1: clusters.cluster.x-k8s.io "c1" not found
 */
export function mapKubeError(statusCode: number, body: unknown, target: RequestTarget, cause?: unknown): KubeError {
  const status = (typeof body === 'object' && body !== null ? body : {}) as KubeStatus;
  const serverMessage = status.message ?? (typeof body === 'string' && body ? body : `HTTP ${statusCode}`);
  const what = target.kind ? ` ${describeObject(target.kind, target.namespace, target.name)}` : '';
  const message = `failed to ${target.verb}${what}: ${serverMessage}`;
  const reason = status.reason ?? String(statusCode);
  const fields: ErrorFields = {
    ...(target.kind === undefined ? {} : { kind: target.kind }),
    ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
    ...(target.name === undefined ? {} : { name: target.name }),
    ...(status.details?.causes?.[0]?.field === undefined ? {} : { fieldPath: status.details.causes[0].field }),
    reason,
  };
  const causes = status.details?.causes ?? [];
  const d = status.details;
  const gk = d?.kind !== undefined ? { group: d.group ?? '', kind: d.kind } : undefined;
  const args = [message, statusCode, serverMessage, fields, causes] as const;
  if (statusCode === 404) return new KubeNotFoundError(...args, undefined, gk);
  if (statusCode === 409) return new KubeConflictError(...args, undefined, gk);
  // NOTE: the API server answers 500 when a server-side apply body does not fit the schema; retrying cannot help,
  // so it is an invalid object like any other validation failure.
  const invalidApply = statusCode === 500 && /failed to create typed (patch|live) object/.test(serverMessage);
  if (statusCode === 422 || statusCode === 400 || invalidApply) return new KubeInvalidError(...args, undefined, gk);
  if (statusCode === 401 || statusCode === 403) return new KubeForbiddenError(...args, undefined, gk);
  if (statusCode === 0 || statusCode >= 500 || statusCode === 429) {
    return new KubeUnavailableError(...args, cause, gk);
  }
  return new KubeError(...args, undefined, gk);
}

/**
 * The error for a request the API server throttled until the client gave up (`why`), keeping the last 429 as cause.
 *
 * @example
 * throw mapThrottledError(target, last429, 3, 1_000, 'as waiting 1.6 s would pass the deadline (0.9 s left)');
 * // failed to get ConfigMap default/a: the API server throttled the request (429 3 time(s), Retry-After 1 s); gave up as ...
 */
export function mapThrottledError(
  target: RequestTarget,
  last: KubeError,
  throttles: number,
  retryAfterMs: number,
  why: string,
): KubeThrottledError {
  const what = target.kind ? ` ${describeObject(target.kind, target.namespace, target.name)}` : '';
  const message =
    `failed to ${target.verb}${what}: the API server throttled the request (429 ${throttles} time(s), ` +
    `Retry-After ${retryAfterMs / 1000} s); gave up ${why}: ${last.serverMessage}`;
  return new KubeThrottledError(message, last, throttles, retryAfterMs);
}

export function isNotFound(err: unknown): err is KubeNotFoundError {
  return err instanceof KubeNotFoundError;
}
