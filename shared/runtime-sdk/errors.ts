// Errors of Runtime SDK calls: they name the extension, the handler and the hook, as upstream's messages do.
import { CapiError } from '#shared/errors/index.ts';

/** Why a call failed: the handler could not be reached or answered garbage (failurePolicy applies), or said Failure. */
export const extensionFailures = { call: 'ExtensionCallFailed', response: 'ExtensionResponseFailure' } as const;
export type ExtensionFailure = (typeof extensionFailures)[keyof typeof extensionFailures];

/**
 * A Runtime SDK call that did not succeed. `failure: 'ExtensionCallFailed'` (network, TLS, timeout, status code,
 * undecodable body) is what `failurePolicy: Ignore` forgives; a `Failure` answer never is.
 */
export class RuntimeExtensionError extends CapiError {
  readonly extension: string;
  readonly handler: string | undefined;
  readonly hook: string;
  readonly failure: ExtensionFailure;

  constructor(
    what: { readonly extension: string; readonly handler?: string; readonly hook: string },
    failure: ExtensionFailure,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const subject =
      what.handler === undefined
        ? `failed to discover extension "${what.extension}"`
        : `failed to call extension handler "${what.handler}" (${what.hook})`;
    super(`${subject}: ${detail}`, { kind: 'ExtensionConfig', name: what.extension, reason: failure }, options);
    this.extension = what.extension;
    this.handler = what.handler;
    this.hook = what.hook;
    this.failure = failure;
  }
}
