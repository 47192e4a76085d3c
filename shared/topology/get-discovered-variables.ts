// The variables a ClusterClass's external patches define (DiscoverVariables), as upstream's ClusterClass controller
// asks for them: used by the ClusterClass pass and by `plan`.
import * as z from 'zod';
import type { ClusterClass } from '#shared/api/core/v1beta2/cluster-class.ts';
import { ClusterClassVariable } from '#shared/api/core/v1beta2/variables.ts';
import { errorMessage } from '#shared/errors/index.ts';
import { callNamedExtension, type ExtensionCallDeps, type ExtensionRegistry } from '#shared/runtime-sdk/index.ts';
import type { DiscoveredVariables } from '#shared/topology/validation/validate-cluster-class.ts';
import { formatFieldErrors, validateClusterClassVariables } from '#shared/topology/variables/index.ts';

/**
 * The variables each external patch's DiscoverVariables extension defines (upstream reconcileVariables): the patch's
 * settings in the request, the answer's variables validated like inline ones (under `<patch>.variables`). Failures
 * are collected per patch, as upstream does.
 *
 * @example
 * const { discovered, errors } = await getDiscoveredVariables({ kube }, clusterClass);
 */
export async function getDiscoveredVariables(
  deps: ExtensionCallDeps & { readonly registry?: ExtensionRegistry },
  cc: ClusterClass,
): Promise<{ discovered: DiscoveredVariables[]; errors: string[] }> {
  const discovered: DiscoveredVariables[] = [];
  const errors: string[] = [];
  for (const patch of cc.spec.patches ?? []) {
    const name = patch.external?.discoverVariablesExtension;
    if (!name) continue;
    const settings = patch.external?.settings;
    let answer;
    try {
      answer = await callNamedExtension(
        deps,
        'DiscoverVariables',
        name,
        cc.metadata.namespace ?? '',
        settings ? { settings } : {},
      );
    } catch (err) {
      errors.push(`failed to call DiscoverVariables for patch ${patch.name}: ${errorMessage(err)}`);
      continue;
    }
    const parsed = z
      .array(ClusterClassVariable)
      .safeParse((answer.variables ?? []).map((v) => ({ required: false, ...v })));
    if (!parsed.success) {
      errors.push(
        `${patch.name}.variables: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join(', ')}`,
      );
      continue;
    }
    const invalid = formatFieldErrors(validateClusterClassVariables(parsed.data, `${patch.name}.variables`));
    if (invalid.length > 0) {
      errors.push(...invalid);
      continue;
    }
    discovered.push({ patchName: patch.name, variables: parsed.data });
  }
  return { discovered, errors };
}
