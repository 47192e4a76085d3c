// Only Secrets of type `addons.cluster.x-k8s.io/resource-set` may feed a ClusterResourceSet, so a ClusterResourceSet
// cannot copy arbitrary Secrets of its namespace into workload clusters.
import { CapiError, describeObject } from '#shared/errors/index.ts';
import { ClusterResourceSetSecretType } from '#shared/api/addons/v1beta2/cluster-resource-set.ts';

/** A Secret referenced by a ClusterResourceSet has a type other than `addons.cluster.x-k8s.io/resource-set`. */
export class WrongSecretTypeError extends CapiError {
  readonly secretType: string;

  constructor(secret: { readonly namespace: string; readonly name: string; readonly type?: string | undefined }) {
    const type = secret.type ?? '';
    super(
      `unsupported secret type: ${describeObject('Secret', secret.namespace, secret.name)} has type ${JSON.stringify(type)}, ` +
        `a ClusterResourceSet only reads Secrets of type ${JSON.stringify(ClusterResourceSetSecretType)}`,
      { kind: 'Secret', namespace: secret.namespace, name: secret.name, fieldPath: 'type', reason: 'WrongSecretType' },
    );
    this.secretType = type;
  }
}

/**
 * The error for a Secret a ClusterResourceSet may not read, or undefined when its type is
 * `addons.cluster.x-k8s.io/resource-set`.
 *
 * @example
 * computeSecretTypeCheck({ namespace: 'ns', name: 'db', type: 'Opaque' })?.message;
 * // 'unsupported secret type: Secret ns/db has type "Opaque", a ClusterResourceSet only reads Secrets of type "addons.cluster.x-k8s.io/resource-set"'
 */
export function computeSecretTypeCheck(secret: {
  readonly namespace: string;
  readonly name: string;
  readonly type?: string | undefined;
}): WrongSecretTypeError | undefined {
  return secret.type === ClusterResourceSetSecretType ? undefined : new WrongSecretTypeError(secret);
}
