// One entry point per direction: an object of any convertible kind, v1beta1 to the v1beta2 hub and back, dispatched
// on `kind`, with the conversion-data annotation written going down and read coming up.
import {
  convertClusterClassSpecFromHub,
  convertClusterClassSpecToHub,
  convertClusterClassStatusFromHub,
  convertClusterClassStatusToHub,
} from '#shared/api/conversion/cluster-class.ts';
import {
  convertClusterResourceSetBindingSpec,
  convertClusterResourceSetStatusFromHub,
  convertClusterResourceSetStatusToHub,
} from '#shared/api/conversion/cluster-resource-set.ts';
import {
  convertClusterSpecFromHub,
  convertClusterSpecToHub,
  convertClusterStatusFromHub,
  convertClusterStatusToHub,
} from '#shared/api/conversion/cluster.ts';
import { computeWithConversionData, readConversionData } from '#shared/api/conversion/conversion-data.ts';
import { ConversionError } from '#shared/api/conversion/conversion-error.ts';
import {
  convertMachineHealthCheckSpecFromHub,
  convertMachineHealthCheckSpecToHub,
  convertMachineHealthCheckStatusFromHub,
  convertMachineHealthCheckStatusToHub,
} from '#shared/api/conversion/machine-health-check.ts';
import {
  convertMachineDeploymentSpecFromHub,
  convertMachineDeploymentSpecToHub,
  convertMachineDeploymentStatusFromHub,
  convertMachineDeploymentStatusToHub,
  convertMachinePoolSpecFromHub,
  convertMachinePoolSpecToHub,
  convertMachinePoolStatusFromHub,
  convertMachinePoolStatusToHub,
  convertMachineSpecFromHub,
  convertMachineSpecToHub,
  convertMachineStatusFromHub,
  convertMachineStatusToHub,
} from '#shared/api/conversion/machines.ts';
import type { ApiVersionGetter } from '#shared/api/conversion/references.ts';
import type { ErrorFields } from '#shared/errors/index.ts';
import { compact, objectAt, stringAt, type Unstructured } from '#shared/api/conversion/unstructured.ts';

export const HubVersion = 'v1beta2';
export const SpokeVersion = 'v1beta1';

type KindConversion = {
  readonly group: string;
  readonly toHubSpec: (spec: Unstructured, restored: Unstructured | undefined) => Unstructured;
  readonly toHubStatus: (
    status: Unstructured | undefined,
    restored: Unstructured | undefined,
  ) => Unstructured | undefined;
  readonly fromHubSpec: (
    spec: Unstructured,
    namespace: string | undefined,
    apiVersionFor: ApiVersionGetter,
  ) => Unstructured;
  readonly fromHubStatus: (status: Unstructured | undefined) => Unstructured | undefined;
  /** Whether upstream stores the hub in the conversion-data annotation going down (it does for the core kinds). */
  readonly keepsConversionData: boolean;
};

const core = 'cluster.x-k8s.io';
const addons = 'addons.cluster.x-k8s.io';

const conversions: Readonly<Record<string, KindConversion>> = {
  Cluster: {
    group: core,
    toHubSpec: convertClusterSpecToHub,
    toHubStatus: convertClusterStatusToHub,
    fromHubSpec: convertClusterSpecFromHub,
    fromHubStatus: convertClusterStatusFromHub,
    keepsConversionData: true,
  },
  ClusterClass: {
    group: core,
    toHubSpec: convertClusterClassSpecToHub,
    toHubStatus: convertClusterClassStatusToHub,
    fromHubSpec: (spec, namespace) => convertClusterClassSpecFromHub(spec, namespace),
    fromHubStatus: convertClusterClassStatusFromHub,
    keepsConversionData: true,
  },
  MachineDeployment: {
    group: core,
    toHubSpec: convertMachineDeploymentSpecToHub,
    toHubStatus: (status) => convertMachineDeploymentStatusToHub(status),
    fromHubSpec: convertMachineDeploymentSpecFromHub,
    fromHubStatus: convertMachineDeploymentStatusFromHub,
    keepsConversionData: true,
  },
  MachinePool: {
    group: core,
    toHubSpec: (spec) => convertMachinePoolSpecToHub(spec),
    toHubStatus: convertMachinePoolStatusToHub,
    fromHubSpec: convertMachinePoolSpecFromHub,
    fromHubStatus: convertMachinePoolStatusFromHub,
    keepsConversionData: true,
  },
  Machine: {
    group: core,
    toHubSpec: (spec) => convertMachineSpecToHub(spec),
    toHubStatus: convertMachineStatusToHub,
    fromHubSpec: convertMachineSpecFromHub,
    fromHubStatus: convertMachineStatusFromHub,
    keepsConversionData: true,
  },
  MachineHealthCheck: {
    group: core,
    toHubSpec: (spec) => convertMachineHealthCheckSpecToHub(spec),
    toHubStatus: convertMachineHealthCheckStatusToHub,
    fromHubSpec: (spec, namespace) => convertMachineHealthCheckSpecFromHub(spec, namespace),
    fromHubStatus: convertMachineHealthCheckStatusFromHub,
    keepsConversionData: true,
  },
  ClusterResourceSet: {
    group: addons,
    toHubSpec: (spec) => spec,
    toHubStatus: (status) => convertClusterResourceSetStatusToHub(status),
    fromHubSpec: (spec) => spec,
    fromHubStatus: convertClusterResourceSetStatusFromHub,
    keepsConversionData: false,
  },
  ClusterResourceSetBinding: {
    group: addons,
    toHubSpec: (spec) => convertClusterResourceSetBindingSpec(spec),
    toHubStatus: (status) => status,
    fromHubSpec: (spec) => convertClusterResourceSetBindingSpec(spec, { toV1beta1: true }),
    fromHubStatus: (status) => status,
    keepsConversionData: false,
  },
};

