// The one place that wires each controller's reconcile pass into its Lambda function and the local bus.
// NOTE: the passes of the topology, addons and providers issues register here as they land, one line each:
//   import { topologyReconciler } from '#shared/topology/index.ts';  →  topology: topologyReconciler,
import type { Controller } from '#shared/checkpoint/index.ts';
import type { Reconciler } from '#shared/runtime/types.ts';

export const reconcilers: Readonly<Partial<Record<Controller, Reconciler>>> = {};
