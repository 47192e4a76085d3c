// Lambda entry of the topology controller: events from the forwarder and ticks from EventBridge Scheduler, through the
// middy chain in shared/runtime/ (everything else lives in shared/). Only this controller's reconciler is bundled.
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import { topologyReconciler } from '#shared/topology/controller.ts';

export const handler = createFunctionHandler(topologyReconciler);
