// ClusterClass validation shared by the reconcile pass, `plan` and the admission webhooks: references, the managed
// Kubernetes rule (seed 003: one kind cannot be both infrastructure cluster and control plane), unique classes,
// variables, patch syntax and naming templates.
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import type {
  ClusterClassStatusVariable,
  ClusterClassStatusVariableDefinition,
  ClusterClassVariable,
} from '#shared/api/core/v1beta2/variables.ts';
import { computeStableJson } from '#shared/hash/stable-json.ts';
import { executeTemplate, parseTemplate } from '#shared/lang/gotemplate/index.ts';
import { groupKindOf } from '#shared/topology/desired/template-to-object.ts';
import type { FieldError } from '#shared/topology/variables/index.ts';
import { validateClusterClassVariables } from '#shared/topology/variables/index.ts';
import { isDNS1123Subdomain } from '#shared/lang/openapi/apimachinery-validation.ts';
import { goJson } from '#shared/lang/openapi/json-value.ts';
import { quote } from '#shared/lang/go/strconv.ts';

const fe = (type: FieldError['type'], field: string, detail: string, badValue?: string): FieldError =>
  badValue === undefined ? { type, field, detail } : { type, field, detail, badValue };

function validateRef(
  ref:
    | {
        apiVersion?: string | undefined;
        kind?: string | undefined;
        name?: string | undefined;
        namespace?: string | undefined;
      }
    | undefined,
  field: string,
  namespace: string,
): FieldError[] {
  if (!ref) return [fe('Required', field, 'template reference must be defined')];
  const errors: FieldError[] = [];
  if (!ref.apiVersion) errors.push(fe('Required', `${field}.apiVersion`, 'apiVersion must be defined'));
  if (!ref.kind) errors.push(fe('Required', `${field}.kind`, 'kind must be defined'));
  if (!ref.name) errors.push(fe('Required', `${field}.name`, 'name must be defined'));
  if (ref.namespace && ref.namespace !== namespace)
    errors.push(fe('Invalid', `${field}.namespace`, `must be '' or '${namespace}'`, ref.namespace));
  return errors;
}

type NamingSubject = 'InfraCluster' | 'ControlPlane' | 'MachineDeployment' | 'MachinePool';

/**
 * upstream `validateNamingStrategies`: the template must parse and render (cluster `cluster`, worker topology
 * `mdtopology`/`mptopology`), and what it renders must be a DNS-1123 subdomain. NOTE: a fixed `.random` keeps this
 * pure; any suffix of upstream's alphabet is valid in a name.
 */
function validateNamingTemplate(template: string | undefined, field: string, subject: NamingSubject): FieldError[] {
  if (!template) return [];
  const data: Record<string, unknown> = { cluster: { name: 'cluster' }, random: 'bbbbb' };
  if (subject === 'MachineDeployment') data['machineDeployment'] = { topologyName: 'mdtopology' };
  if (subject === 'MachinePool') data['machinePool'] = { topologyName: 'mptopology' };
  const invalid = (why: string) => [fe('Invalid', field, `invalid ${subject} name template: ${why}`, template)];
  const options = { functions: 'builtin', missingKey: 'error' } as const;
  let parsed;
  try {
    parsed = parseTemplate('template name generator', template, options);
  } catch (err) {
    return invalid(`parsing template ${JSON.stringify(template)}: ${(err as Error).message}`);
  }
  let name: string;
  try {
    name = executeTemplate(parsed, data);
  } catch (err) {
    return invalid(`rendering template: ${(err as Error).message}`);
  }
  if (name.length > 63) name = `${name.slice(0, 58)}bbbbb`;
  return isDNS1123Subdomain(name).map((detail) => fe('Invalid', field, detail, template));
}

/**
 * All field errors of a ClusterClass, in field order.
 *
 * @example
 * validateClusterClass(cc); // [] when valid
 */
