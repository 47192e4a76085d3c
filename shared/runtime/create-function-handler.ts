// The Lambda entry of a controller: config from the environment and the logger once per cold start, then the
// controller handler around the reconciler its function module passes in.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { metricsNamespace } from '#shared/runtime/middlewares/record-metrics.ts';
import { createControllerHandler, type ControllerHandler } from '#shared/runtime/create-controller-handler.ts';
import { createLogger, createRuntimeDepsFactory } from '#shared/runtime/create-runtime-deps.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

/**
 * Builds a function's handler at module scope (cold start); throws at cold start when the environment is invalid,
 * so a broken deployment fails loudly instead of dropping events.
 *
 * NOTE: the reconciler is passed in (not looked up in shared/runtime/reconcilers.ts) so each function's bundle
 * holds only its own controller's code.
 *
 * @example
 * export const handler = createFunctionHandler(topologyReconciler); // functions/topology.ts
 */
export function createFunctionHandler(
  reconciler: Reconciler,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ControllerHandler {
  const config = computeRuntimeConfig(env);
  const serviceName = `capi-serverless-${reconciler.controller}`;
  const logger = createLogger(reconciler.controller, config);
  return createControllerHandler({
    reconciler,
    logger,
    getDeps: createRuntimeDepsFactory(reconciler.controller, config, logger),
    metrics: new Metrics({ namespace: metricsNamespace, serviceName }),
    tracer: new Tracer({ serviceName }),
  });
}
