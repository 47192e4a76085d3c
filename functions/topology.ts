// Lambda entry of the topology controller: events from the forwarder and ticks from EventBridge Scheduler, through the
// middy chain in shared/runtime/ (everything else lives in shared/). Only this controller's reconciler is bundled.
// Its ticks also run the health check (the forwarder's heartbeat, shared/health/), which the stack's one alarm watches.
import { runHealthCheck } from '#shared/health/run-health-check.ts';
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import { topologyReconciler } from '#shared/topology/controller.ts';

export const handler = createFunctionHandler(topologyReconciler, process.env, {}, { onTick: runHealthCheck });