export function validateClusterClass(cc: ClusterClass): FieldError[] {
  const namespace = cc.metadata.namespace ?? '';
  const spec = cc.spec;
  const errors: FieldError[] = [];
  errors.push(...validateRef(spec.infrastructure.templateRef, 'spec.infrastructure.templateRef', namespace));
  errors.push(...validateRef(spec.controlPlane.templateRef, 'spec.controlPlane.templateRef', namespace));
  if (spec.controlPlane.machineInfrastructure)
    errors.push(
      ...validateRef(
        spec.controlPlane.machineInfrastructure.templateRef,
        'spec.controlPlane.machineInfrastructure.templateRef',
        namespace,
      ),
    );
  const infra = spec.infrastructure.templateRef;
  const cp = spec.controlPlane.templateRef;
  if (
    infra?.apiVersion &&
    infra.kind &&
    cp?.apiVersion &&
    cp.kind &&
    groupKindOf(infra.apiVersion, infra.kind) === groupKindOf(cp.apiVersion, cp.kind)
  ) {
    errors.push(
      fe(
        'Forbidden',
        'spec.controlPlane.templateRef',
        `the same kind ${groupKindOf(cp.apiVersion, cp.kind)} cannot serve as both the infrastructure cluster and the control plane: ClusterClass needs two kinds (use a managed control plane kind and a separate managed infrastructure cluster kind, "option 3" of the Managed Kubernetes in CAPI proposal)`,
      ),
    );
  }
  errors.push(
    ...validateNamingTemplate(
      spec.infrastructure.naming?.template,
      'spec.infrastructure.naming.template',
      'InfraCluster',
    ),
  );
  errors.push(
    ...validateNamingTemplate(spec.controlPlane.naming?.template, 'spec.controlPlane.naming.template', 'ControlPlane'),
  );
  const seen = new Set<string>();
  (spec.workers?.machineDeployments ?? []).forEach((md, i) => {
    const field = `spec.workers.machineDeployments[${i}]`;
    if (seen.has(md.class))
      errors.push(fe('Invalid', `${field}.class`, 'MachineDeployment class must be unique', md.class));
    seen.add(md.class);
    errors.push(...validateRef(md.bootstrap.templateRef, `${field}.bootstrap.templateRef`, namespace));
    errors.push(...validateRef(md.infrastructure.templateRef, `${field}.infrastructure.templateRef`, namespace));
    // NOTE: upstream names a worker class's naming template by its class (field.Path.Key), other fields by index.
    errors.push(
      ...validateNamingTemplate(
        md.naming?.template,
        `spec.workers.machineDeployments[${md.class}].naming.template`,
        'MachineDeployment',
      ),
    );
  });
  const seenPools = new Set<string>();
  (spec.workers?.machinePools ?? []).forEach((mp, i) => {
    const field = `spec.workers.machinePools[${i}]`;
    if (seenPools.has(mp.class))
      errors.push(fe('Invalid', `${field}.class`, 'MachinePool class must be unique', mp.class));
    seenPools.add(mp.class);
    errors.push(...validateRef(mp.bootstrap.templateRef, `${field}.bootstrap.templateRef`, namespace));
    errors.push(...validateRef(mp.infrastructure.templateRef, `${field}.infrastructure.templateRef`, namespace));
    errors.push(
      ...validateNamingTemplate(
        mp.naming?.template,
        `spec.workers.machinePools[${mp.class}].naming.template`,
        'MachinePool',
      ),
    );
  });
  errors.push(...validateClusterClassVariables(spec.variables ?? []));
  errors.push(...validatePatches(cc));
  return errors;
}

type Patch = NonNullable<ClusterClass['spec']['patches']>[number];

/** Only the keys Go writes (`omitempty`), in `ExternalPatchDefinition`'s field order. */
function externalInGoOrder(external: NonNullable<Patch['external']>): Record<string, unknown> {
  const settings = Object.entries(external.settings ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    ...(external.generatePatchesExtension ? { generatePatchesExtension: external.generatePatchesExtension } : {}),
    ...(external.validateTopologyExtension ? { validateTopologyExtension: external.validateTopologyExtension } : {}),
    ...(external.discoverVariablesExtension ? { discoverVariablesExtension: external.discoverVariablesExtension } : {}),
    ...(settings.length > 0 ? { settings: Object.fromEntries(settings) } : {}),
  };
}

