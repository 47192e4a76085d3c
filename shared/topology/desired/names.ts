// Names of generated objects, as upstream's internal/topology/names: a prefix plus 5 random characters, or a
// ClusterClass naming template rendered with `.cluster.name`, `.random` and the worker's `.topologyName`.
import { renderTemplate } from '#shared/lang/gotemplate/index.ts';
import { CapiError } from '#shared/errors/index.ts';

const maxNameLength = 63;
const randomLength = 5;
const maxGeneratedNameLength = maxNameLength - randomLength;

export class NamingTemplateError extends CapiError {}

/** `base` (cut to 58 characters) followed by a random suffix. */
export function computeSimpleName(base: string, randomSuffix: () => string): string {
  return base.slice(0, maxGeneratedNameLength) + randomSuffix();
}

export const defaultControlPlaneNameTemplate = '{{ .cluster.name }}-{{ .random }}';
export const defaultMachineDeploymentNameTemplate =
  '{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-{{ .random }}';
export const defaultMachinePoolNameTemplate = '{{ .cluster.name }}-{{ .machinePool.topologyName }}-{{ .random }}';

/** Upstream's default for `spec.infrastructure.naming.template`. */
export const defaultInfrastructureClusterNameTemplate = '{{ .cluster.name }}-{{ .random }}';

export type NamingSubject =
  | { readonly kind: 'InfrastructureCluster' }
  | { readonly kind: 'ControlPlane' }
  | { readonly kind: 'MachineDeployment'; readonly topologyName: string }
  | { readonly kind: 'MachinePool'; readonly topologyName: string };

/**
 * Renders a naming template. Longer than 63 characters: cut to 58 and a new random suffix appended, as upstream.
 *
 * @example
 * computeTemplateName('{{ .cluster.name }}-{{ .random }}', 'c1', { kind: 'ControlPlane' }, () => 'abcde'); // 'c1-abcde'
 */
export function computeTemplateName(
  template: string,
  clusterName: string,
  subject: NamingSubject,
  randomSuffix: () => string,
): string {
  const data: Record<string, unknown> = { cluster: { name: clusterName }, random: randomSuffix() };
  if (subject.kind === 'MachineDeployment') data['machineDeployment'] = { topologyName: subject.topologyName };
  if (subject.kind === 'MachinePool') data['machinePool'] = { topologyName: subject.topologyName };
  let name: string;
  try {
    name = renderTemplate('template name generator', template, data, { functions: 'builtin', missingKey: 'error' });
  } catch (err) {
    throw new NamingTemplateError(
      `failed to generate name for ${subject.kind}: naming template ${JSON.stringify(template)}: ${(err as Error).message}`,
      {
        reason: 'InvalidNamingTemplate',
        fieldPath: 'naming.template',
      },
      { cause: err },
    );
  }
  if (name.length > maxNameLength) name = name.slice(0, maxGeneratedNameLength) + randomSuffix();
  return name;
}

/** Name prefixes upstream uses for cloned templates and objects. */
export const namePrefixes = {
  infrastructureCluster: (cluster: string) => `${cluster}-`,
  controlPlaneInfrastructureMachineTemplate: (cluster: string) => `${cluster}-`,
  machineDeploymentTemplate: (cluster: string, topology: string) => `${cluster}-${topology}-`,
  machinePoolObject: (cluster: string, topology: string) => `${cluster}-${topology}-`,
} as const;
