// Local mode's EventBridge: routes object changes by kind to the same controller handlers Lambda runs, in
// process, sends ticks on a timer and delivers the batches a handler fans out (each its own invocation, as on
// Lambda, here sharing one process). Also a forwarder sink, so the forwarder can feed it directly.
// At most `concurrency` invocations of a controller run at once; the others wait in order, as throttled asynchronous
// invocations wait in Lambda's queue, and their "Lambda timeout" starts when they run. Without the limit a burst
// (100 Clusters created at once: 3,000 events in 10 minutes) started every invocation together in this one process,
// where they queued for the shared client's 16 sockets while their 5-minute deadline ran, and failed.
import { randomUUID } from 'node:crypto';
import type { Controller } from '#shared/checkpoint/index.ts';
import { errorMessage } from '#shared/errors/index.ts';
import type { ControllerHandler, HandlerResult } from '#shared/runtime/create-controller-handler.ts';
import {
  objectChangedEvent,
  passesRequestedEvent,
  tickEvent,
  type ObjectChange,
  type PassesRequested,
  type RuntimeEvent,
} from '#shared/runtime/events.ts';
import { localLambdaContext } from '#shared/runtime/lambda-context.ts';
import { routeChange } from '#shared/runtime/routes.ts';

export type LocalBusOptions = {
  readonly handlers: Readonly<Partial<Record<Controller, ControllerHandler>>>;
  /** The "Lambda timeout" of each invocation (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Called with every invocation's result (e.g. to print progress). */
  readonly onResult?: (controller: Controller, event: RuntimeEvent, result: HandlerResult) => void;
  readonly onError?: (controller: Controller, event: RuntimeEvent, error: unknown) => void;
  /** Delay before the first retry of a failed event invocation (doubled for the second; default 1 s). */
  readonly retryDelayMs?: number;
  /** Invocations of one controller running at once (default {@link defaultLocalConcurrency}); the rest wait. */
  readonly concurrency?: number;
};

/** One process's Kubernetes client has 16 sockets (shared/kube/client.ts): as many invocations as that at once. */
export const defaultLocalConcurrency = 16;

export type LocalBus = {
  /** Delivers changes like PutEvents: returns once accepted; the invocations run in the background. */
  putEvents(changes: readonly ObjectChange[]): Promise<readonly ObjectChange[]>;
  /** A handler's fan-out sink: each request invokes its controller once, in the background; none is refused. */
  putPassRequests(requests: readonly PassesRequested[]): Promise<readonly PassesRequested[]>;
  /** Sends one tick to each controller (or one) and waits for the sweeps. */
  tick(controller?: Controller): Promise<void>;
  /** Ticks every `intervalMs` until `stop()`. */
  startTicks(intervalMs: number): void;
  /** Waits until every invocation started so far has finished. */
  drain(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Creates the in-process bus.
 *
 * @example
 * const bus = createLocalBus({ handlers: { topology: createControllerHandler(...) }, onResult: print });
 * // a handler fans out through the bus it is on: createFunctionHandler(reconciler, env, { fanOut: (r) => bus.putPassRequests(r) })
 * await startForwarder({ ..., sink: bus.putEvents });
 */
export function createLocalBus(options: LocalBusOptions): LocalBus {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const retryAttempts = 2;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const concurrency = options.concurrency ?? defaultLocalConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const inFlight = new Set<Promise<void>>();
  const running = new Map<Controller, number>();
  const waiting = new Map<Controller, (() => void)[]>();
  let timer: ReturnType<typeof setInterval> | undefined;

  /** Resolves when one of `controller`'s invocation slots is free (and takes it). */
  async function takeSlot(controller: Controller): Promise<void> {
    if ((running.get(controller) ?? 0) < concurrency) {
      running.set(controller, (running.get(controller) ?? 0) + 1);
      return;
    }
    // NOTE: a released slot passes straight to the next waiter, so the count stays as it is.
    await new Promise<void>((resolve) => {
      const queue = waiting.get(controller) ?? [];
      queue.push(resolve);
      waiting.set(controller, queue);
    });
  }

  function releaseSlot(controller: Controller): void {
    const next = waiting.get(controller)?.shift();
    if (next) next();
    else running.set(controller, (running.get(controller) ?? 1) - 1);
  }

  async function runHandler(controller: Controller, handler: ControllerHandler, event: RuntimeEvent) {
    await takeSlot(controller);
    try {
      return await handler(event, localLambdaContext(controller, timeoutMs));
    } finally {
      releaseSlot(controller);
    }
  }

  function invoke(controller: Controller, event: RuntimeEvent, attempt = 0): Promise<void> {
    const handler = options.handlers[controller];
    if (!handler) return Promise.resolve();
    const run = runHandler(controller, handler, event)
      .then((result) => options.onResult?.(controller, event, result))
      .catch(async (err: unknown) => {
        if (options.onError) options.onError(controller, event, err);
        else console.error(`${controller} failed on event ${event.id}: ${errorMessage(err)}`);
        // NOTE: as Lambda does with a failed asynchronous invocation of an event: two more tries, later.
        if (event['detail-type'] !== 'Tick' && attempt < retryAttempts) {
          await new Promise((resolve) => setTimeout(resolve, retryDelayMs * (attempt + 1)));
          await invoke(controller, event, attempt + 1);
        }
      })
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
    return run;
  }

  async function tick(controller?: Controller): Promise<void> {
    const targets = controller ? [controller] : (Object.keys(options.handlers) as Controller[]);
    await Promise.all(targets.map((c) => invoke(c, tickEvent(c, randomUUID(), new Date()))));
  }

  return {
    putEvents(changes) {
      for (const change of changes) {
        const event = objectChangedEvent(change, randomUUID(), new Date());
        for (const controller of routeChange(change)) void invoke(controller, event);
      }
      return Promise.resolve([]);
    },
    putPassRequests(requests) {
      for (const request of requests)
        void invoke(request.controller, passesRequestedEvent(request, randomUUID(), new Date()));
      return Promise.resolve([]);
    },
    tick,
    startTicks(intervalMs) {
      if (timer) clearInterval(timer);
      timer = setInterval(() => void tick(), intervalMs);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