/** A patch as upstream's field error shows it: Go's JSON of `ClusterClassPatch` (field order, empty fields omitted). */
function renderPatch(patch: Patch): string {
  const definitions = (patch.definitions ?? []).map((d) => {
    const m = d.selector.matchResources;
    const matchResources = {
      ...(m.controlPlane !== undefined ? { controlPlane: m.controlPlane } : {}),
      ...(m.infrastructureCluster !== undefined ? { infrastructureCluster: m.infrastructureCluster } : {}),
      ...(m.machineDeploymentClass
        ? {
            machineDeploymentClass: m.machineDeploymentClass.names?.length
              ? { names: m.machineDeploymentClass.names }
              : {},
          }
        : {}),
      ...(m.machinePoolClass
        ? { machinePoolClass: m.machinePoolClass.names?.length ? { names: m.machinePoolClass.names } : {} }
        : {}),
    };
    const jsonPatches = d.jsonPatches.map((jp) => ({
      op: jp.op,
      path: jp.path,
      ...(jp.value !== undefined ? { value: jp.value } : {}),
      ...(jp.valueFrom
        ? {
            valueFrom: {
              ...(jp.valueFrom.variable ? { variable: jp.valueFrom.variable } : {}),
              ...(jp.valueFrom.template ? { template: jp.valueFrom.template } : {}),
            },
          }
        : {}),
    }));
    return {
      selector: {
        apiVersion: d.selector.apiVersion,
        kind: d.selector.kind,
        ...(Object.keys(matchResources).length > 0 ? { matchResources } : {}),
      },
      ...(jsonPatches.length > 0 ? { jsonPatches } : {}),
    };
  });
  return goJson({
    name: patch.name,
    ...(patch.description ? { description: patch.description } : {}),
    ...(patch.enabledIf ? { enabledIf: patch.enabledIf } : {}),
    ...(definitions.length > 0 ? { definitions } : {}),
    ...(patch.external ? { external: externalInGoOrder(patch.external) } : {}),
  });
}

function validatePatches(cc: ClusterClass): FieldError[] {
  const errors: FieldError[] = [];
  const variables = new Set((cc.spec.variables ?? []).map((v) => v.name));
  const names = new Set<string>();
  (cc.spec.patches ?? []).forEach((patch, i) => {
    const field = `spec.patches[${i}]`;
    // NOTE: upstream's order and wording (patch_validation.go): name, enabledIf, definitions xor external, external.
    if (patch.name === 'inline')
      errors.push(fe('Required', `${field}.name`, '"inline" can not be used as the name of a patch'));
    if (names.has(patch.name))
      errors.push(
        fe(
          'Invalid',
          `${field}.name`,
          `patch names must be unique. Patch with name ${quote(patch.name)} is defined more than once`,
          patch.name,
        ),
      );
    names.add(patch.name);
    if (patch.enabledIf !== undefined) {
      try {
        parseTemplate('enabledIf', patch.enabledIf);
      } catch (err) {
        errors.push(
          fe('Invalid', `${field}.enabledIf`, `template can not be parsed: ${(err as Error).message}`, patch.enabledIf),
        );
      }
    }
    if (patch.definitions === undefined && patch.external === undefined)
      errors.push(fe('Required', field, 'one of definitions or external must be defined'));
    if (patch.definitions !== undefined && patch.external !== undefined)
      errors.push({
        type: 'Invalid',
        field,
        badValue: { rendered: renderPatch(patch) },
        detail: 'only one of definitions or external can be defined',
      });
    // NOTE: upstream also refuses external patches while its RuntimeSDK gate is off; capi-serverless always runs them.
    if (patch.external && !patch.external.validateTopologyExtension && !patch.external.generatePatchesExtension)
      errors.push({
        type: 'Invalid',
        field: `${field}.external`,
        badValue: { rendered: goJson(externalInGoOrder(patch.external)) },
        detail: 'one of validateTopologyExtension and generatePatchesExtension must be defined',
      });
    (patch.definitions ?? []).forEach((def, j) => {
      const sel = def.selector.matchResources;
      const selects =
        sel.controlPlane ||
        sel.infrastructureCluster ||
        (sel.machineDeploymentClass?.names?.length ?? 0) > 0 ||
        (sel.machinePoolClass?.names?.length ?? 0) > 0;
      if (!selects)
        errors.push(fe('Invalid', `${field}.definitions[${j}].selector`, 'selector must match at least one resource'));
      def.jsonPatches.forEach((jp, k) => {
        const pf = `${field}.definitions[${j}].jsonPatches[${k}]`;
        if (!jp.path.startsWith('/spec/'))
          errors.push(fe('Invalid', `${pf}.path`, 'jsonPatch path must start with "/spec/"', jp.path));
        const hasValue = jp.value !== undefined;
        const hasFrom = jp.valueFrom !== undefined;
        if (jp.op === 'remove' && (hasValue || hasFrom))
          errors.push(fe('Invalid', pf, 'value and valueFrom must not be set for op "remove"'));
        if (jp.op !== 'remove' && hasValue === hasFrom)
          errors.push(fe('Invalid', pf, 'exactly one of value or valueFrom must be set'));
        if (jp.valueFrom) {
          const { variable, template } = jp.valueFrom;
          if ((variable === undefined) === (template === undefined))
            errors.push(fe('Invalid', `${pf}.valueFrom`, 'exactly one of variable or template must be set'));
          if (variable !== undefined) {
            const root = variable.split('.')[0]?.replace(/\[.*$/, '') ?? '';
            if (root !== 'builtin' && !variables.has(root))
              errors.push(
                fe('Invalid', `${pf}.valueFrom.variable`, 'variable with name ' + root + ' cannot be found', variable),
              );
          }
          if (template !== undefined) {
            try {
              parseTemplate('valueFrom.template', template);
            } catch (err) {
              errors.push(
                fe('Invalid', `${pf}.valueFrom.template`, `invalid template: ${(err as Error).message}`, template),
              );
            }
          }
        }
      });
    });
  });
  return errors;
}

/** Variables a DiscoverVariables extension defined for one external patch of the class. */
export type DiscoveredVariables = { readonly patchName: string; readonly variables: readonly ClusterClassVariable[] };

/** A schema without its `false` boolean flags, which do not change its meaning (upstream dropFalsePtrBool). */
function computeSchemaForComparison(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(computeSchemaForComparison);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (value === false && falseDroppable.has(key)) continue;
    out[key] = key === 'enum' || key === 'default' || key === 'example' ? value : computeSchemaForComparison(value);
  }
  return out;
}
const falseDroppable = new Set([
  'uniqueItems',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
]);