/** The kinds this module converts. */
export const ConvertibleKinds = Object.keys(conversions);

/** True when `kind` in `group` is converted here. */
export function isConvertible(group: string, kind: string): boolean {
  return conversions[kind]?.group === group;
}

/** `group/version` of a convertible kind. */
export function apiVersionOf(kind: string, version: string): string {
  const conversion = conversions[kind];
  if (conversion === undefined)
    throw new ConversionError(`kind ${kind} is not converted between API versions`, { kind });
  return `${conversion.group}/${version}`;
}

function conversionFor(object: Unstructured, expectedVersion: string): KindConversion {
  const kind = stringAt(object, 'kind') ?? '';
  const conversion = conversions[kind];
  const apiVersion = stringAt(object, 'apiVersion');
  const metadata = objectAt(object, 'metadata');
  if (conversion === undefined || apiVersion !== `${conversion.group}/${expectedVersion}`) {
    throw new ConversionError(
      `cannot convert ${kind || '<no kind>'} ${stringAt(metadata, 'name') ?? ''}: expected apiVersion ${conversion?.group ?? '<group>'}/${expectedVersion}, got ${apiVersion ?? '<none>'}`,
      { ...errorFieldsOf(object), fieldPath: 'apiVersion' },
    );
  }
  return conversion;
}

function withContext(object: Unstructured, convert: () => Unstructured): Unstructured {
  try {
    return convert();
  } catch (err) {
    const metadata = objectAt(object, 'metadata');
    const kind = stringAt(object, 'kind');
    const name = stringAt(metadata, 'name');
    const namespace = stringAt(metadata, 'namespace');
    const message = err instanceof Error ? err.message : String(err);
    throw new ConversionError(
      `failed to convert ${kind} ${namespace === undefined ? '' : `${namespace}/`}${name ?? ''}: ${message}`,
      { ...errorFieldsOf(object), reason: 'ConversionFailed' },
      { cause: err },
    );
  }
}

/**
 * A v1beta1 object as the v1beta2 hub; objects already in v1beta2 are returned as they are. The conversion-data
 * annotation, if present, restores what v1beta1 cannot say and is removed.
 *
 * @example
 * convertToHub({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c' }, spec: { topology: { class: 'cc', version: 'v1.34.0' } } });
 * // { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', …, spec: { topology: { classRef: { name: 'cc' }, version: 'v1.34.0' } } }
 */
export function convertToHub(object: Unstructured): Unstructured {
  if (stringAt(object, 'apiVersion')?.endsWith(`/${HubVersion}`) === true && isKnown(object)) return object;
  const conversion = conversionFor(object, SpokeVersion);
  return withContext(object, () => {
    const { restored, object: source } = conversion.keepsConversionData
      ? readConversionData(object)
      : { restored: undefined, object };
    const spec = objectAt(source, 'spec');
    const status = objectAt(source, 'status');
    return compact({
      ...source,
      apiVersion: `${conversion.group}/${HubVersion}`,
      // NOTE: an empty spec is dropped going down, but what it restores (e.g. paused: false) must still come back.
      spec: conversion.toHubSpec(spec ?? {}, restored),
      status: conversion.toHubStatus(status, restored),
    });
  });
}

/**
 * A v1beta2 hub object as v1beta1, with the hub kept in the conversion-data annotation as upstream does; the getter
 * answers the apiVersion of each referenced kind (upstream reads the contract label of its CRD). Writes to a server
 * that stores v1beta1 pass `conversionData: false`: there is no hub to restore there, and the annotation would only
 * churn on every pass.
 */
export function convertFromHub(
  object: Unstructured,
  apiVersionFor: ApiVersionGetter,
  { conversionData = true }: { readonly conversionData?: boolean } = {},
): Unstructured {
  const conversion = conversionFor(object, HubVersion);
  return withContext(object, () => {
    const namespace = stringAt(objectAt(object, 'metadata'), 'namespace');
    const spec = objectAt(object, 'spec');
    const status = objectAt(object, 'status');
    const spoke = compact({
      ...object,
      apiVersion: `${conversion.group}/${SpokeVersion}`,
      spec: spec && conversion.fromHubSpec(spec, namespace, apiVersionFor),
      status: conversion.fromHubStatus(status),
    });
    return conversion.keepsConversionData && conversionData ? computeWithConversionData(object, spoke) : spoke;
  });
}

/** Kind, namespace and name of an object, for error fields (absent ones left out). */
function errorFieldsOf(object: Unstructured): ErrorFields {
  const metadata = objectAt(object, 'metadata');
  const fields: { kind?: string; namespace?: string; name?: string } = {};
  const kind = stringAt(object, 'kind');
  const namespace = stringAt(metadata, 'namespace');
  const name = stringAt(metadata, 'name');
  if (kind !== undefined) fields.kind = kind;
  if (namespace !== undefined) fields.namespace = namespace;
  if (name !== undefined) fields.name = name;
  return fields;
}

function isKnown(object: Unstructured): boolean {
  return conversions[stringAt(object, 'kind') ?? ''] !== undefined;
}
