// ClusterClass between v1beta1 and v1beta2 with upstream's field mapping (`ref` → `templateRef`, `template.*` lifted,
// naming strategies → `naming`, durations → `deletion.*Seconds`, `machineHealthCheck` → `healthCheck`, `strategy` →
// `rollout`/`deletion.order`, variable `metadata` → `deprecatedV1Beta1Metadata`, external patch extension names).
import { convertBoolToPointerBool } from '#shared/api/conversion/conversion-data.ts';
import {
  convertDeletionTimeoutsFromHub,
  convertDeletionTimeoutsToHub,
  V1Beta1DeletionFields,
} from '#shared/api/conversion/deletion.ts';
import { convertHealthCheckFromHub, convertHealthCheckToHub } from '#shared/api/conversion/health-check.ts';
import {
  convertLocalObjectTemplateToTemplateRef,
  convertTemplateRefToLocalObjectTemplate,
  isReferenceDefined,
} from '#shared/api/conversion/references.ts';
import { convertStrategyFromHub, convertStrategyToHub } from '#shared/api/conversion/rollout-strategy.ts';
import { convertStatusFromHub, convertStatusToHub } from '#shared/api/conversion/status-conditions.ts';
import {
  compact,
  compactOrUndefined,
  isUnstructured,
  isZero,
  listAt,
  mapObjects,
  objectAt,
  omitKeys,
  stringAt,
  type Unstructured,
} from '#shared/api/conversion/unstructured.ts';

function namingToHub(strategy: Unstructured | undefined): Unstructured | undefined {
  return compactOrUndefined({ template: strategy?.['template'] });
}

function namingFromHub(naming: Unstructured | undefined): Unstructured | undefined {
  const template = stringAt(naming, 'template');
  return template === undefined ? undefined : { template };
}

function convertControlPlaneClassToHub(cp: Unstructured): Unstructured {
  const healthCheck = objectAt(cp, 'machineHealthCheck');
  const machineInfrastructure = objectAt(cp, 'machineInfrastructure');
  return compact({
    ...omitKeys(cp, ['ref', 'machineInfrastructure', 'machineHealthCheck', 'namingStrategy', ...V1Beta1DeletionFields]),
    templateRef: convertLocalObjectTemplateToTemplateRef(cp),
    machineInfrastructure: machineInfrastructure && {
      templateRef: convertLocalObjectTemplateToTemplateRef(machineInfrastructure),
    },
    healthCheck: healthCheck && convertHealthCheckToHub(healthCheck),
    naming: namingToHub(objectAt(cp, 'namingStrategy')),
    deletion: convertDeletionTimeoutsToHub(cp),
  });
}

function convertControlPlaneClassFromHub(cp: Unstructured, namespace: string | undefined): Unstructured {
  const healthCheck = objectAt(cp, 'healthCheck');
  const machineInfrastructureRef = objectAt(objectAt(cp, 'machineInfrastructure'), 'templateRef');
  return compact({
    ...omitKeys(cp, ['templateRef', 'machineInfrastructure', 'healthCheck', 'naming', 'deletion']),
    ...convertTemplateRefToLocalObjectTemplate(objectAt(cp, 'templateRef'), namespace),
    machineInfrastructure: isReferenceDefined(machineInfrastructureRef)
      ? convertTemplateRefToLocalObjectTemplate(machineInfrastructureRef, namespace)
      : undefined,
    machineHealthCheck: isZero(healthCheck)
      ? undefined
      : convertHealthCheckFromHub(objectAt(healthCheck, 'checks'), objectAt(healthCheck, 'remediation'), namespace),
    namingStrategy: namingFromHub(objectAt(cp, 'naming')),
    ...convertDeletionTimeoutsFromHub(cp),
  });
}

