// The webhooks function's dependencies from its environment: with EKS_CLUSTER_NAME, every request to the management
// cluster carries an EKS token signed with the function's own credentials (a loopback HTTP server stands in for the
// EKS API server and records what arrives).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { computeWebhooksHandlerOptions } from '#shared/webhooks/create-webhook-deps.ts';

const authorizations: string[] = [];
const server = createServer((req, res) => {
  authorizations.push(req.headers.authorization ?? '');
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
});
let endpoint = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('computeWebhooksHandlerOptions', () => {
  test('with EKS_CLUSTER_NAME, lookups carry an EKS token signed with the function credentials', async () => {
    const options = computeWebhooksHandlerOptions({
      AWS_REGION: 'eu-west-1',
      EKS_CLUSTER_NAME: 'mgmt',
      EKS_CLUSTER_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      AWS_SESSION_TOKEN: 'session',
    });
    const { reader } = await options.getDeps();
    const cc = await reader.getClusterClass({ namespace: 'default', name: 'missing' });
    assert.equal(cc, undefined);
    assert.ok(authorizations.length > 0);
    const token = authorizations.at(-1)?.replace(/^Bearer /, '') ?? '';
    assert.match(token, /^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
    assert.equal(url.host, 'sts.eu-west-1.amazonaws.com');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.match(url.searchParams.get('X-Amz-Credential') ?? '', /^AKIDEXAMPLE\//);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), 'session');
    assert.match(url.searchParams.get('X-Amz-SignedHeaders') ?? '', /x-k8s-aws-id/);
  });

  test('with EKS_CLUSTER_NAME but no credentials in the environment, a lookup fails naming the variable', async () => {
    const options = computeWebhooksHandlerOptions({ EKS_CLUSTER_NAME: 'mgmt', EKS_CLUSTER_ENDPOINT: endpoint });
    const { reader } = await options.getDeps();
    await assert.rejects(reader.getClusterClass({ namespace: 'default', name: 'x' }), /AWS_ACCESS_KEY_ID/);
  });

  /** A stand-in for the Parameters and Secrets extension answering for a secret or an SSM parameter. */
  async function withExtension(
    answer: () => unknown,
    run: (port: string, seen: string[]) => Promise<void>,
  ): Promise<void> {
    const seen: string[] = [];
    const extension = createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${String(req.headers['x-aws-parameters-secrets-token'])}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer()));
    });
    await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', () => resolve()));
    try {
      await run(String((extension.address() as AddressInfo).port), seen);
    } finally {
      await new Promise<void>((resolve) => extension.close(() => resolve()));
    }
  }

  test("with WEBHOOK_TOKEN_SECRET_ARN, the accepted tokens are the secret's, read at run time and cached a minute per warm container", async () => {
    let secretString = 'token-a-0123456789abcdef token-b-0123456789abcdef';
    let clock = 0;
    await withExtension(
      () => ({ SecretString: secretString }),
      async (port, seen) => {
        const options = computeWebhooksHandlerOptions(
          {
            WEBHOOK_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:webhook-token-AbCdEf',
            PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: port,
            AWS_SESSION_TOKEN: 'session',
          },
          () => clock,
        );
        assert.equal(options.pathToken, undefined);
        assert.deepEqual(await options.getPathTokens?.(), ['token-a-0123456789abcdef', 'token-b-0123456789abcdef']);
        secretString = 'token-b-0123456789abcdef';
        clock = 59_000;
        await Promise.all([options.getPathTokens?.(), options.getPathTokens?.()]);
        assert.equal(seen.length, 1, 'one read per minute per warm container');
        clock = 60_000;
        assert.deepEqual(await options.getPathTokens?.(), ['token-b-0123456789abcdef'], 'a rotation needs no restart');
        assert.match(seen[0] ?? '', /^\/secretsmanager\/get\?secretId=arn%3Aaws%3Asecretsmanager%3A.* session$/);
        secretString = 'short';
        clock = 120_000;
        await assert.rejects(options.getPathTokens?.() ?? Promise.resolve(), /at least 16 characters/);
        secretString = 'token-c-0123456789abcdef';
        assert.deepEqual(await options.getPathTokens?.(), ['token-c-0123456789abcdef'], 'a failed read is not cached');
      },
    );
  });

  test('with WEBHOOK_TOKEN_PARAMETER_NAME, the tokens are the SSM SecureString parameter’s, decrypted', async () => {
    await withExtension(
      () => ({ Parameter: { Name: '/capi/webhook-token', Type: 'SecureString', Value: 'token-p-0123456789abcdef' } }),
      async (port, seen) => {
        const options = computeWebhooksHandlerOptions({
          WEBHOOK_TOKEN_PARAMETER_NAME: '/capi/webhook-token',
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: port,
          AWS_SESSION_TOKEN: 'session',
        });
        assert.deepEqual(await options.getPathTokens?.(), ['token-p-0123456789abcdef']);
        assert.deepEqual(seen, [
          '/systemsmanager/parameters/get?name=%2Fcapi%2Fwebhook-token&withDecryption=true session',
        ]);
      },
    );
  });

  test('refuses both a token secret and a token parameter, naming the variable', () => {
    assert.throws(
      () =>
        computeWebhooksHandlerOptions({
          WEBHOOK_TOKEN_SECRET_ARN: 'webhook-token',
          WEBHOOK_TOKEN_PARAMETER_NAME: '/capi/webhook-token',
        }),
      /set only one of .*\(got WEBHOOK_TOKEN_SECRET_ARN and WEBHOOK_TOKEN_PARAMETER_NAME\)/,
    );
  });
});
