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
    readonly kind?: string;
    readonly causes?: readonly KubeCause[];
  };
};

export type KubeCause = { readonly reason?: string; readonly message?: string; readonly field?: string };

export class KubeError extends CapiError {
  readonly statusCode: number;
  readonly serverMessage: string;
  readonly causes: readonly KubeCause[];

  constructor(
    message: string,
    statusCode: number,
    serverMessage: string,
    fields: ErrorFields,
    causes: readonly KubeCause[] = [],
    cause?: unknown,
  ) {
    super(message, fields, cause === undefined ? undefined : { cause });
    this.statusCode = statusCode;
    this.serverMessage = serverMessage;
    this.causes = causes;
  }
}
export class KubeNotFoundError extends KubeError {}
export class KubeConflictError extends KubeError {}
export class KubeInvalidError extends KubeError {}
export class KubeForbiddenError extends KubeError {}
export class KubeUnavailableError extends KubeError {}

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
  if (statusCode === 404) return new KubeNotFoundError(message, statusCode, serverMessage, fields, causes);
  if (statusCode === 409) return new KubeConflictError(message, statusCode, serverMessage, fields, causes);
  // NOTE: the API server answers 500 when a server-side apply body does not fit the schema; retrying cannot help,
  // so it is an invalid object like any other validation failure.
  const invalidApply = statusCode === 500 && /failed to create typed (patch|live) object/.test(serverMessage);
  if (statusCode === 422 || statusCode === 400 || invalidApply)
    return new KubeInvalidError(message, statusCode, serverMessage, fields, causes);
  if (statusCode === 401 || statusCode === 403)
    return new KubeForbiddenError(message, statusCode, serverMessage, fields, causes);
  if (statusCode === 0 || statusCode >= 500 || statusCode === 429) {
    return new KubeUnavailableError(message, statusCode, serverMessage, fields, causes, cause);
  }
  return new KubeError(message, statusCode, serverMessage, fields, causes);
}

export function isNotFound(err: unknown): err is KubeNotFoundError {
  return err instanceof KubeNotFoundError;
}