function convertMachineDeploymentClassToHub(md: Unstructured): Unstructured {
  const template = objectAt(md, 'template');
  const healthCheck = objectAt(md, 'machineHealthCheck');
  const { rolloutStrategy, deletionOrder, maxInFlight } = convertStrategyToHub(objectAt(md, 'strategy'));
  const { checks, remediation } = healthCheck ? convertHealthCheckToHub(healthCheck) : { checks: {}, remediation: {} };
  return compact({
    ...omitKeys(md, ['template', 'machineHealthCheck', 'namingStrategy', 'strategy', ...V1Beta1DeletionFields]),
    metadata: template?.['metadata'],
    bootstrap: compactOrUndefined({
      templateRef: convertLocalObjectTemplateToTemplateRef(objectAt(template, 'bootstrap')),
    }),
    infrastructure: compactOrUndefined({
      templateRef: convertLocalObjectTemplateToTemplateRef(objectAt(template, 'infrastructure')),
    }),
    healthCheck: compact({ checks, remediation: compact({ maxInFlight, ...remediation }) }),
    naming: namingToHub(objectAt(md, 'namingStrategy')),
    deletion: compact({ order: deletionOrder, ...convertDeletionTimeoutsToHub(md) }),
    rollout: compact({ strategy: rolloutStrategy }),
  });
}

function convertMachineDeploymentClassFromHub(md: Unstructured, namespace: string | undefined): Unstructured {
  const healthCheck = objectAt(md, 'healthCheck');
  const remediation = objectAt(healthCheck, 'remediation');
  const maxInFlight = remediation?.['maxInFlight'];
  const withoutMaxInFlight = { ...healthCheck, remediation: omitKeys(remediation ?? {}, ['maxInFlight']) };
  return compact({
    ...omitKeys(md, ['metadata', 'bootstrap', 'infrastructure', 'healthCheck', 'naming', 'deletion', 'rollout']),
    template: {
      metadata: md['metadata'] ?? {},
      bootstrap: convertTemplateRefToLocalObjectTemplate(objectAt(objectAt(md, 'bootstrap'), 'templateRef'), namespace),
      infrastructure: convertTemplateRefToLocalObjectTemplate(
        objectAt(objectAt(md, 'infrastructure'), 'templateRef'),
        namespace,
      ),
    },
    machineHealthCheck: isZero(withoutMaxInFlight)
      ? undefined
      : convertHealthCheckFromHub(objectAt(healthCheck, 'checks'), remediation, namespace),
    namingStrategy: namingFromHub(objectAt(md, 'naming')),
    ...convertDeletionTimeoutsFromHub(md),
    strategy: convertStrategyFromHub(
      objectAt(objectAt(md, 'rollout'), 'strategy'),
      objectAt(md, 'deletion')?.['order'],
      maxInFlight,
    ),
  });
}

function convertMachinePoolClassToHub(mp: Unstructured): Unstructured {
  const template = objectAt(mp, 'template');
  return compact({
    ...omitKeys(mp, ['template', 'namingStrategy', ...V1Beta1DeletionFields]),
    metadata: template?.['metadata'],
    bootstrap: compactOrUndefined({
      templateRef: convertLocalObjectTemplateToTemplateRef(objectAt(template, 'bootstrap')),
    }),
    infrastructure: compactOrUndefined({
      templateRef: convertLocalObjectTemplateToTemplateRef(objectAt(template, 'infrastructure')),
    }),
    naming: namingToHub(objectAt(mp, 'namingStrategy')),
    deletion: convertDeletionTimeoutsToHub(mp),
  });
}

function convertMachinePoolClassFromHub(mp: Unstructured, namespace: string | undefined): Unstructured {
  return compact({
    ...omitKeys(mp, ['metadata', 'bootstrap', 'infrastructure', 'naming', 'deletion']),
    template: {
      metadata: mp['metadata'] ?? {},
      bootstrap: convertTemplateRefToLocalObjectTemplate(objectAt(objectAt(mp, 'bootstrap'), 'templateRef'), namespace),
      infrastructure: convertTemplateRefToLocalObjectTemplate(
        objectAt(objectAt(mp, 'infrastructure'), 'templateRef'),
        namespace,
      ),
    },
    namingStrategy: namingFromHub(objectAt(mp, 'naming')),
    ...convertDeletionTimeoutsFromHub(mp),
  });
}

