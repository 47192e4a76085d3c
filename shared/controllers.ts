// The registry of the controllers this product runs, for the local bus, the e2e suite and the benches: each controller
// owns its wiring (facts, watch mapping, pass) in shared/<area>/controller.ts; the runtime itself knows no kinds.
// NOTE: a Lambda function imports its own controller.ts, never this file, so its bundle holds only that controller.
import type { Controller } from '#shared/checkpoint/index.ts';
import { addonsReconciler } from '#shared/addons/controller.ts';
import { providersReconciler } from '#shared/providers/controller.ts';
import { topologyReconciler } from '#shared/topology/controller.ts';
import { rolloutReconciler } from '#shared/rollout/controller.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

export const reconcilers: Readonly<Partial<Record<Controller, Reconciler>>> = {
  topology: topologyReconciler,
  addons: addonsReconciler,
  providers: providersReconciler,
  rollout: rolloutReconciler,
};
