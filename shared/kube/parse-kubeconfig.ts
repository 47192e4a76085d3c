// A kubeconfig file's text parsed and checked (YAML, then the fields capi-serverless reads), apart from
// kubeconfig.ts so that a process that never reads a kubeconfig file does not load the YAML parser or zod.
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { errorMessage } from '#shared/errors/index.ts';
import { KubeconfigError } from '#shared/kube/kubeconfig-error.ts';

const NamedCluster = z.object({
  name: z.string(),
  cluster: z.object({
    server: z.string().min(1),
    'certificate-authority-data': z.string().optional(),
    'certificate-authority': z.string().optional(),
    'insecure-skip-tls-verify': z.boolean().optional(),
    'tls-server-name': z.string().optional(),
  }),
});
const NamedUser = z.object({
  name: z.string(),
  user: z
    .object({
      'client-certificate-data': z.string().optional(),
      'client-certificate': z.string().optional(),
      'client-key-data': z.string().optional(),
      'client-key': z.string().optional(),
      token: z.string().optional(),
      tokenFile: z.string().optional(),
      username: z.string().optional(),
      password: z.string().optional(),
      exec: z.unknown().optional(),
      'auth-provider': z.unknown().optional(),
    })
    .nullish(),
});
const Kubeconfig = z.object({
  'current-context': z.string().optional(),
  clusters: z.array(NamedCluster).nullish(),
  users: z.array(NamedUser).nullish(),
  contexts: z
    .array(z.object({ name: z.string(), context: z.object({ cluster: z.string(), user: z.string().optional() }) }))
    .nullish(),
});
export type Kubeconfig = z.infer<typeof Kubeconfig>;

/**
 * Parses a kubeconfig's text; fails with a KubeconfigError naming `origin` and the field.
 *
 * @example
 * parseKubeconfig(readFileSync(path, 'utf8'), path)['current-context'];
 */
export function parseKubeconfig(text: string, origin: string): Kubeconfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new KubeconfigError(`failed to parse kubeconfig ${origin}: ${errorMessage(err)}`, {
      reason: 'InvalidKubeconfig',
    });
  }
  const parsed = Kubeconfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KubeconfigError(
      `failed to parse kubeconfig ${origin}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      { fieldPath: issue?.path.join('.') ?? '', reason: 'InvalidKubeconfig' },
    );
  }
  return parsed.data;
}
