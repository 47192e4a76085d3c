// The loopback webhook server (test/support/harness/webhook-server.ts, also the local mode's): an idle keep-alive
// connection stays open past Node's default 5 s, so a client that reuses it (kube-apiserver keeps them up to 90 s) does
// not write into a connection the server is closing ("failed calling webhook ...: write: broken pipe", seen by
// upstream's envtest tests, test/upstream-envtest).
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { startWebhookServer, type WebhookServer } from '#test/support/harness/webhook-server.ts';

function post(server: WebhookServer, agent: Agent): Promise<{ status: number; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/validate`,
      { method: 'POST', agent, ca: Buffer.from(server.caBundle, 'base64').toString() },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

describe('webhook server keep-alive', () => {
  let server: WebhookServer;
  before(async () => {
    server = await startWebhookServer(async () => ({ statusCode: 200, body: '{}' }));
  });
  after(async () => {
    await server?.stop();
  });

  test('reuses a connection left idle for 6 s', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      assert.deepEqual(await post(server, agent), { status: 200, reusedSocket: false });
      await new Promise((r) => setTimeout(r, 6_000));
      assert.deepEqual(await post(server, agent), { status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
    }
  });
});
