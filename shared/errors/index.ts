// Errors people can act on: one base class, typed subclasses with structured fields, messages that chain.

/** Structured facts every error can carry; all optional so each subclass fills what it knows. */
export type ErrorFields = {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly fieldPath?: string;
  /** A CamelCase reason, used when the error ends up in a condition. */
  readonly reason?: string;
};

/**
 * Base of every error capi-serverless raises on purpose.
 *
 * @example
 * throw new CapiError('failed to compute desired state', { kind: 'Cluster', namespace: 'default', name: 'c1' });
 */
export class CapiError extends Error {
  readonly kind: string | undefined;
  readonly namespace: string | undefined;
  readonly objectName: string | undefined;
  readonly fieldPath: string | undefined;
  readonly reason: string | undefined;

  constructor(message: string, fields: ErrorFields = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = fields.kind;
    this.namespace = fields.namespace;
    this.objectName = fields.name;
    this.fieldPath = fields.fieldPath;
    this.reason = fields.reason;
  }
}

/** Input that does not match a schema or a rule; names the object and the field path. */
export class ValidationError extends CapiError {}

/** `kind namespace/name` (or `kind name` for cluster-scoped objects), the way messages name objects. */
export function describeObject(kind: string, namespace: string | undefined, name: string | undefined): string {
  const key = namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
  return `${kind} ${key}`.trim();
}

/** The message of anything thrown, without stack or headers. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : JSON.stringify(err);
}
