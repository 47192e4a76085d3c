// `admission.k8s.io/v1` AdmissionReview: the request the API server sends a webhook, parsed once with zod, and the
// response a webhook answers with (allowed, or refused with a `metav1.Status`; optionally a JSONPatch).
import * as z from 'zod';
import type { Operation } from 'fast-json-patch';

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });
const GroupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

export const AdmissionOperation = { Create: 'CREATE', Update: 'UPDATE', Delete: 'DELETE', Connect: 'CONNECT' } as const;
export type AdmissionOperation = (typeof AdmissionOperation)[keyof typeof AdmissionOperation];

/** The part of `AdmissionRequest` the webhooks read; everything else is kept but not modelled. */
export const AdmissionRequest = z.looseObject({
  uid: z.string().min(1),
  kind: GroupVersionKind,
  resource: GroupVersionResource,
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
  /** The object being admitted (null on DELETE). */
  object: z.unknown().optional(),
  /** The stored object (UPDATE and DELETE). */
  oldObject: z.unknown().optional(),
  dryRun: z.boolean().optional(),
});
export type AdmissionRequest = z.infer<typeof AdmissionRequest>;

export const admissionApiVersion = 'admission.k8s.io/v1';

export const AdmissionReview = z.looseObject({
  apiVersion: z.literal(admissionApiVersion),
  kind: z.literal('AdmissionReview'),
  request: AdmissionRequest,
});
export type AdmissionReview = z.infer<typeof AdmissionReview>;

/** A `metav1.StatusCause`. */
export type StatusCause = { readonly reason: string; readonly message: string; readonly field?: string };

/** A `metav1.Status` as webhooks return it in `response.status`. */
export type AdmissionStatus = {
  readonly metadata: Record<string, never>;
  readonly status: 'Failure';
  readonly message: string;
  readonly reason: string;
  readonly code: number;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly StatusCause[];
  };
};

/** What a rule set decides about one request. */
export type AdmissionOutcome =
  | {
      readonly allowed: true;
      /** JSONPatch operations a mutating webhook applies (empty or absent: no change). */
      readonly patch?: readonly Operation[];
      readonly warnings?: readonly string[];
    }
  | { readonly allowed: false; readonly status: AdmissionStatus; readonly warnings?: readonly string[] };

/** `response` of an AdmissionReview. */
export type AdmissionResponse = {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: AdmissionStatus;
  readonly patch?: string;
  readonly patchType?: 'JSONPatch';
  readonly warnings?: readonly string[];
};

export type AdmissionReviewResponse = {
  readonly apiVersion: typeof admissionApiVersion;
  readonly kind: 'AdmissionReview';
  readonly response: AdmissionResponse;
};

/**
 * The AdmissionReview answering `uid` with an outcome; a non-empty patch is sent base64-encoded as `JSONPatch`.
 *
 * @example
 * computeAdmissionReviewResponse('705ab4f5', { allowed: true, patch: [{ op: 'add', path: '/spec/strategy', value: 'ApplyOnce' }] });
 */
export function computeAdmissionReviewResponse(uid: string, outcome: AdmissionOutcome): AdmissionReviewResponse {
  const warnings = outcome.warnings && outcome.warnings.length > 0 ? { warnings: outcome.warnings } : {};
  if (!outcome.allowed) {
    return {
      apiVersion: admissionApiVersion,
      kind: 'AdmissionReview',
      response: { uid, allowed: false, status: outcome.status, ...warnings },
    };
  }
  const patch =
    outcome.patch && outcome.patch.length > 0
      ? {
          patch: Buffer.from(JSON.stringify(outcome.patch)).toString('base64'),
          patchType: 'JSONPatch' as const,
        }
      : {};
  return {
    apiVersion: admissionApiVersion,
    kind: 'AdmissionReview',
    response: { uid, allowed: true, ...patch, ...warnings },
  };
}