function renameKey(source: Unstructured, from: string, to: string): Unstructured {
  if (!(from in source)) return source;
  const { [from]: value, ...rest } = source;
  return compact({ ...rest, [to]: value });
}

/** A JSON schema's booleans that v1beta2 makes pointers, restored recursively (`restoreBoolIntentJSONSchemaProps`). */
function restoreSchemaBools(
  schema: Unstructured,
  restored: Unstructured | undefined,
  hasRestored: boolean,
): Unstructured {
  const out: Unstructured = { ...schema };
  for (const key of [
    'uniqueItems',
    'exclusiveMaximum',
    'exclusiveMinimum',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-int-or-string',
  ]) {
    const value = convertBoolToPointerBool(schema[key], hasRestored ? (restored ?? {}) : undefined, restored?.[key]);
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  const properties = objectAt(schema, 'properties');
  if (properties !== undefined) {
    const restoredProperties = objectAt(restored, 'properties');
    out['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        isUnstructured(property)
          ? restoreSchemaBools(property, objectAt(restoredProperties, name), hasRestored)
          : property,
      ]),
    );
  }
  for (const key of ['additionalProperties', 'items', 'not']) {
    const nested = objectAt(schema, key);
    if (nested !== undefined) out[key] = restoreSchemaBools(nested, objectAt(restored, key), hasRestored);
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const list = listAt(schema, key);
    const restoredList = listAt(restored, key);
    const sameLength = restoredList !== undefined && restoredList.length === list?.length;
    out[key] = mapObjects(list, (item, i) =>
      restoreSchemaBools(
        item,
        sameLength && isUnstructured(restoredList[i]) ? restoredList[i] : undefined,
        hasRestored,
      ),
    );
    if (out[key] === undefined) delete out[key];
  }
  return out;
}

function convertVariableToHub(variable: Unstructured, restoredVariables: unknown[] | undefined, hasRestored: boolean) {
  const renamed = renameKey(variable, 'metadata', 'deprecatedV1Beta1Metadata');
  const schema = objectAt(objectAt(renamed, 'schema'), 'openAPIV3Schema');
  if (schema === undefined) return renamed;
  const restored = restoredVariables?.find((v) => isUnstructured(v) && v['name'] === variable['name']);
  const restoredSchema = objectAt(
    objectAt(isUnstructured(restored) ? restored : undefined, 'schema'),
    'openAPIV3Schema',
  );
  return {
    ...renamed,
    schema: {
      ...objectAt(renamed, 'schema'),
      openAPIV3Schema: restoreSchemaBools(schema, restoredSchema, hasRestored),
    },
  };
}

function convertPatchToHub(patch: Unstructured, restoredPatches: unknown[] | undefined, hasRestored: boolean) {
  const external = objectAt(patch, 'external');
  const restoredPatch = restoredPatches?.find((p) => isUnstructured(p) && p['name'] === patch['name']);
  const restoredDefinitions = listAt(isUnstructured(restoredPatch) ? restoredPatch : undefined, 'definitions');
  const definitions = listAt(patch, 'definitions');
  const sameLength = restoredDefinitions !== undefined && restoredDefinitions.length === definitions?.length;
  return compact({
    ...patch,
    definitions: mapObjects(definitions, (definition, j) => {
      const selector = objectAt(definition, 'selector');
      const match = objectAt(selector, 'matchResources');
      const restoredDefinition =
        sameLength && isUnstructured(restoredDefinitions[j]) ? restoredDefinitions[j] : undefined;
      const restoredMatch = objectAt(objectAt(restoredDefinition, 'selector'), 'matchResources');
      const restoredOrUndefined = hasRestored ? (restoredMatch ?? {}) : undefined;
      if (selector === undefined) return definition;
      return {
        ...definition,
        selector: {
          ...selector,
          matchResources: compact({
            ...match,
            controlPlane: convertBoolToPointerBool(
              match?.['controlPlane'],
              restoredOrUndefined,
              restoredMatch?.['controlPlane'],
            ),
            infrastructureCluster: convertBoolToPointerBool(
              match?.['infrastructureCluster'],
              restoredOrUndefined,
              restoredMatch?.['infrastructureCluster'],
            ),
          }),
        },
      };
    }),
    external:
      external &&
      renameKey(
        renameKey(external, 'generateExtension', 'generatePatchesExtension'),
        'validateExtension',
        'validateTopologyExtension',
      ),
  });
}