/** Whether two definitions of a variable differ (upstream: required, the schema without false flags, metadata). */
function definitionsDiffer(a: ClusterClassStatusVariableDefinition, b: ClusterClassStatusVariableDefinition): boolean {
  return (
    (a.required ?? false) !== (b.required ?? false) ||
    computeStableJson(computeSchemaForComparison(a.schema.openAPIV3Schema)) !==
      computeStableJson(computeSchemaForComparison(b.schema.openAPIV3Schema)) ||
    computeStableJson(a.deprecatedV1Beta1Metadata ?? null) !== computeStableJson(b.deprecatedV1Beta1Metadata ?? null)
  );
}

/**
 * `status.variables` of a ClusterClass as upstream's ClusterClass controller writes it: every inline definition
 * (`from: inline`), then the variables each external patch's DiscoverVariables extension defined (`from: <patch
 * name>`), in patch order; a name defined more than once gets one definition per source and `definitionsConflict`
 * when they differ. Sorted by name.
 *
 * @example
 * computeClusterClassStatusVariables(cc, [{ patchName: 'test-patch', variables: discovered }]);
 */
export function computeClusterClassStatusVariables(
  cc: ClusterClass,
  discovered: readonly DiscoveredVariables[] = [],
): ClusterClassStatusVariable[] {
  const byName = new Map<string, ClusterClassStatusVariable>();
  const add = (v: ClusterClassVariable, from: string) => {
    const definition: ClusterClassStatusVariableDefinition = {
      from,
      required: v.required,
      ...(v.deprecatedV1Beta1Metadata ? { deprecatedV1Beta1Metadata: v.deprecatedV1Beta1Metadata } : {}),
      schema: v.schema,
    };
    const existing = byName.get(v.name);
    if (!existing) {
      byName.set(v.name, { name: v.name, definitionsConflict: false, definitions: [definition] });
      return;
    }
    const first = existing.definitions[0];
    byName.set(v.name, {
      name: v.name,
      definitionsConflict:
        existing.definitionsConflict || (first !== undefined && definitionsDiffer(first, definition)),
      definitions: [...existing.definitions, definition],
    });
  };
  for (const v of cc.spec.variables ?? []) add(v, 'inline');
  for (const { patchName, variables } of discovered) for (const v of variables) add(v, patchName);
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
