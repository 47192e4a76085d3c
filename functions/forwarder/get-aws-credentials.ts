// The forwarder's AWS credentials, from the sources a pod on EKS has, in the AWS SDK's order: static keys in the
// environment, a web identity token (IRSA: STS AssumeRoleWithWebIdentity), the container credentials endpoint (EKS Pod
// Identity, ECS). Temporary credentials are cached until five minutes before they expire.
import { readFileSync } from 'node:fs';
import { CapiError } from '#shared/errors/index.ts';
import type { AwsCredentials } from '#functions/forwarder/sign-aws-request.ts';
import { requestText, type TextRequest, type TextResponse } from '#functions/forwarder/request-text.ts';

/** No credential source is configured, or the one configured failed. */
export class AwsCredentialsError extends CapiError {}

export type CredentialsDeps = {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
  readonly request?: (url: string, req: TextRequest) => Promise<TextResponse>;
  readonly now?: () => number;
};

type Expiring = AwsCredentials & { readonly expiresAtMs?: number };

const refreshBeforeMs = 5 * 60_000;
const timeoutMs = 5_000;
const ecsHost = 'http://169.254.170.2';

const xmlField = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const xmlText = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);

/** The source the environment names, or undefined (checked at start-up so a pod without one fails at once). */
export function findCredentialsSource(
  env: CredentialsDeps['env'],
): 'environment' | 'web identity' | 'container' | undefined {
  if (env['AWS_ACCESS_KEY_ID'] && env['AWS_SECRET_ACCESS_KEY']) return 'environment';
  if (env['AWS_WEB_IDENTITY_TOKEN_FILE'] && env['AWS_ROLE_ARN']) return 'web identity';
  if (env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] || env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI']) return 'container';
  return undefined;
}

/**
 * A function returning current credentials (cached; refreshed before they expire).
 *
 * @example
 * const getCredentials = createCredentialsProvider({ env: process.env, region: 'eu-west-1' });
 * const { accessKeyId } = await getCredentials();
 */
export function createCredentialsProvider(
  deps: CredentialsDeps & { readonly region: string },
): () => Promise<AwsCredentials> {
  const { env } = deps;
  const readFile = deps.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const request = deps.request ?? requestText;
  const now = deps.now ?? Date.now;
  const source = findCredentialsSource(env);
  let cached: Expiring | undefined;
  let inFlight: Promise<Expiring> | undefined;

  async function fromWebIdentity(): Promise<Expiring> {
    const params = new URLSearchParams({
      Action: 'AssumeRoleWithWebIdentity',
      Version: '2011-06-15',
      RoleArn: env['AWS_ROLE_ARN'] ?? '',
      RoleSessionName: env['AWS_ROLE_SESSION_NAME'] || `capi-serverless-forwarder-${now()}`,
      WebIdentityToken: readFile(env['AWS_WEB_IDENTITY_TOKEN_FILE'] ?? '').trim(),
    });
    const res = await request(`https://sts.${deps.region}.amazonaws.com/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: params.toString(),
      timeoutMs,
    });
    const [accessKeyId, secretAccessKey, sessionToken, expiration] = [
      'AccessKeyId',
      'SecretAccessKey',
      'SessionToken',
      'Expiration',
    ].map((f) => xmlField(res.body, f));
    if (res.statusCode !== 200 || !accessKeyId || !secretAccessKey || !sessionToken) {
      const message = xmlField(res.body, 'Message') ?? `HTTP ${res.statusCode}`;
      throw new AwsCredentialsError(
        `STS AssumeRoleWithWebIdentity for ${env['AWS_ROLE_ARN']} failed: ${xmlText(message)}`,
      );
    }
    return {
      accessKeyId,
      secretAccessKey: xmlText(secretAccessKey),
      sessionToken: xmlText(sessionToken),
      ...(expiration ? { expiresAtMs: Date.parse(expiration) } : {}),
    };
  }

  async function fromContainer(): Promise<Expiring> {
    const url =
      env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] || `${ecsHost}${env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI']}`;
    const tokenFile = env['AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE'];
    const token = tokenFile ? readFile(tokenFile).trim() : env['AWS_CONTAINER_AUTHORIZATION_TOKEN'];
    const res = await request(url, { method: 'GET', headers: token ? { authorization: token } : {}, timeoutMs });
    let body: { AccessKeyId?: string; SecretAccessKey?: string; Token?: string; Expiration?: string; message?: string };
    try {
      body = JSON.parse(res.body) as typeof body;
    } catch {
      body = {};
    }
    if (res.statusCode !== 200 || !body.AccessKeyId || !body.SecretAccessKey) {
      throw new AwsCredentialsError(
        `the container credentials endpoint ${url} answered HTTP ${res.statusCode}${body.message ? `: ${body.message}` : ''}`,
      );
    }
    return {
      accessKeyId: body.AccessKeyId,
      secretAccessKey: body.SecretAccessKey,
      ...(body.Token ? { sessionToken: body.Token } : {}),
      ...(body.Expiration ? { expiresAtMs: Date.parse(body.Expiration) } : {}),
    };
  }

  async function load(): Promise<Expiring> {
    switch (source) {
      case 'environment':
        return {
          accessKeyId: env['AWS_ACCESS_KEY_ID'] ?? '',
          secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] ?? '',
          ...(env['AWS_SESSION_TOKEN'] ? { sessionToken: env['AWS_SESSION_TOKEN'] } : {}),
        };
      case 'web identity':
        return fromWebIdentity();
      case 'container':
        return fromContainer();
      default:
        throw new AwsCredentialsError(
          'no AWS credentials: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run with EKS Pod Identity or IRSA',
          { reason: 'NoCredentials' },
        );
    }
  }

  return async () => {
    const fresh = cached && (cached.expiresAtMs === undefined || now() < cached.expiresAtMs - refreshBeforeMs);
    if (fresh && cached) return cached;
    inFlight ??= load().finally(() => (inFlight = undefined));
    cached = await inFlight;
    return cached;
  };
}
