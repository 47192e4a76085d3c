// The kubeconfig reader the functions use instead of @kubernetes/client-node: server, TLS material and the
// authentication header of the current context.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { KubeconfigError, loadKubeConnection } from '#shared/kube/kubeconfig.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const kubeconfig = (
  user: string,
  cluster = `server: https://mgmt.example:6443/, certificate-authority-data: ${b64('CA')}`,
) =>
  [
    'apiVersion: v1',
    'kind: Config',
    'current-context: admin@mgmt',
    `clusters: [{name: mgmt, cluster: {${cluster}}}, {name: other, cluster: {server: https://other.example}}]`,
    `users: [{name: admin, user: {${user}}}]`,
    'contexts: [{name: other, context: {cluster: other, user: admin}}, {name: admin@mgmt, context: {cluster: mgmt, user: admin}}]',
  ].join('\n');

describe('loadKubeConnection', () => {
  test('reads the current context’s server, CA and client certificate', async () => {
    const conn = await loadKubeConnection({
      kubeconfig: kubeconfig(`client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}`),
    });
    assert.equal(conn.server, 'https://mgmt.example:6443');
    assert.deepEqual(
      { ca: String(conn.tls.ca), cert: String(conn.tls.cert), key: String(conn.tls.key) },
      { ca: 'CA', cert: 'CERT', key: 'KEY' },
    );
    assert.deepEqual(await conn.getAuthHeaders(), {});
  });

  const auth = [
    { name: 'sends a static token as a bearer token', user: 'token: abc', header: 'Bearer abc' },
    {
      name: 'sends a username and password as basic auth',
      user: 'username: u, password: p',
      header: `Basic ${b64('u:p')}`,
    },
  ];
  for (const c of auth) {
    test(c.name, async () => {
      const conn = await loadKubeConnection({ kubeconfig: kubeconfig(c.user) });
      assert.deepEqual(await conn.getAuthHeaders(), { Authorization: c.header });
    });
  }

  test('reads a token file and CA file relative to the kubeconfig file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
    writeFileSync(join(dir, 'token'), 'from-file\n');
    writeFileSync(join(dir, 'ca.crt'), 'FILE-CA');
    writeFileSync(
      join(dir, 'config'),
      kubeconfig('tokenFile: token', 'server: https://m.example, certificate-authority: ca.crt'),
    );
    const conn = await loadKubeConnection({ kubeconfigPath: join(dir, 'config') });
    assert.equal(String(conn.tls.ca), 'FILE-CA');
    assert.deepEqual(await conn.getAuthHeaders(), { Authorization: 'Bearer from-file' });
  });

  test('a token provider replaces the user’s credentials, even an exec plugin', async () => {
    const conn = await loadKubeConnection(
      { kubeconfig: kubeconfig('exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}') },
      { tokenProvider: () => Promise.resolve('k8s-aws-v1.x') },
    );
    assert.equal(conn.tls.cert, undefined);
    assert.deepEqual(await conn.getAuthHeaders(), { Authorization: 'Bearer k8s-aws-v1.x' });
  });

  test('an endpoint source takes its CA from base64 data', async () => {
    const conn = await loadKubeConnection({ server: 'https://eks.example/', certificateAuthorityData: b64('EKS-CA') });
    assert.equal(conn.server, 'https://eks.example');
    assert.equal(String(conn.tls.ca), 'EKS-CA');
  });

  test('names the missing cluster of the current context', async () => {
    const text = kubeconfig('token: t').replace('{name: mgmt, cluster:', '{name: gone, cluster:');
    await assert.rejects(loadKubeConnection({ kubeconfig: text }), (err: unknown) => {
      return err instanceof KubeconfigError && /has no cluster mgmt/.test(err.message);
    });
  });
});
