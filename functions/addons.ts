// Lambda entry of the addons controller: events from the forwarder and ticks from EventBridge Scheduler, through the
// middy chain in shared/runtime/ (everything else lives in shared/). Only this controller's reconciler is bundled.
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import { addonsReconciler } from '#shared/addons/controller.ts';

export const handler = createFunctionHandler(addonsReconciler);
