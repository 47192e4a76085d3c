// The Lambda entry of a controller: config from the environment and the logger once per cold start, then the
// controller handler around the reconciler its function module passes in.
import { Tracer } from '@aws-lambda-powertools/tracer';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { computeRuntimeConfig } from '#shared/runtime/config.ts';
import { createMetrics } from '#shared/runtime/middlewares/record-metrics.ts';
import {
  createControllerHandler,
  type ControllerHandler,
  type ControllerHandlerOptions,
} from '#shared/runtime/create-controller-handler.ts';
import { createLogger, createRuntimeDepsFactory } from '#shared/runtime/create-runtime-deps.ts';
import { createEventBridgeFanOut } from '#shared/runtime/eventbridge-fan-out.ts';
import type { FanOutSink } from '#shared/runtime/fan-out.ts';
import { createSchedulerWakeUpDeletes, createSchedulerWakeUps } from '#shared/runtime/scheduler-wake-ups.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

/**
 * Builds a function's handler at module scope (cold start); throws at cold start when the environment is invalid,
 * so a broken deployment fails loudly instead of dropping events.
 *
 * NOTE: the reconciler is passed in (not looked up in shared/controllers.ts) so each function's bundle
 * holds only its own controller's code.
 *
 * `local.fanOut` is the local bus's sink (local mode, the benches); on AWS the handler fans out on EVENT_BUS_NAME.
 *
 * @example
 * export const handler = createFunctionHandler(topologyReconciler); // functions/topology.ts
 */
export function createFunctionHandler(
  reconciler: Reconciler,
  env: Readonly<Record<string, string | undefined>> = process.env,
  local: { readonly fanOut?: FanOutSink } = {},
  hooks: Pick<ControllerHandlerOptions, 'onTick'> = {},
): ControllerHandler {
  const config = computeRuntimeConfig(env);
  const serviceName = `capi-serverless-${reconciler.controller}`;
  const logger = createLogger(reconciler.controller, config);
  // NOTE: the local bus passes its own sink; on AWS the bus named by EVENT_BUS_NAME (unset: no fan-out).
  const { eventBusName } = config.fanOut;
  const fanOut =
    local.fanOut ??
    (eventBusName === undefined
      ? undefined
      : createEventBridgeFanOut({ client: new EventBridgeClient({ region: config.region }), eventBusName, logger }));
  // NOTE: SCHEDULE_GROUP_NAME and SCHEDULER_ROLE_ARN (the stack sets both): requeued passes get one-time schedules.
  // NOTE: the same group and client delete the schedule of a pass that no longer asks to run again.
  const scheduling =
    config.wakeUps === undefined
      ? undefined
      : { ...config.wakeUps, client: new SchedulerClient({ region: config.region }), logger };
  const wakeUps = scheduling === undefined ? undefined : createSchedulerWakeUps(scheduling);
  const wakeUpDeletes = scheduling === undefined ? undefined : createSchedulerWakeUpDeletes(scheduling);
  return createControllerHandler({
    ...hooks,
    ...(fanOut ? { fanOut } : {}),
    ...(wakeUps ? { wakeUps } : {}),
    ...(wakeUpDeletes ? { wakeUpDeletes } : {}),
    reconciler,
    logger,
    getDeps: createRuntimeDepsFactory(reconciler.controller, config, logger),
    metrics: createMetrics(),
    tracer: new Tracer({ serviceName }),
  });
}
