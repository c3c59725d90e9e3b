/**
 * Operating the service: bounds on slow clients, shutdown with a deadline, request ids and the log
 * line per request, security headers, compression, CORS and metrics. Real listening servers and raw
 * sockets where the behaviour is about connections.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { buildApp } from '../../src/app.ts';
import type { AppConfig } from '../../src/config.ts';
import { closeWithDeadline } from '../../src/server.ts';
import { seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, openTestStorage, recordingLimiter, type TestApp, testConfig } from '../support/harness.ts';

/** Resolves when `socket` closes, failing after `ms` (the bound under test must close it sooner). */
function closedWithin(socket: Socket, ms: number): Promise<{ elapsed: number; received: string }> {
  const started = performance.now();
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ elapsed: performance.now() - started, received });
    });
  });
}

async function listening(t: TestApp): Promise<number> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.app.server.address() as { port: number }).port;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

const http = (overrides: Partial<AppConfig['http']>): Partial<AppConfig> => ({ http: { ...testConfig().http, ...overrides } });

describe('bounds on slow clients', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp('sqlite', { config: http({ headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 }) });
    port = await listening(t);
  });
  after(() => t.dispose());

  it('closes a connection whose headers stop half way, at the header bound', async () => {
    const socket = await open(port);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const { elapsed, received } = await closedWithin(socket, 5000);
    assert.ok(elapsed >= 250, `closed after ${elapsed} ms, before the bound`);
    assert.match(received, /^HTTP\/1\.1 408/);
  });

  it('closes a connection whose body stops, at the request bound', async () => {
    const socket = await open(port);
    socket.write(
      `POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tenant.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    const { elapsed } = await closedWithin(socket, 5000);
    assert.ok(elapsed >= 500, `closed after ${elapsed} ms, before the bound`);
  });

  it('closes an idle keep-alive connection at its bound', async () => {
    const socket = await open(port);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const { elapsed, received } = await closedWithin(socket, 5000);
    assert.match(received, /^HTTP\/1\.1 200/);
    assert.ok(elapsed >= 250, `closed after ${elapsed} ms`);
  });
});

describe('keep-alive clients', () => {
  /** Answers `count` pipelined GET /healthz sent at once on one connection, by status. */
  async function pipelined(port: number, count: number): Promise<Record<string, number>> {
    const socket = await open(port);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count));
    let received = '';
    socket.setEncoding('utf8');
    const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1] as string);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${statuses().length} of ${count} answers within 10 s`)), 10_000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (statuses().length >= count) done();
      });
      socket.once('close', done);
    });
    socket.destroy();
    return statuses().reduce<Record<string, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
  }

  it('by default serves a busy keep-alive connection without a request cap (no 503 after 1,000)', async () => {
    const t = await buildTestApp('sqlite');
    try {
      assert.deepEqual(await pipelined(await listening(t), 1100), { 200: 1100 });
    } finally {
      await t.dispose();
    }
  });

  it('closes a connection after MAX_REQUESTS_PER_SOCKET when asked', async () => {
    const t = await buildTestApp('sqlite', { config: http({ maxRequestsPerSocket: 5 }) });
    try {
      const counts = await pipelined(await listening(t), 8);
      assert.equal(counts[200], 5, JSON.stringify(counts));
    } finally {
      await t.dispose();
    }
  });
});

