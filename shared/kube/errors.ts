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

export function isNotFound(err: unknown): err is KubeNotFoundError {
  return err instanceof KubeNotFoundError;
}
