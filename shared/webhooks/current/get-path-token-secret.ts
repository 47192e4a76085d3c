// The webhooks' path token(s) kept in a Kubernetes Secret of the management cluster (key `token`), read through the
// API server the webhooks function already reaches: no Secrets Manager secret, no interface endpoint in private
// subnets, and nothing secret in the function's environment (only the Secret's namespace and name).
import { ValidationError } from '#shared/errors/index.ts';
import { getObject, type KubeClient } from '#shared/kube/index.ts';

/** The key of the Secret's data that holds the accepted token(s), whitespace-separated. */
export const pathTokenSecretKey = 'token';

/** Where the token is: a Secret's namespace and name. */
export type PathTokenSecretRef = { readonly namespace: string; readonly name: string };

const dns1123 = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const secretName = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/**
 * Parses `<namespace>/<name>`; throws a ValidationError naming `field` when it is not one.
 *
 * @example
 * parsePathTokenSecretRef('capi-serverless-system/capi-serverless-webhook-token', 'WEBHOOK_TOKEN_KUBE_SECRET');
 */
export function parsePathTokenSecretRef(text: string, field: string): PathTokenSecretRef {
  const [namespace = '', name = '', extra] = text.split('/');
  if (extra !== undefined || !dns1123.test(namespace) || !secretName.test(name))
    throw new ValidationError(
      `${field} must be <namespace>/<name> of a Kubernetes Secret, got ${JSON.stringify(text)}`,
      {
        fieldPath: field,
        reason: 'InvalidEnvironment',
      },
    );
  return { namespace, name };
}

/**
 * The Secret's `token` value (decoded); throws when the Secret or the key is missing, so the webhooks fail closed.
 *
 * @example
 * const tokens = parsePathTokens(await getPathTokenSecret(kube, { namespace: 'capi-serverless-system', name: 'capi-serverless-webhook-token' }));
 */
export async function getPathTokenSecret(kube: KubeClient, ref: PathTokenSecretRef): Promise<string> {
  const secret = await getObject(kube, { apiVersion: 'v1', kind: 'Secret', ...ref });
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const encoded = data[pathTokenSecretKey];
  if (encoded === undefined)
    throw new ValidationError(
      `Secret ${ref.namespace}/${ref.name} has no data key ${JSON.stringify(pathTokenSecretKey)}`,
      {
        kind: 'Secret',
        namespace: ref.namespace,
        name: ref.name,
        fieldPath: `data.${pathTokenSecretKey}`,
        reason: 'MissingPathToken',
      },
    );
  return Buffer.from(encoded, 'base64').toString('utf8');
}