describe('shutdown with a deadline', () => {
  it('cuts an upload still running at the deadline and has removed its .partial file once closed', async () => {
    const t = await buildTestApp('sqlite');
    try {
      const board = await seedBoard(t.services, t.tenant, { lists: 1 });
      const card = await t.app.inject({
        method: 'POST',
        url: '/api/v1/cards',
        headers: bearer(t.tenant.apiKey),
        payload: { list: board.listIds[0], name: 'C' },
      });
      assert.equal(card.statusCode, 201, card.body);
      const port = await listening(t);
      const socket = await open(port);
      const boundary = 'xBOUNDARYx';
      socket.write(
        `POST /api/v1/cards/${card.json().card?._id ?? card.json()._id}/attachments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tenant.apiKey}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n` +
          'x'.repeat(70_000),
      );
      // The upload is in flight once its .partial file exists.
      const partials = () =>
        existsSync(t.config.uploadDir)
          ? readdirSync(t.config.uploadDir, { recursive: true })
              .map(String)
              .filter((f) => f.endsWith('.partial'))
          : [];
      let received = '';
      socket.on('data', (chunk) => (received += String(chunk)));
      const started = performance.now();
      while (partials().length === 0) {
        assert.ok(performance.now() - started < 5000, `the upload never started: ${received}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const cut = closedWithin(socket, 5000);
      const clean = await closeWithDeadline(t.app, 200);
      assert.equal(clean, false, 'the upload outlived the deadline');
      // Closed means the cut upload's file is gone already: the server's process exits right after.
      assert.deepEqual(partials(), [], 'a graceful stop leaves no .partial file');
      await cut;
    } finally {
      await t.dispose();
    }
  });

  it('closes at once when nothing is running', async () => {
    const t = await buildTestApp('sqlite');
    try {
      await listening(t);
      assert.equal(await closeWithDeadline(t.app, 5000), true);
    } finally {
      await t.dispose();
    }
  });
});

/** The app with its log lines captured as parsed JSON. */
async function loggedApp(config: Partial<AppConfig> = {}) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const test = await openTestStorage('sqlite');
  const app = await buildApp({ config: testConfig(config), storage: test.storage, rateLimiter: null, logger: { level: 'info', stream } });
  await app.ready();
  const { bootstrap } = await import('../../src/domain/account/bootstrap.ts');
  const tenant = await bootstrap(app.services, { company: 'A', team: 'T', email: 'a@a.test', fullName: 'A' });
  return {
    app,
    lines,
    tenant,
    dispose: async () => {
      await app.close();
      await test.dispose();
    },
  };
}

describe('request ids and the log line per request', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(() => t.dispose());

  it('echoes a sane inbound X-Request-Id and replaces one that is not', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'gw-1234.abc' } });
    assert.equal(kept.headers['x-request-id'], 'gw-1234.abc');
    for (const bad of ['has space', 'x'.repeat(129), 'tab\there']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope', headers: { 'x-request-id': bad } });
      assert.notEqual(res.headers['x-request-id'], bad);
      assert.equal(res.json().requestId, res.headers['x-request-id']);
    }
    const ids = await Promise.all(Array.from({ length: 20 }, () => t.app.inject({ method: 'GET', url: '/healthz' })));
    assert.equal(new Set(ids.map((r) => r.headers['x-request-id'])).size, 20, 'generated ids are unique');
  });

  it('echoes a valid traceparent and ignores a malformed one', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { traceparent } });
    assert.equal(res.headers.traceparent, traceparent);
    const bad = await t.app.inject({ method: 'GET', url: '/healthz', headers: { traceparent: '00-000-bad-01' } });
    assert.equal(bad.headers.traceparent, undefined);
  });

  it('logs one completion line with route template, status, user, key and trace id', async () => {
    const logged = await loggedApp();
    try {
      const { tenant } = logged;
      const { boardId } = await seedBoard(logged.app.services, tenant);
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await logged.app.inject({
        method: 'GET',
        url: `/api/v1/boards/${boardId}`,
        headers: { ...bearer(tenant.apiKey), traceparent, 'x-request-id': 'req-42' },
      });
      const line = logged.lines.find((l) => l.msg === 'request completed' && l.reqId === 'req-42');
      assert.ok(line, JSON.stringify(logged.lines));
      assert.equal(line.level, 30);
      assert.equal(line.route, '/api/v1/boards/:boardId');
      assert.equal(line.status, res.statusCode);
      assert.equal(line.userId, tenant.userId);
      assert.match(String(line.apiKeyId), /^[0-9a-f]{24}$/);
      assert.equal(line.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    } finally {
      await logged.dispose();
    }
  });

  it('logs a client that aborts at info, not as an error', async () => {
    const logged = await loggedApp();
    try {
      await logged.app.listen({ host: '127.0.0.1', port: 0 });
      const socket = await open((logged.app.server.address() as { port: number }).port);
      const arrived = new Promise((resolve) => logged.app.server.once('request', resolve));
      socket.write(
        `POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${logged.tenant.apiKey}\r\nX-Request-Id: abort-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      );
      await arrived;
      socket.destroy();
      const started = performance.now();
      while (!logged.lines.some((l) => l.reqId === 'abort-1' && /abort|closed/.test(String(l.msg)))) {
        assert.ok(performance.now() - started < 5000, JSON.stringify(logged.lines));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const mine = logged.lines.filter((l) => l.reqId === 'abort-1');
      assert.ok(
        mine.every((l) => (l.level as number) <= 30),
        JSON.stringify(mine),
      );
      // Once, and no completion line for an answer nobody received.
      assert.equal(mine.filter((l) => l.msg === 'client aborted the request').length, 1, JSON.stringify(mine));
      assert.equal(mine.filter((l) => l.msg === 'request completed').length, 0, JSON.stringify(mine));
    } finally {
      await logged.dispose();
    }
  });
});

describe('security headers, compression and CORS', () => {
  let t: TestApp;
  let boardId: string;
  before(async () => {
    t = await buildTestApp('sqlite', { config: { cors: { origins: ['https://board.example'], maxAgeSeconds: 900 } } });
    const board = await seedBoard(t.services, t.tenant, { lists: 3, labels: 3 });
    boardId = board.boardId;
    for (let i = 0; i < 20; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/cards',
        headers: bearer(t.tenant.apiKey),
        payload: { list: board.listIds[i % 3], name: `Card number ${i} with a name` },
      });
    }
  });
  after(() => t.dispose());

  it("sends an API's security headers on API answers and errors, and a page's on the docs UI", async () => {
    for (const url of ['/healthz', '/api/v1/me', '/api/v1/nope']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", url);
      assert.match(String(res.headers['strict-transport-security']), /^max-age=\d+/, url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', url);
      assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin', url);
      // what only a rendered page needs is left off JSON
      for (const pageOnly of [
        'cross-origin-opener-policy',
        'origin-agent-cluster',
        'x-dns-prefetch-control',
        'x-download-options',
        'x-permitted-cross-domain-policies',
        'x-xss-protection',
      ]) {
        assert.equal(res.headers[pageOnly], undefined, `${url} ${pageOnly}`);
      }
    }
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
  });

  it('keeps /docs working under its CSP: the page, and the scripts and styles it loads from its own origin', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode === 302) res = await t.app.inject({ method: 'GET', url: new URL(String(res.headers.location), 'http://x/docs/').pathname });
    assert.equal(res.statusCode, 200);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    const html = res.body;
    assert.doesNotMatch(html, /<script>(?!\s*<\/script>)/, 'no inline script, which the CSP would block');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1] as string);
    assert.ok(
      assets.some((a) => a.endsWith('.js')),
      html,
    );
    for (const asset of assets) {
      assert.ok(!/^https?:/.test(asset), `${asset} is not from our own origin`);
      const loaded = await t.app.inject({ method: 'GET', url: new URL(asset, 'http://x/docs/').pathname });
      assert.equal(loaded.statusCode, 200, asset);
    }
  });

  it('gzips the board view, which decodes to the same JSON', async () => {
    const url = `/api/v1/boards/${boardId}`;
    const plain = await t.app.inject({ method: 'GET', url, headers: bearer(t.tenant.apiKey) });
    const zipped = await t.app.inject({ method: 'GET', url, headers: { ...bearer(t.tenant.apiKey), 'accept-encoding': 'gzip' } });
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    const decoded = gunzipSync(zipped.rawPayload);
    assert.deepEqual(JSON.parse(decoded.toString('utf8')), plain.json());
    assert.ok(zipped.rawPayload.length * 3 < decoded.length, `${zipped.rawPayload.length} of ${decoded.length} bytes`);
    const small = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(small.headers['content-encoding'], undefined, 'small answers stay plain');
  });

  it('answers CORS for the configured origins only, with a cacheable preflight', async () => {
    const preflight = (origin: string) => t.app.inject({ method: 'OPTIONS', url: '/api/v1/me', headers: { origin, 'access-control-request-method': 'PATCH' } });
    const allowed = await preflight('https://board.example');
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://board.example');
    assert.equal(allowed.headers['access-control-max-age'], '900');
    const other = await preflight('https://evil.example');
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  it('answers OPTIONS without asking a key or a tier: a 405 with Allow when CORS is off, a preflight when on', async () => {
    const closed = await buildTestApp('sqlite', { rateLimiter: recordingLimiter() });
    try {
      for (const headers of [{}, bearer(closed.tenant.apiKey), { origin: 'https://board.example', 'access-control-request-method': 'PATCH' }]) {
        const res = await closed.app.inject({ method: 'OPTIONS', url: '/api/v1/me', headers });
        assert.equal(res.statusCode, 405, res.body);
        assert.equal(res.json().code, 'method_not_allowed');
        assert.equal(res.headers.allow, 'GET, HEAD, PATCH');
        assert.equal(res.headers['access-control-allow-origin'], undefined);
        assert.equal((await closed.app.inject({ method: 'OPTIONS', url: '/api/v1/nowhere', headers })).json().code, 'not_found');
      }
    } finally {
      await closed.dispose();
    }
    for (const headers of [{ origin: 'https://board.example', 'access-control-request-method': 'PATCH' }, {}]) {
      const res = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/me', headers });
      assert.equal(res.statusCode, 204, res.body);
    }
  });

  it('sends no CORS headers by default, and * only when asked', async () => {
    const closed = await buildTestApp('sqlite');
    const open = await buildTestApp('sqlite', { config: { cors: { origins: '*', maxAgeSeconds: 60 } } });
    try {
      const headers = { origin: 'https://board.example' };
      assert.equal((await closed.app.inject({ method: 'GET', url: '/healthz', headers })).headers['access-control-allow-origin'], undefined);
      assert.equal((await open.app.inject({ method: 'GET', url: '/healthz', headers })).headers['access-control-allow-origin'], '*');
    } finally {
      await closed.dispose();
      await open.dispose();
    }
  });
});

