/**
 * The live-stream suites' SSE client (test/support/sse.ts): a refused request is answered with its
 * whole body, even when the body arrives after the head, as it may on a loaded machine.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { openSse } from '../support/sse.ts';

describe('the SSE client of the stream suites', () => {
  it('answers a refused request once its body has arrived after the head', async () => {
    let sendBody!: () => void;
    const bodyMayGo = new Promise<void>((resolve) => (sendBody = resolve));
    const server = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.flushHeaders();
      void bodyMayGo.then(() => res.end('{"message":"Last-Event-ID names no event"}'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    // the body goes once the client has read the head and run what it runs on it
    const headRead = () => setImmediate(sendBody);
    subscribe('http.client.response.finish', headRead);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const stream = await openSse(base, '/events', {});
      assert.equal(stream.status, 400);
      assert.match(stream.body, /Last-Event-ID/);
    } finally {
      unsubscribe('http.client.response.finish', headRead);
      server.close();
    }
  });
});
