// The one place that wires each controller's reconcile pass into its Lambda function and the local bus: one
// adapter per controller in shared/runtime/reconcilers/ maps the runtime's Reconciler contract onto the pass.
import type { Controller } from '#shared/checkpoint/index.ts';
import { addonsReconciler } from '#shared/runtime/reconcilers/addons-reconciler.ts';
import { providersReconciler } from '#shared/runtime/reconcilers/providers-reconciler.ts';
import { topologyReconciler } from '#shared/runtime/reconcilers/topology-reconciler.ts';
import { rolloutReconciler } from '#shared/rollout/controller.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

export const reconcilers: Readonly<Partial<Record<Controller, Reconciler>>> = {
  topology: topologyReconciler,
  addons: addonsReconciler,
  providers: providersReconciler,
  rollout: rolloutReconciler,
};
