/**
 * The client's own layer against a real HTTP receiver that answers what each test scripts: retries
 * and their waits (an injected sleep records them, an injected random fixes the jitter), the retry
 * budget, cancellation, idempotency keys and the ETag cache.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { backoffMs, createTaskboardClient, parseRateLimit, serverWaitMs, type TaskboardClientOptions } from '../src/index.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

describe('@taskboard/client layer', () => {
  let server: Server;
  let baseUrl: string;
  let seen: Seen[];
  let script: Scripted[];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        const next = script.shift() ?? { status: 500, body: { message: 'unscripted', code: 'internal', requestId: 'x' } };
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(next.status === 304 || next.body === undefined ? undefined : JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen = [];
    script = [];
  });

  function client(options: Partial<TaskboardClientOptions> = {}) {
    const waits: number[] = [];
    const api = createTaskboardClient({
      baseUrl,
      apiKey: 'tb_test',
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...options,
    });
    return { api, waits };
  }

  const limited = (t: number, retryAfter = t) => ({
    status: 429,
    headers: { RateLimit: `"medium";r=0;t=${t}`, 'RateLimit-Policy': '"medium";q=60;w=60', 'Retry-After': String(retryAfter) },
    body: { message: 'Too many requests, please try again later.', code: 'rate_limited', requestId: 'r' },
  });
  const cardAnswer = { message: 'Card created', card: { _id: 'c1' } };

  it('parses the RateLimit headers and the server wait', () => {
    const headers = new Headers({ RateLimit: '"low";r=3;t=12', 'RateLimit-Policy': '"low";q=40;w=60', 'Retry-After': '5' });
    assert.deepEqual(parseRateLimit(headers), { tier: 'low', remaining: 3, resetIn: 12, limit: 40, windowSeconds: 60 });
    assert.equal(serverWaitMs(headers), 12_000, 'the later of Retry-After and t');
    assert.equal(serverWaitMs(new Headers({ 'Retry-After': 'Mon, 23 Nov 2026 10:00:07 GMT' }), Date.parse('2026-11-23T10:00:00Z')), 7000);
    assert.equal(parseRateLimit(new Headers()), undefined);
  });

  it('backs off with full jitter under an exponential ceiling, never below the server wait', () => {
    assert.equal(
      backoffMs(0, 0, () => 0.5, 100, 10_000),
      50,
    );
    assert.equal(
      backoffMs(3, 0, () => 0.5, 100, 10_000),
      400,
    );
    assert.equal(
      backoffMs(10, 0, () => 0.999, 100, 1000),
      999,
      'capped',
    );
    assert.equal(
      backoffMs(0, 2000, () => 0.5, 100, 10_000),
      2000,
      'the server said 2 s',
    );
  });

  it('retries a 429 after the wait the server asked for, with the same idempotency key, and reads the rate-limit state', async () => {
    const { api, waits } = client({ idempotencyKey: () => 'key-1' });
    script = [limited(2), limited(1), { status: 201, headers: { RateLimit: '"medium";r=59;t=1' }, body: cardAnswer }];
    const { data, response } = await api.POST('/api/v1/cards', { body: { list: 'a'.repeat(24), name: 'Card' } });
    assert.equal(response.status, 201);
    assert.equal(data?.card._id, 'c1');
    assert.deepEqual(waits, [2000, 1000]);
    assert.equal(seen.length, 3);
    assert.deepEqual(
      seen.map((s) => s.headers['idempotency-key']),
      ['key-1', 'key-1', 'key-1'],
    );
    assert.ok(
      seen.every((s) => s.body === seen[0]?.body && s.body.includes('"name":"Card"')),
      'the same body each time',
    );
    assert.ok(seen.every((s) => s.headers.authorization === 'Bearer tb_test'));
    assert.deepEqual(api.rateLimit, { tier: 'medium', remaining: 59, resetIn: 1 });
  });

  it('generates a new key per call', async () => {
    let n = 0;
    const { api } = client({ idempotencyKey: () => `key-${++n}` });
    script = [
      { status: 201, body: cardAnswer },
      { status: 201, body: cardAnswer },
    ];
    await api.POST('/api/v1/cards', { body: { list: 'a'.repeat(24), name: 'A' } });
    await api.POST('/api/v1/cards', { body: { list: 'a'.repeat(24), name: 'B' } });
    assert.deepEqual(
      seen.map((s) => s.headers['idempotency-key']),
      ['key-1', 'key-2'],
    );
  });

  it('never retries a write without an idempotency key (DELETE), and retries one the caller keyed', async () => {
    const { api, waits } = client();
    script = [{ ...limited(1), status: 503 }];
    const first = await api.DELETE('/api/v1/labels/{labelId}', { params: { path: { labelId: 'b'.repeat(24) } } });
    assert.equal(first.response.status, 503);
    assert.equal(seen.length, 1);
    assert.deepEqual(waits, []);
    script = [
      { ...limited(1), status: 503 },
      { status: 200, body: { message: 'Label deleted' } },
    ];
    const keyed = await api.DELETE('/api/v1/labels/{labelId}', {
      params: { path: { labelId: 'b'.repeat(24) }, header: {} },
      headers: { 'Idempotency-Key': 'mine' },
    });
    assert.equal(keyed.response.status, 200);
    assert.equal(seen.length, 3);
  });

  it('gives up after maxRetries and answers the last 429', async () => {
    const { api, waits } = client({ retry: { maxRetries: 2, baseDelayMs: 100 } });
    script = [limited(0), limited(0), limited(0)];
    const { error, response } = await api.GET('/api/v1/me');
    assert.equal(response.status, 429);
    assert.equal(error?.code, 'rate_limited');
    assert.deepEqual(waits, [50, 100], 'full jitter at 0.5 of 100 then 200 ms');
    assert.equal(seen.length, 3);
  });

  it('spends a retry budget: once it is gone a 429 is answered as is', async () => {
    const { api, waits } = client({ retry: { budgetMax: 2, budgetRatio: 0 } });
    script = [limited(0), limited(0), limited(0), limited(0)];
    const { response } = await api.GET('/api/v1/me');
    assert.equal(response.status, 429);
    assert.equal(waits.length, 2, 'two retries, then the budget is spent');
    const again = await api.GET('/api/v1/me');
    assert.equal(again.response.status, 429);
    assert.equal(seen.length, 4, 'no retry without budget');
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const { api } = client({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(new Error('caller gave up'));
        }),
    });
    script = [limited(60)];
    await assert.rejects(api.GET('/api/v1/me', { signal: controller.signal }), /caller gave up/);
    assert.equal(seen.length, 1);
  });

  it('keeps ETags and answers from its cache on 304', async () => {
    const { api } = client();
    const me = { message: 'Me', user: { _id: 'u1' } };
    script = [
      { status: 200, headers: { ETag: '"v1"', RateLimit: '"very-low";r=9;t=1' }, body: me },
      { status: 304, headers: { ETag: '"v1"', RateLimit: '"very-low";r=8;t=1' } },
    ];
    const first = await api.GET('/api/v1/me');
    const second = await api.GET('/api/v1/me');
    assert.equal(seen[0]?.headers['if-none-match'], undefined);
    assert.equal(seen[1]?.headers['if-none-match'], '"v1"');
    assert.equal(second.response.status, 200);
    assert.deepEqual(second.data, first.data);
    assert.deepEqual(second.data, me);
    assert.equal(api.rateLimit?.remaining, 8, "the state is the last answer's, not the cached one's");
  });
});
