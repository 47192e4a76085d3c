// The webhooks admit both versions: a v1beta1 Cluster or ClusterClass (the AdmissionReview carries the version the
// client used) is converted to the v1beta2 hub at the edge, reviewed by the same rules, and a mutating patch is
// turned back into a patch of the v1beta1 object the client sent.
import jsonpatch from 'fast-json-patch';
import {
  ConversionDataAnnotation,
  convertFromHub,
  convertToHub,
  HubVersion,
  isConvertible,
  SpokeVersion,
  type ApiVersionGetter,
  type Unstructured,
} from '#shared/api/conversion/index.ts';
import type { AdmissionOutcome, AdmissionRequest } from '#shared/webhooks/admission-review.ts';
import { cloneJson, computeJsonPatch, objectAt } from '#shared/webhooks/compute-json-patch.ts';

/** Groups whose rules work on v1beta2. */
const hubGroups: readonly string[] = ['cluster.x-k8s.io', 'addons.cluster.x-k8s.io'];

const isObject = (value: unknown): value is Unstructured =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when `request` is for a v1beta1 object the rules read as v1beta2. */
export function needsHubConversion(request: AdmissionRequest): boolean {
  return (
    hubGroups.includes(request.kind.group) &&
    request.kind.version === SpokeVersion &&
    isConvertible(request.kind.group, request.kind.kind)
  );
}

/** The request with its objects (and declared versions) in v1beta2. */
export function computeHubRequest(request: AdmissionRequest): AdmissionRequest {
  const toHub = (value: unknown) => (isObject(value) ? convertToHub(value) : value);
  return {
    ...request,
    kind: { ...request.kind, version: HubVersion },
    resource: { ...request.resource, version: HubVersion },
    object: toHub(request.object),
    oldObject: toHub(request.oldObject),
  };
}

/** The apiVersion of every kind the v1beta1 object names in a reference (what going back down needs). */
function computeReferencedApiVersions(object: unknown): ApiVersionGetter {
  const versions = new Map<string, string>();
  JSON.stringify(object, (_key, value: unknown) => {
    if (isObject(value) && typeof value['apiVersion'] === 'string' && typeof value['kind'] === 'string') {
      const apiVersion = value['apiVersion'];
      const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
      versions.set(`${group}/${value['kind']}`, apiVersion);
    }
    return value;
  });
  return (group, kind) => versions.get(`${group}/${kind}`);
}

/**
 * The outcome for the v1beta1 object the client sent: a patch of the hub becomes the difference between the sent
 * object and the patched hub converted back down (its conversion-data annotation, if any, kept as sent).
 */
export function computeSpokeOutcome(
  request: AdmissionRequest,
  hubRequest: AdmissionRequest,
  outcome: AdmissionOutcome,
): AdmissionOutcome {
  if (!outcome.allowed || outcome.patch === undefined || outcome.patch.length === 0) return outcome;
  const patched = jsonpatch.applyPatch(cloneJson(hubRequest.object), cloneJson([...outcome.patch]), false, false)
    .newDocument as Unstructured;
  const spoke = convertFromHub(patched, computeReferencedApiVersions(request.object), { conversionData: false });
  const sentAnnotation = objectAt(request.object, ['metadata', 'annotations'])?.[ConversionDataAnnotation];
  if (sentAnnotation !== undefined) {
    const metadata = isObject(spoke['metadata']) ? spoke['metadata'] : {};
    const annotations = isObject(metadata['annotations']) ? metadata['annotations'] : {};
    spoke['metadata'] = { ...metadata, annotations: { ...annotations, [ConversionDataAnnotation]: sentAnnotation } };
  }
  return { ...outcome, patch: computeJsonPatch(request.object, spoke) };
}
