// The events the functions accept: EventBridge envelopes carrying an object change (from the forwarder), a tick
// (the sweep schedule), a pass that is due (a one-time schedule a requeued pass asked for), or a batch of passes a
// function fanned out (from the functions), validated with zod at the edge.
import * as z from 'zod';
import { controllers } from '#shared/checkpoint/index.ts';
import { ValidationError } from '#shared/errors/index.ts';

/** `source` and `detail-type` of the events capi-serverless puts on its bus. */
export const eventSources = {
  forwarder: 'capi-serverless.forwarder',
  scheduler: 'capi-serverless.scheduler',
  fanOut: 'capi-serverless.fanout',
} as const;
export const detailTypes = {
  objectChanged: 'Object Changed',
  tick: 'Tick',
  passDue: 'Pass Due',
  passesRequested: 'Passes Requested',
} as const;

const dnsName = z.string().min(1).max(253);

/** The compact description of one object change the forwarder emits (one EventBridge entry each). */
export const ObjectChange = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().default(''),
  name: dnsName,
  uid: z.string().optional(),
  generation: z.number().int().nonnegative().optional(),
  resourceVersion: z.string().optional(),
  /** Watch event type; SYNC for objects found (changed or gone) by a relist. */
  type: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'SYNC']),
  /**
   * For an object a topology owns (control plane, MachineDeployment, MachinePool): its Cluster's name, from the
   * `cluster.x-k8s.io/cluster-name` label. The forwarder sends these only when a status field the topology waits
   * on changed, one entry per Cluster per coalescing window. Also for a template a topology owns (the clone a
   * MachineDeployment, MachinePool or control plane references), each change on its own, a modification only when
   * it moved the template's generation, labels or annotations.
   */
  cluster: dnsName.optional(),
  /**
   * For an object a topology owns: its generation changed since the forwarder last saw it (a spec write, by the
   * topology pass or anyone else). The forwarder sends such a change on its own, never coalesced with another
   * object's, so the pass can tell a user's edit from its own write by the generation.
   */
  generationChanged: z.literal(true).optional(),
  /**
   * For an object a topology owns: the hash of its labels and annotations and of the topology's managed-fields mark
   * (computeMetadataHash), so the pass tells someone else's edit of a label or annotation (no generation moves), or a
   * write that dropped its managed fields, from its own write; `metadataChanged` when it changed since the forwarder
   * last saw it (sent on its own too, as `generationChanged`). For a Cluster: its managed-fields mark alone
   * (computeClusterMetadataHash).
   */
  metadataHash: z.string().min(1).max(64).optional(),
  metadataChanged: z.literal(true).optional(),
  /**
   * The controllers whose view of the object changed (the forwarder knows it for Clusters, which three controllers
   * read for different fields); absent: every controller the kind is routed to (see `routeChange`).
   */
  controllers: z.array(z.enum(controllers)).min(1).optional(),
});
export type ObjectChange = z.infer<typeof ObjectChange>;

export const TickDetail = z.object({ controller: z.enum(controllers) });
export type TickDetail = z.infer<typeof TickDetail>;

/**
 * A pass whose due time has come: the one-time schedule a pass that asked to run again created (see
 * shared/runtime/scheduler-wake-ups.ts). `dueAt` is the time it asked for (epoch ms), for logs.
 */
export const PassDue = z.object({
  controller: z.enum(controllers),
  key: z.object({
    apiVersion: z.string().min(1),
    kind: z.string().min(1),
    namespace: z.string().default(''),
    name: dnsName,
  }),
  dueAt: z.number().int().nonnegative(),
});
export type PassDue = z.infer<typeof PassDue>;

/** The most keys one fanned-out event may carry (an EventBridge entry holds 256 KB; a key is a few hundred bytes). */
export const maxKeysPerRequest = 100;

const PassKeyDetail = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().default(''),
  name: dnsName,
  force: z.boolean().optional(),
  wake: z.boolean().optional(),
  ownedChange: z
    .object({
      object: z.string().min(1),
      generation: z.number().int().nonnegative(),
      metadata: z.string().min(1).max(64).optional(),
    })
    .optional(),
});

/**
 * A mapping another invocation goes on with: the change, and where its paged LIST stopped (the API server's
 * `continue` token) because the invocation that started it was running out of time.
 */
export const MappingContinued = z.object({
  change: ObjectChange,
  continue: z.string().min(1).max(8_192),
});
export type MappingContinued = z.infer<typeof MappingContinued>;