function convertPatchFromHub(patch: Unstructured): Unstructured {
  const external = objectAt(patch, 'external');
  return compact({
    ...patch,
    definitions: mapObjects(listAt(patch, 'definitions'), (definition) => {
      const selector = objectAt(definition, 'selector');
      const match = objectAt(selector, 'matchResources');
      if (selector === undefined) return definition;
      return {
        ...definition,
        selector: {
          ...selector,
          matchResources: compact({
            ...match,
            controlPlane: match?.['controlPlane'] === true ? true : undefined,
            infrastructureCluster: match?.['infrastructureCluster'] === true ? true : undefined,
          }),
        },
      };
    }),
    external:
      external &&
      renameKey(
        renameKey(external, 'generatePatchesExtension', 'generateExtension'),
        'validateTopologyExtension',
        'validateExtension',
      ),
  });
}

function convertStatusVariableToHub(
  variable: Unstructured,
  restoredVariables: unknown[] | undefined,
  hasRestored: boolean,
) {
  const restored = restoredVariables?.find((v) => isUnstructured(v) && v['name'] === variable['name']);
  const restoredVariable = isUnstructured(restored) ? restored : undefined;
  return compact({
    ...variable,
    definitionsConflict: convertBoolToPointerBool(
      variable['definitionsConflict'],
      hasRestored ? (restoredVariable ?? {}) : undefined,
      restoredVariable?.['definitionsConflict'],
    ),
    definitions: mapObjects(listAt(variable, 'definitions'), (definition) => {
      const renamed = renameKey(definition, 'metadata', 'deprecatedV1Beta1Metadata');
      const schema = objectAt(objectAt(renamed, 'schema'), 'openAPIV3Schema');
      if (schema === undefined) return renamed;
      const restoredDefinition = listAt(restoredVariable, 'definitions')?.find(
        (d) => isUnstructured(d) && d['from'] === definition['from'],
      );
      const restoredSchema = objectAt(
        objectAt(isUnstructured(restoredDefinition) ? restoredDefinition : undefined, 'schema'),
        'openAPIV3Schema',
      );
      return {
        ...renamed,
        schema: {
          ...objectAt(renamed, 'schema'),
          openAPIV3Schema: restoreSchemaBools(schema, restoredSchema, hasRestored),
        },
      };
    }),
  });
}

function convertStatusVariableFromHub(variable: Unstructured): Unstructured {
  return compact({
    ...variable,
    definitionsConflict: variable['definitionsConflict'] === true ? true : undefined,
    definitions: mapObjects(listAt(variable, 'definitions'), (d) =>
      renameKey(d, 'deprecatedV1Beta1Metadata', 'metadata'),
    ),
  });
}

/**
 * The v1beta2 spec and status of a v1beta1 ClusterClass; `restored` is the hub object from the conversion-data
 * annotation, if any (see `readConversionData`).
 */
