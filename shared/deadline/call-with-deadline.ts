// Deadlines for every call to another service: each call gets its own cap, never beyond the deadline of the pass it
// runs in (the Lambda's remaining time), and a call that outlives it fails with an error naming the dependency.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CapiError } from '#shared/errors/index.ts';

/** The services a pass waits on, as they read in messages, logs and metric names. */
export const dependencies = {
  dynamoDB: 'DynamoDB',
  kubernetes: 'Kubernetes',
  eventBridge: 'EventBridge',
} as const;
export type Dependency = (typeof dependencies)[keyof typeof dependencies];

/** A call to `dependency` did not answer within `timeoutMs` (its own cap or what was left of the pass). */
export class DependencyTimeoutError extends CapiError {
  readonly dependency: Dependency;
  readonly operation: string;
  readonly timeoutMs: number;

  constructor(dependency: Dependency, operation: string, timeoutMs: number) {
    super(`${dependency} did not answer ${operation} within ${timeoutMs} ms`, { reason: 'DependencyTimeout' });
    this.dependency = dependency;
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** The DependencyTimeoutError in an error's cause chain, if any (store and kube errors wrap it). */
export function findDependencyTimeout(err: unknown): DependencyTimeoutError | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (e instanceof DependencyTimeoutError) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

type DeadlineScope = {
  readonly deadlineAtMs: number;
  /** Every timeout in this scope and the scopes nested in it (shared with them). */
  readonly timeouts: DependencyTimeoutError[];
};

const passDeadline = new AsyncLocalStorage<DeadlineScope>();

/**
 * Runs `fn` with every {@link callWithDeadline} inside it (however deep) bounded by `deadlineAtMs` (epoch ms).
 *
 * @example
 * await runWithDeadline(Date.now() + context.getRemainingTimeInMillis() - reserveMs, () => runPass(request));
 */
export function runWithDeadline<T>(deadlineAtMs: number, fn: () => Promise<T>): Promise<T> {
  const timeouts = passDeadline.getStore()?.timeouts ?? [];
  return passDeadline.run({ deadlineAtMs, timeouts }, fn);
}

/**
 * The last call that timed out inside the current {@link runWithDeadline} (or a scope nested in it), even when the
 * caller caught the error and turned it into an outcome.
 */
export function lastDependencyTimeout(): DependencyTimeoutError | undefined {
  return passDeadline.getStore()?.timeouts.at(-1);
}

/** Milliseconds left before the current deadline; undefined outside {@link runWithDeadline}. */
export function remainingBeforeDeadlineMs(now = Date.now()): number | undefined {
  const current = passDeadline.getStore();
  return current === undefined ? undefined : current.deadlineAtMs - now;
}

/**
 * Calls `fn` with a signal that aborts after `capMs` or at the current deadline, whichever is first, and rejects
 * with a {@link DependencyTimeoutError} then, even when `fn` ignores the signal.
 *
 * @example
 * await callWithDeadline('DynamoDB', 'GetItem', 5_000, (abortSignal) => documents.send(command, { abortSignal }));
 */
export async function callWithDeadline<T>(
  dependency: Dependency,
  operation: string,
  capMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const remaining = remainingBeforeDeadlineMs();
  const timeoutMs = Math.max(0, Math.floor(remaining === undefined ? capMs : Math.min(capMs, remaining)));
  const scope = passDeadline.getStore();
  if (timeoutMs <= 0) {
    const err = new DependencyTimeoutError(dependency, operation, 0);
    scope?.timeouts.push(err);
    throw err;
  }
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DependencyTimeoutError(dependency, operation, timeoutMs);
      scope?.timeouts.push(err);
      controller.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    const call = fn(controller.signal);
    // NOTE: a call that fails after the deadline already rejected must not surface as an unhandled rejection.
    call.catch(() => undefined);
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
  }
}
