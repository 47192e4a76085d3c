// One reconcile pass over one object, as a middy chain: state → skip when unchanged → lease → reconcile →
// record the checkpoint (and release the lease). Events and ticks both run passes through this.
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { attachPassState, describeKey, passStateOf, type PassRequest } from '#shared/runtime/pass-state.ts';
import type { LambdaContextLike } from '#shared/runtime/lambda-context.ts';
import { holdLease } from '#shared/runtime/middlewares/hold-lease.ts';
import { recordOutcome } from '#shared/runtime/middlewares/record-outcome.ts';
import { skipUnchanged } from '#shared/runtime/middlewares/skip-unchanged.ts';
import type { PassReport, Reconciler, RuntimeDeps } from '#shared/runtime/types.ts';

export type PassRunner = (request: PassRequest, context: LambdaContextLike) => Promise<PassReport>;

/** Middleware: names the pass (`<request id>#<Kind ns/name>`) and gives it a logger that says so on every line. */
function namePass(reconciler: Reconciler, deps: RuntimeDeps): MiddlewareObj<PassRequest, PassReport> {
  return {
    name: 'namePass',
    before: (request) => {
      const { key } = request.event;
      const context = request.context as unknown as LambdaContextLike;
      const passId = `${context.awsRequestId}#${describeKey(key)}`;
      attachPassState(request.event, {
        passId,
        checkpointKey: { controller: reconciler.controller, kind: key.kind, namespace: key.namespace, name: key.name },
        logger: deps.logger.createChild({
          persistentKeys: {
            controller: reconciler.controller,
            object: describeKey(key),
            passId,
            trigger: request.event.trigger,
          },
        }),
      });
      return undefined;
    },
  };
}

/**
 * Builds the pass pipeline of a reconciler. middy's early timeout aborts the pass `config.stopBeforeTimeoutMs`
 * before the Lambda deadline (the reconciler sees `ctx.signal` abort) and the checkpoint is still written.
 *
 * @example
 * const runPass = createPassRunner(topologyReconciler, deps);
 * await runPass({ key, trigger: event.id }, context); // { status: 'Ran', result: 'Success', changed: [...] }
 */
export function createPassRunner(reconciler: Reconciler, deps: RuntimeDeps): PassRunner {
  const handler = middy<PassRequest, PassReport>(
    async (event: PassRequest, _context: unknown, { signal }: { signal: AbortSignal }): Promise<PassReport> => {
      const state = passStateOf(event);
      if (!state.facts) throw new Error('the pass handler runs after skipUnchanged, which reads the facts');
      state.logger.info('pass started');
      state.outcome = await reconciler.reconcile(deps, event.key, {
        passId: state.passId,
        facts: state.facts,
        previous: state.previous,
        signal,
        logger: state.logger,
      });
      return { key: event.key, passId: state.passId, status: 'Ran', reason: state.outcome.result };
    },
    { timeoutEarlyInMillis: deps.config.stopBeforeTimeoutMs },
  )
    .use(namePass(reconciler, deps))
    .use(skipUnchanged(reconciler, deps))
    .use(holdLease(deps))
    .use(recordOutcome(deps));
  // NOTE: a fresh request object per pass: the pass state is keyed by it.
  return (request, context) => handler({ ...request }, context as never);
}
