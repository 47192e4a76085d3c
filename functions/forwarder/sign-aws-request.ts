// AWS Signature Version 4 for the forwarder's one kind of request (a JSON POST to a regional endpoint), written on
// node:crypto so the container does not load an SDK for it. Pure: the time and credentials come in.
import { createHash, createHmac } from 'node:crypto';

export type AwsCredentials = {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
};

export type AwsRequestToSign = {
  readonly method: 'POST' | 'GET';
  readonly host: string;
  /** Absolute path, already URI-encoded (e.g. `/`). */
  readonly path: string;
  /** Header names in lower case; `host` and `x-amz-date` (and `x-amz-security-token`) are added. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly region: string;
  readonly service: string;
};

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** `20260102T030405Z` of an epoch-millisecond time. */
export function formatAmzDate(nowMs: number): string {
  return new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The headers to send: the request's own plus `host`, `x-amz-date`, `x-amz-security-token` (with a session token),
 * `x-amz-content-sha256` and `authorization`, every header signed.
 *
 * @example
 * const headers = signAwsRequest({ method: 'POST', host: 'events.eu-west-1.amazonaws.com', path: '/', headers: {
 *   'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' }, body, region: 'eu-west-1',
 *   service: 'events' }, credentials, Date.now());
 */
export function signAwsRequest(
  req: AwsRequestToSign,
  credentials: AwsCredentials,
  nowMs: number,
): Record<string, string> {
  const amzDate = formatAmzDate(nowMs);
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(req.body);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v.trim()])),
    host: req.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
    ...(credentials.sessionToken === undefined ? {} : { 'x-amz-security-token': credentials.sessionToken }),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    req.method,
    req.path,
    '',
    ...names.map((n) => `${n}:${headers[n]!.replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${req.region}/${req.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), req.region), req.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