export function convertClusterClassSpecToHub(spec: Unstructured, restored: Unstructured | undefined): Unstructured {
  const hasRestored = restored !== undefined;
  const restoredSpec = objectAt(restored, 'spec');
  const workers = objectAt(spec, 'workers');
  return compact({
    ...omitKeys(spec, [
      'infrastructure',
      'infrastructureNamingStrategy',
      'controlPlane',
      'workers',
      'variables',
      'patches',
    ]),
    infrastructure: compactOrUndefined({
      templateRef: convertLocalObjectTemplateToTemplateRef(objectAt(spec, 'infrastructure')),
      naming: namingToHub(objectAt(spec, 'infrastructureNamingStrategy')),
    }),
    controlPlane: mapOne(objectAt(spec, 'controlPlane'), convertControlPlaneClassToHub),
    workers:
      workers &&
      compact({
        ...workers,
        machineDeployments: mapObjects(listAt(workers, 'machineDeployments'), convertMachineDeploymentClassToHub),
        machinePools: mapObjects(listAt(workers, 'machinePools'), convertMachinePoolClassToHub),
      }),
    variables: mapObjects(listAt(spec, 'variables'), (v) =>
      convertVariableToHub(v, listAt(restoredSpec, 'variables'), hasRestored),
    ),
    patches: mapObjects(listAt(spec, 'patches'), (p) =>
      convertPatchToHub(p, listAt(restoredSpec, 'patches'), hasRestored),
    ),
  });
}

/** The v1beta1 spec of a v1beta2 ClusterClass in `namespace` (template references land in it). */
export function convertClusterClassSpecFromHub(spec: Unstructured, namespace: string | undefined): Unstructured {
  const infrastructure = objectAt(spec, 'infrastructure');
  const workers = objectAt(spec, 'workers');
  return compact({
    ...omitKeys(spec, ['infrastructure', 'controlPlane', 'workers', 'variables', 'patches']),
    infrastructure: convertTemplateRefToLocalObjectTemplate(objectAt(infrastructure, 'templateRef'), namespace),
    infrastructureNamingStrategy: namingFromHub(objectAt(infrastructure, 'naming')),
    controlPlane: convertControlPlaneClassFromHub(objectAt(spec, 'controlPlane') ?? {}, namespace),
    workers:
      workers &&
      compact({
        ...workers,
        machineDeployments: mapObjects(listAt(workers, 'machineDeployments'), (md) =>
          convertMachineDeploymentClassFromHub(md, namespace),
        ),
        machinePools: mapObjects(listAt(workers, 'machinePools'), (mp) =>
          convertMachinePoolClassFromHub(mp, namespace),
        ),
      }),
    variables: mapObjects(listAt(spec, 'variables'), (v) => renameKey(v, 'deprecatedV1Beta1Metadata', 'metadata')),
    patches: mapObjects(listAt(spec, 'patches'), convertPatchFromHub),
  });
}

/** The v1beta2 status of a v1beta1 ClusterClass status. */
export function convertClusterClassStatusToHub(status: Unstructured | undefined, restored: Unstructured | undefined) {
  const hub = convertStatusToHub(status);
  if (hub === undefined) return undefined;
  const restoredVariables = listAt(objectAt(restored, 'status'), 'variables');
  return compact({
    ...hub,
    variables: mapObjects(listAt(hub, 'variables'), (v) =>
      convertStatusVariableToHub(v, restoredVariables, restored !== undefined),
    ),
  });
}

/** The v1beta1 status of a v1beta2 ClusterClass status. */
export function convertClusterClassStatusFromHub(status: Unstructured | undefined) {
  const spoke = convertStatusFromHub(status);
  if (spoke === undefined) return undefined;
  return compact({ ...spoke, variables: mapObjects(listAt(spoke, 'variables'), convertStatusVariableFromHub) });
}

function mapOne(value: Unstructured | undefined, convert: (v: Unstructured) => Unstructured) {
  return value === undefined ? undefined : convert(value);
}
