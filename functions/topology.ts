// Lambda entry of the topology controller: events from the forwarder and ticks from EventBridge Scheduler, through the
// middy chain in shared/runtime/ (everything else lives in shared/).
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';

export const handler = createFunctionHandler('topology');
