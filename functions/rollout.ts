// Lambda entry of the rollout controller (ClusterRollout): events from the forwarder (the rollout and its Clusters)
// and ticks (due rollouts: a bake over, a window opening, a health gate's timeout). Everything else lives in shared/.
import { createFunctionHandler } from '#shared/runtime/create-function-handler.ts';
import { rolloutReconciler } from '#shared/rollout/controller.ts';

export const handler = createFunctionHandler(rolloutReconciler);
