/**
 * The real app on a fresh SQLite database in a temporary folder, with a tenant, a board, a list,
 * labels and a card (labelled, with an attachment) made through the HTTP API, then served for the
 * load test. BENCH_RATE_LIMIT_MODE (set by bench/run.ts) picks the limiter: off, sqlite (the
 * database store) or redis (REDIS_URL, with the database as fallback); RATE_LIMIT_* sizes the tiers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { failed, isLimiterMode, LIMITER_MODES, serve, type Target } from './protocol.ts';

const dir = mkdtempSync(join(tmpdir(), 'taskboard-bench-'));
try {
  const mode = process.env.BENCH_RATE_LIMIT_MODE ?? 'off';
  if (!isLimiterMode(mode)) throw new Error(`BENCH_RATE_LIMIT_MODE must be one of ${LIMITER_MODES.join(', ')}, got "${mode}"`);

  // Only what the benchmark decides, plus the tier sizes: a DATABASE_URL of the shell must not leak in.
  const tierEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('RATE_LIMIT_')));
  const config = loadConfig({
    ...tierEnv,
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    UPLOAD_DIR: join(dir, 'uploads'),
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENABLED: mode === 'off' ? 'false' : 'true',
    ...(mode === 'redis' ? { REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379' } : {}),
  });
  const app = await buildApp({ config, logger: false });
  await app.ready();

  const tenant = await bootstrap(app.services, { company: 'Bench', team: 'Load', email: 'bench@bench.test', fullName: 'Bench Runner' });
  const auth = { authorization: `Bearer ${tenant.apiKey}` };

  /** One setup request through the real routes; anything but 2xx stops the benchmark with the answer. */
  async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const raw = typeof body === 'string' || Buffer.isBuffer(body);
    const res = await app.inject({
      method,
      url,
      headers: { ...auth, ...headers },
      ...(body === undefined ? {} : raw ? { payload: body as string } : { payload: body as object }),
    });
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw new Error(`setup ${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
    }
    return res.json() as T;
  }

  const { board } = await call<{ board: { _id: string } }>('POST', `/api/v1/boards?teamId=${tenant.teamId}`, { name: 'Benchmark board' });
  const { list } = await call<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board._id, name: 'To do' });
  const { colors } = await call<{ colors: { _id: string }[] }>('GET', '/api/v1/label-colors');
  const labels: string[] = [];
  for (const [i, name] of ['bug', 'feature', 'urgent', 'toggled'].entries()) {
    const color = colors[i % colors.length];
    if (!color) throw new Error('GET /api/v1/label-colors returned no colours');
    const { label } = await call<{ label: { _id: string } }>('POST', `/api/v1/boards/${board._id}/labels`, { name, color: color._id });
    labels.push(label._id);
  }
  const { card } = await call<{ card: { _id: string } }>('POST', '/api/v1/cards', {
    list: list._id,
    name: 'Measure the API',
    description: 'A card with labels and an attachment, as cards usually are.',
  });
  await call('POST', `/v2/cards/${card._id}/labels`, { labels: labels.slice(0, 3) });
  const boundary = 'benchboundary';
  const form =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n` +
    `${'notes '.repeat(200)}\r\n--${boundary}--\r\n`;
  await call('POST', `/api/v1/cards/${card._id}/attachments`, form, { 'content-type': `multipart/form-data; boundary=${boundary}` });
  // the first read adds the caller to `seen`; measure the steady state after it
  await call('GET', `/api/v1/cards/${card._id}`);

  const toggled = labels[3] as string;
  const suffix = mode === 'off' ? '' : ` [rate limit: ${mode}]`;
  const targets: Target[] = [
    // the app's fixed cost (plugins, auth, one tiny query) without card work, to read the two below against
    { name: `Get Label Colors: GET /api/v1/label-colors${suffix}`, method: 'GET', path: '/api/v1/label-colors', headers: auth },
    { name: `Get Card Details: GET /api/v1/cards/:cardId${suffix}`, method: 'GET', path: `/api/v1/cards/${card._id}`, headers: auth },
    {
      // the same label each time: it goes on and off, so the card does not grow during the run
      name: `Toggle Multiple Labels: POST /v2/cards/:cardId/labels${suffix}`,
      method: 'POST',
      path: `/v2/cards/${card._id}/labels`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ labels: [toggled] }),
    },
  ];
  const limiter = mode === 'off' ? 'rate limits off' : `rate limits on (${mode}), tiers ${JSON.stringify(config.rateLimit.tiers)}`;
  await serve(app, targets, `Taskboard on SQLite (${config.databaseUrl}), ${limiter}`, () => rmSync(dir, { recursive: true, force: true }));
} catch (error) {
  rmSync(dir, { recursive: true, force: true });
  failed(error);
}
