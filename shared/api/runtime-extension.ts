// `runtime.cluster.x-k8s.io` ExtensionConfig (v1beta2, and v1alpha1 read the same way) and the Runtime SDK hook
// wire types (`hooks.runtime.cluster.x-k8s.io/v1alpha1`) the topology pass sends and receives.
import * as z from 'zod';
import { KubeObjectMeta, StringMap } from '#shared/api/object-meta.ts';
import { LabelSelector } from '#shared/api/label-selector.ts';

export const runtimeGroup = 'runtime.cluster.x-k8s.io';
export const hooksGroupVersion = 'hooks.runtime.cluster.x-k8s.io/v1alpha1';

/** Handlers that answer with an error or cannot be reached: fail the caller, or act as if they said Success. */
export const FailurePolicy = z.enum(['Ignore', 'Fail']);
export type FailurePolicy = z.infer<typeof FailurePolicy>;

export const ServiceReference = z.object({
  namespace: z.string().min(1),
  name: z.string().min(1),
  path: z.string().optional(),
  port: z.number().int().min(1).max(65535).optional(),
});
export type ServiceReference = z.infer<typeof ServiceReference>;

export const ClientConfig = z.object({
  url: z.string().optional(),
  service: ServiceReference.optional(),
  /** PEM CA bundle, base64 in the object (a `[]byte` field). */
  caBundle: z.string().optional(),
});
export type ClientConfig = z.infer<typeof ClientConfig>;

export const ExtensionHandler = z.object({
  name: z.string().min(1),
  requestHook: z.object({ apiVersion: z.string().min(1), hook: z.string().min(1) }),
  timeoutSeconds: z.number().int().optional(),
  failurePolicy: FailurePolicy.optional(),
});
export type ExtensionHandler = z.infer<typeof ExtensionHandler>;

/** metav1.Condition, as v1beta2 objects carry them. */
export const MetaCondition = z.object({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  observedGeneration: z.number().int().optional(),
  lastTransitionTime: z.string(),
  reason: z.string(),
  message: z.string(),
});
export type MetaCondition = z.infer<typeof MetaCondition>;

export const ExtensionConfig = z.object({
  apiVersion: z.enum([`${runtimeGroup}/v1beta2`, `${runtimeGroup}/v1alpha1`]),
  kind: z.literal('ExtensionConfig'),
  metadata: KubeObjectMeta,
  spec: z.object({
    clientConfig: ClientConfig,
    namespaceSelector: LabelSelector.optional(),
    settings: StringMap.optional(),
  }),
  status: z
    .looseObject({
      handlers: z.array(ExtensionHandler).optional(),
      conditions: z.array(z.unknown()).optional(),
    })
    .optional(),
});
export type ExtensionConfig = z.infer<typeof ExtensionConfig>;

/** Every hook response: `status` Success or Failure and a message. */
export const CommonResponse = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  status: z.enum(['Success', 'Failure']),
  message: z.string().optional(),
});
export type CommonResponse = z.infer<typeof CommonResponse>;

/** A response that can block the caller: `retryAfterSeconds` > 0 asks to be called again that much later. */
export const RetryResponse = CommonResponse.extend({ retryAfterSeconds: z.number().int().nonnegative().default(0) });
export type RetryResponse = z.infer<typeof RetryResponse>;

export const DiscoveryResponse = CommonResponse.extend({
  handlers: z
    .array(
      z.object({
        name: z.string(),
        requestHook: z.object({ apiVersion: z.string(), hook: z.string() }),
        timeoutSeconds: z.number().int().optional(),
        failurePolicy: z.string().optional(),
      }),
    )
    .optional(),
});
export type DiscoveryResponse = z.infer<typeof DiscoveryResponse>;

export const GeneratePatchesResponse = CommonResponse.extend({
  items: z
    .array(
      z.object({
        uid: z.string(),
        patchType: z.enum(['JSONPatch', 'JSONMergePatch']),
        /** base64 of the JSON patch document (a `[]byte` field). */
        patch: z.string(),
      }),
    )
    .optional(),
});
export type GeneratePatchesResponse = z.infer<typeof GeneratePatchesResponse>;

/** GenerateUpgradePlan: the control plane's and (optionally) the workers' upgrade steps. */
export const GenerateUpgradePlanResponse = CommonResponse.extend({
  controlPlaneUpgrades: z.array(z.object({ version: z.string() })).nullish(),
  workersUpgrades: z.array(z.object({ version: z.string() })).nullish(),
});
export type GenerateUpgradePlanResponse = z.infer<typeof GenerateUpgradePlanResponse>;

export const DiscoverVariablesResponse = CommonResponse.extend({
  variables: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type DiscoverVariablesResponse = z.infer<typeof DiscoverVariablesResponse>;

/** What a caller gets back when it asked for patches and variables a topology extension computes. */
export type HolderReference = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldPath: string;
};
