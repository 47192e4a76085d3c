// `plan` speaks both versions: v1beta1 input is converted to the v1beta2 hub at the boundary (upstream's mapping),
// and the output is printed in the version of the input's Cluster API objects, or the one `--output-version` names.
import {
  convertFromHub,
  convertToHub,
  HubVersion,
  isConvertible,
  SpokeVersion,
  type ApiVersionGetter,
  type Unstructured as JsonObject,
} from '#shared/api/conversion/index.ts';
import { CapiError } from '#shared/errors/index.ts';
import type { PlannedObject, SourcedObject } from '#shared/cli/plan/compute-plan.ts';
import type { Unstructured } from '#shared/topology/types.ts';

export const OutputVersions = [HubVersion, SpokeVersion] as const;
export type OutputVersion = (typeof OutputVersions)[number];

function groupAndVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const isClusterApiObject = (o: Unstructured) => isConvertible(groupAndVersion(o.apiVersion).group, o.kind);

/**
 * The version to print in: v1beta1 when every Cluster API object of the input is v1beta1, else v1beta2.
 *
 * @example
 * computeInputVersion([{ object: v1beta1Cluster, source: 'c.yaml' }]); // 'v1beta1'
 */
export function computeInputVersion(inputs: readonly SourcedObject[]): OutputVersion {
  const versions = inputs
    .filter((i) => isClusterApiObject(i.object))
    .map((i) => groupAndVersion(i.object.apiVersion).version);
  return versions.length > 0 && versions.every((v) => v === SpokeVersion) ? SpokeVersion : HubVersion;
}

/** The inputs with every v1beta1 Cluster API object converted to v1beta2; errors name the file. */
export function convertInputsToHub(inputs: readonly SourcedObject[]): SourcedObject[] {
  return inputs.map((input) => {
    if (!isClusterApiObject(input.object) || groupAndVersion(input.object.apiVersion).version !== SpokeVersion) {
      return input;
    }
    try {
      return { ...input, object: convertToHub(input.object as JsonObject) as Unstructured };
    } catch (err) {
      throw new CapiError(`${input.source}: ${(err as Error).message}`, {}, { cause: err });
    }
  });
}

/**
 * The apiVersion of each kind as the inputs spell it (the templates and provider objects the user gave), which is
 * what a v1beta1 reference needs; upstream reads the same from the CRD contract labels of a live server.
 */
export function computeInputApiVersions(inputs: readonly SourcedObject[]): ApiVersionGetter {
  const versions = new Map<string, string>();
  const remember = (apiVersion: unknown, kind: unknown) => {
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion.includes('/')) return;
    versions.set(`${groupAndVersion(apiVersion).group}/${kind}`, apiVersion);
  };
  for (const { object } of inputs) {
    remember(object.apiVersion, object.kind);
    // NOTE: by Cluster API's convention an `XTemplate` of a provider stamps out `X` objects in the same apiVersion.
    remember(object.apiVersion, object.kind.replace(/Template$/, ''));
    // NOTE: v1beta2 ClusterClass template references keep their apiVersion; the objects built from them use it too.
    JSON.stringify(object, (key, value: unknown) => {
      if (key === 'templateRef' && typeof value === 'object' && value !== null) {
        const ref = value as { apiVersion?: unknown; kind?: unknown };
        remember(ref.apiVersion, typeof ref.kind === 'string' ? ref.kind.replace(/Template$/, '') : undefined);
        remember(ref.apiVersion, ref.kind);
      }
      return value;
    });
  }
  return (group, kind) => versions.get(`${group}/${kind}`);
}

/** A planned object in `version` (Cluster API kinds converted down when v1beta1 is asked for). */
export function convertPlannedObject(
  object: Unstructured,
  version: OutputVersion,
  apiVersionFor: ApiVersionGetter,
): Unstructured {
  if (version === HubVersion || !isClusterApiObject(object) || !object.apiVersion.endsWith(`/${HubVersion}`)) {
    return object;
  }
  return convertFromHub(object as JsonObject, apiVersionFor, { conversionData: false }) as Unstructured;
}

/** Every planned object (and the current one it is compared with) in `version`. */
export function convertPlan(
  objects: readonly PlannedObject[],
  version: OutputVersion,
  apiVersionFor: ApiVersionGetter,
): PlannedObject[] {
  return objects.map((p) => ({
    ...p,
    object: convertPlannedObject(p.object, version, apiVersionFor),
    ...(p.current === undefined ? {} : { current: convertPlannedObject(p.current, version, apiVersionFor) }),
  }));
}