/**
 * Passes one invocation hands to another invocation of the same controller (see shared/runtime/fan-out.ts): the keys
 * an object change mapped to, beyond what one invocation runs itself; or, with `mapping` and no keys, the rest of a
 * mapping to go on with.
 */
export const PassesRequested = z
  .object({
    controller: z.enum(controllers),
    /** What the passes run for, e.g. `event <id>` of the change that was mapped. */
    trigger: z.string().min(1).max(512),
    keys: z.array(PassKeyDetail).max(maxKeysPerRequest),
    mapping: MappingContinued.optional(),
  })
  .refine((r) => r.keys.length > 0 || r.mapping !== undefined, {
    message: 'passes requested without keys or a mapping to go on with',
    path: ['keys'],
  });
export type PassesRequested = z.infer<typeof PassesRequested>;

const envelope = {
  version: z.string().optional(),
  id: z.string().min(1),
  account: z.string().optional(),
  time: z.string().optional(),
  region: z.string().optional(),
  resources: z.array(z.string()).optional(),
};

/** An EventBridge event as Lambda receives it. */
export const RuntimeEvent = z.discriminatedUnion('detail-type', [
  z.object({
    ...envelope,
    'detail-type': z.literal(detailTypes.objectChanged),
    source: z.literal(eventSources.forwarder),
    detail: ObjectChange,
  }),
  z.object({
    ...envelope,
    'detail-type': z.literal(detailTypes.tick),
    source: z.literal(eventSources.scheduler),
    detail: TickDetail,
  }),
  z.object({
    ...envelope,
    'detail-type': z.literal(detailTypes.passDue),
    source: z.literal(eventSources.scheduler),
    detail: PassDue,
  }),
  z.object({
    ...envelope,
    'detail-type': z.literal(detailTypes.passesRequested),
    source: z.literal(eventSources.fanOut),
    detail: PassesRequested,
  }),
]);
export type RuntimeEvent = z.infer<typeof RuntimeEvent>;

/** An event that does not match {@link RuntimeEvent}; it is dropped, never retried. */
export class MalformedEventError extends ValidationError {}

/**
 * Parses an event; throws {@link MalformedEventError} whose message lists every problem with its path.
 *
 * @example
 * parseRuntimeEvent({ 'detail-type': 'Tick', source: 'capi-serverless.scheduler', id: '1', detail: { controller: 'addons' } });
 */
export function parseRuntimeEvent(raw: unknown): RuntimeEvent {
  const parsed = RuntimeEvent.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; ');
  throw new MalformedEventError(
    `rejected malformed event: ${problems}`,
    { fieldPath: parsed.error.issues[0]?.path.join('.') ?? '', reason: 'MalformedEvent' },
    { cause: parsed.error },
  );
}

/**
 * The EventBridge event of an object change, as the local bus and tests build it (the forwarder's PutEvents
 * entries become exactly this on AWS).
 */
export function objectChangedEvent(change: ObjectChange, id: string, time: Date): RuntimeEvent {
  return {
    version: '0',
    id,
    'detail-type': detailTypes.objectChanged,
    source: eventSources.forwarder,
    time: time.toISOString(),
    resources: [],
    detail: change,
  };
}

/** The event a tick schedule sends (infra/ writes the same shape as the Scheduler target's input). */
export function tickEvent(controller: TickDetail['controller'], id: string, time: Date): RuntimeEvent {
  return {
    version: '0',
    id,
    'detail-type': detailTypes.tick,
    source: eventSources.scheduler,
    time: time.toISOString(),
    resources: [],
    detail: { controller },
  };
}

/** The event a one-time schedule sends when a requeued pass is due (the Scheduler target's input is exactly this). */
export function passDueEvent(detail: PassDue, id: string, time: Date): RuntimeEvent {
  return {
    version: '0',
    id,
    'detail-type': detailTypes.passDue,
    source: eventSources.scheduler,
    time: time.toISOString(),
    resources: [],
    detail,
  };
}

/** The event of passes fanned out to another invocation (the functions' PutEvents entries become this on AWS). */
export function passesRequestedEvent(request: PassesRequested, id: string, time: Date): RuntimeEvent {
  return {
    version: '0',
    id,
    'detail-type': detailTypes.passesRequested,
    source: eventSources.fanOut,
    time: time.toISOString(),
    resources: [],
    detail: request,
  };
}
