// EKS authentication without an exec plugin: the bearer token `aws eks get-token` prints, computed from the
// function's own credentials (a presigned STS GetCallerIdentity URL that names the cluster in a signed header).
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, Checksum, SourceData } from '@smithy/types';
import type { TokenProvider } from '#shared/kube/kubeconfig.ts';

export type EksTokenInput = {
  readonly clusterName: string;
  /** Region of the STS endpoint (the cluster's region). */
  readonly region: string;
  readonly credentials: AwsCredentialIdentity;
  /** Signing time in epoch milliseconds. */
  readonly now: number;
};

/** How long a token's presigned URL is valid; EKS also rejects tokens older than 15 minutes. */
export const eksTokenExpiresInSeconds = 60;
const tokenPrefix = 'k8s-aws-v1.';

/** SHA-256 (or HMAC-SHA-256 with a secret) from node:crypto, in the shape the signer takes. */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.create();
  }
  private create(): Hash | Hmac {
    return this.secret === undefined
      ? createHash('sha256')
      : createHmac('sha256', typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as Uint8Array));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.create();
  }
}

/**
 * The token: `k8s-aws-v1.` + unpadded base64url of an STS GetCallerIdentity URL presigned for 60 s with the
 * `x-k8s-aws-id: <cluster name>` header signed (what aws-iam-authenticator verifies).
 *
 * @example
 * const token = await computeEksToken({ clusterName: 'mgmt', region: 'eu-west-1', credentials, now: Date.now() });
 */
export async function computeEksToken(input: EksTokenInput): Promise<string> {
  const hostname = `sts.${input.region}.amazonaws.com`;
  const signer = new SignatureV4({
    service: 'sts',
    region: input.region,
    credentials: input.credentials,
    sha256: NodeSha256,
    uriEscapePath: true,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, 'x-k8s-aws-id': input.clusterName },
    },
    { expiresIn: eksTokenExpiresInSeconds, signingDate: new Date(input.now) },
  );
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(signed.query ?? {})) {
    for (const v of [value ?? ''].flat()) query.append(key, v);
  }
  const url = `https://${hostname}/?${query.toString()}`;
  return tokenPrefix + Buffer.from(url).toString('base64url');
}

/** Renew a cached token this long before its URL expires. */
const renewBeforeMs = 15_000;

/**
 * A {@link TokenProvider} for a client: computes a token with fresh credentials and reuses it until shortly before
 * its presigned URL expires.
 *
 * @example
 * const kube = await createKubeClient(source, { tokenProvider: createEksTokenProvider({ clusterName, region, getCredentials }) });
 */
export function createEksTokenProvider(options: {
  readonly clusterName: string;
  readonly region: string;
  readonly getCredentials: () => Promise<AwsCredentialIdentity>;
  readonly now?: () => number;
}): TokenProvider {
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | undefined;
  return async () => {
    const t = now();
    if (!cached || t > cached.expiresAt - renewBeforeMs) {
      const token = await computeEksToken({
        clusterName: options.clusterName,
        region: options.region,
        credentials: await options.getCredentials(),
        now: t,
      });
      cached = { token, expiresAt: t + eksTokenExpiresInSeconds * 1000 };
    }
    return cached.token;
  };
}
