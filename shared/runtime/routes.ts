// Which controller hears about which kind: one table that the EventBridge rules (infra/), the local bus and the
// forwarder's watch list are all derived from.
import type { Controller } from '#shared/checkpoint/index.ts';
import { detailTypes, eventSources, type ObjectChange } from '#shared/runtime/events.ts';

export type Route = {
  readonly controller: Controller;
  /** Kinds routed by exact name. */
  readonly kinds: readonly string[];
  /** Kinds routed by name suffix, e.g. every `*Template` (provider templates a ClusterClass references). */
  readonly kindSuffixes: readonly string[];
};

/** The provider kinds of the Cluster API operator (`operator.cluster.x-k8s.io`). */
export const providerKinds = [
  'CoreProvider',
  'BootstrapProvider',
  'ControlPlaneProvider',
  'InfrastructureProvider',
  'AddonProvider',
  'IPAMProvider',
  'RuntimeExtensionProvider',
] as const;

export const routes: readonly Route[] = [
  {
    controller: 'topology',
    // NOTE: MachineDeployment, MachinePool, every `*ControlPlane` and every InfrastructureCluster (`*Cluster`) arrive
    // only when a topology owns them and their generation, labels, annotations or a status field the pass waits on
    // changed (the forwarder filters; a status-only change only while the Cluster is not settled, see
    // functions/forwarder/compute-settled-topology.ts); they wake the owning Cluster's requeue, or run it when someone
    // else edited them.
    kinds: ['Cluster', 'ClusterClass', 'ExtensionConfig', 'MachineDeployment', 'MachinePool'],
    kindSuffixes: ['Template', 'ControlPlane', 'Cluster'],
  },
  {
    controller: 'addons',
    kinds: ['Cluster', 'ClusterResourceSet', 'ClusterResourceSetBinding', 'ConfigMap', 'Secret'],
    kindSuffixes: [],
  },
  { controller: 'providers', kinds: [...providerKinds, 'ConfigMap', 'Secret'], kindSuffixes: [] },
  // NOTE: Cluster events reach the rollouts that select or track the Cluster (its health gate and topology).
  { controller: 'rollout', kinds: ['ClusterRollout', 'Cluster'], kindSuffixes: [] },
];

/** The controllers an event about `kind` goes to. */
export function routeKind(kind: string): Controller[] {
  return routes
    .filter((r) => r.kinds.includes(kind) || r.kindSuffixes.some((s) => kind.endsWith(s)))
    .map((r) => r.controller);
}

/**
 * The controllers one change goes to: those its kind is routed to, narrowed to `change.controllers` when the
 * forwarder named them (a Cluster change that only the rollout's health gate reads wakes no topology or add-on pass).
 *
 * @example
 * routeChange({ kind: 'Cluster', controllers: ['rollout'] }); // ['rollout']
 */
export function routeChange(change: Pick<ObjectChange, 'kind' | 'controllers'>): Controller[] {
  const routed = routeKind(change.kind);
  const named = change.controllers;
  return named === undefined ? routed : routed.filter((c) => named.includes(c));
}

/**
 * The EventBridge event pattern of a route: object changes from the forwarder whose `detail.kind` matches and that
 * name no controllers or name this route's (the same rule as {@link routeChange}).
 *
 * @example
 * eventPatternOf(routes[0]); // { source: ['capi-serverless.forwarder'], 'detail-type': ['Object Changed'], detail: { kind: ['Cluster', ..., { suffix: 'Template' }, { suffix: 'ControlPlane' }], $or: [{ controllers: [{ exists: false }] }, { controllers: ['topology'] }] } }
 */
export function eventPatternOf(route: Route): {
  source: string[];
  'detail-type': string[];
  detail: {
    kind: (string | { suffix: string })[];
    $or: [{ controllers: [{ exists: false }] }, { controllers: [Controller] }];
  };
} {
  return {
    source: [eventSources.forwarder],
    'detail-type': [detailTypes.objectChanged],
    detail: {
      kind: [...route.kinds, ...route.kindSuffixes.map((suffix) => ({ suffix }))],
      $or: [{ controllers: [{ exists: false }] }, { controllers: [route.controller] }],
    },
  };
}

/**
 * The EventBridge event pattern of the batches of passes a controller's invocations fan out to that controller.
 *
 * @example
 * fanOutPatternOf('topology'); // { source: ['capi-serverless.fanout'], 'detail-type': ['Passes Requested'], detail: { controller: ['topology'] } }
 */
export function fanOutPatternOf(controller: Controller): {
  source: string[];
  'detail-type': string[];
  detail: { controller: string[] };
} {
  return {
    source: [eventSources.fanOut],
    'detail-type': [detailTypes.passesRequested],
    detail: { controller: [controller] },
  };
}
