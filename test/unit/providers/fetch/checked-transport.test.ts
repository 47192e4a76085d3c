// The providers function's transport refuses, at connection time, a name that resolves to a refused address (what
// DNS rebinding would exploit after the pre-flight check); `localhost` (loopback in /etc/hosts) plays that name,
// served by a real HTTP server on loopback.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createCheckedTransport } from '#shared/providers/fetch/checked-transport.ts';
import { FetchTargetRefusedError } from '#shared/providers/fetch/fetch-policy.ts';

describe('createCheckedTransport', () => {
  let server: Server;
  let port = 0;
  let requests = 0;
  before(async () => {
    server = createServer((req, res) => {
      requests++;
      if (req.url === '/moved') return res.writeHead(302, { location: '/elsewhere' }).end();
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(200, { 'x-method': req.method ?? '' }).end(`got ${body || 'nothing'}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('refuses to connect to a name that resolves to loopback', async () => {
    const transport = createCheckedTransport({ allowedHosts: [] });
    await assert.rejects(transport(`http://localhost:${port}/x`), (err: unknown) => {
      assert.ok(err instanceof FetchTargetRefusedError, String(err));
      assert.match(err.message, /a loopback address \(localhost resolves to (127\.0\.0\.1|::1) at connection time\)/);
      return true;
    });
    assert.equal(requests, 0, 'no connection was made');
  });

  test('connects to an allow-listed host and returns the response as fetch would', async () => {
    const transport = createCheckedTransport({ allowedHosts: [`localhost:${port}`] });
    const res = await transport(`http://localhost:${port}/x`, { method: 'POST', body: 'form=1' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-method'), 'POST');
    assert.equal(await res.text(), 'got form=1');
  });

  test('returns redirects instead of following them', async () => {
    const transport = createCheckedTransport({ allowedHosts: [`localhost:${port}`] });
    const res = await transport(`http://localhost:${port}/moved`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/elsewhere');
  });
});
