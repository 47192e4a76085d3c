// Lambda entry of the providers controller: events from the forwarder and ticks from EventBridge Scheduler, through the
// middy chain in shared/runtime/ (everything else lives in shared/). Only this controller's reconciler is bundled.
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import { providersReconciler } from '#shared/providers/controller.ts';

export const handler = createFunctionHandler(providersReconciler);