/** The value of one sample in a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(match[3]);
  }
  return undefined;
}

const TOKEN = 'metrics-token-0123456789';

describe('metrics', () => {
  it('are off unless configured', async () => {
    const t = await buildTestApp('sqlite');
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    } finally {
      await t.dispose();
    }
  });

  for (const engine of ENGINES) {
    it(`behind METRICS_TOKEN: refused without it; requests by route template, rate-limit decisions, pool use [${engine}]`, async () => {
      const t = await buildTestApp(engine, { config: { metrics: { token: TOKEN, port: undefined, host: '127.0.0.1' } }, rateLimiter: recordingLimiter() });
      try {
        for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${TOKEN}x` }]) {
          const refused = await t.app.inject({ method: 'GET', url: '/metrics', headers });
          assert.equal(refused.statusCode, 401);
          assert.equal(refused.json().code, 'unauthorized');
        }
        const { boardId } = await seedBoard(t.services, t.tenant);
        await t.app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}`, headers: bearer(t.tenant.apiKey) });
        const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
        assert.equal(res.statusCode, 200);
        const text = res.body;
        assert.equal(sample(text, 'http_request_duration_seconds_count', { route: '/api/v1/boards/:boardId', status_code: '200', method: 'GET' }), 1, text);
        assert.ok(!text.includes(boardId), 'no raw URLs as labels');
        assert.ok(sample(text, 'http_request_duration_seconds_bucket', { route: '/api/v1/boards/:boardId', le: '+Inf' }));
        assert.ok((sample(text, 'taskboard_rate_limit_decisions_total', { tier: 'very-low', outcome: 'admitted' }) ?? 0) >= 1, text);
        if (engine === 'postgres') assert.ok((sample(text, 'taskboard_db_pool_connections', { state: 'total' }) ?? 0) >= 1, text);
        else assert.equal(sample(text, 'taskboard_db_pool_connections', { state: 'total' }), undefined);
      } finally {
        await t.dispose();
      }
    });
  }

  it('on METRICS_PORT: served there, not on the API port; Redis failover state', async () => {
    // A Redis nobody listens on: the limiter starts on the database fallback.
    const test = await openTestStorage('sqlite');
    const config = testConfig({ metrics: { token: undefined, port: 0, host: '127.0.0.1' }, redisUrl: 'redis://127.0.0.1:1' });
    const app = await buildApp({ config, storage: test.storage, logger: false });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
      const address = app.metricsAddress;
      assert.ok(address);
      const res = await fetch(`http://127.0.0.1:${address.port}/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.equal(sample(text, 'taskboard_redis_failover'), 1, text);
    } finally {
      await app.close();
      await test.dispose();
    }
  });
});
