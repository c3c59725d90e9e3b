/**
 * The real app on SQLite or PostgreSQL (BENCH_ENGINE), with a world made through the HTTP API (a
 * tenant, a board, labels, a card labelled and with an attachment, ten more such cards for the
 * toggle of many cards), plus, written straight into the
 * tables, a list of 1,000 cards the bench user is a member of (Get List Card and My Tasks read it)
 * and, with BENCH_CARDS above that, filler cards up to that many in all: then served for the load test.
 *
 * BENCH_CARDS=0 (the default): a fresh database each run, removed afterwards. BENCH_CARDS=N: the
 * database is built once and kept (SQLite: a file under .bench-cache/; PostgreSQL: the schema
 * bench_cache_N), with the ids in .bench-cache/world-<engine>-N.json, and reused by later runs.
 * BENCH_RATE_LIMIT_MODE (set by bench/run.ts) picks the limiter: off, sqlite (the database store) or
 * redis (REDIS_URL, with the database as fallback); RATE_LIMIT_* sizes the tiers.
 * BENCH_WEBHOOK_URL: a webhook of every event type is created to that URL, and only the toggle is
 * served (its cost with one subscribed webhook).
 * BENCH_SERVE=toggles: only the two toggles are served; with BENCH_EVENTS=off the app writes no
 * event record (`buildApp({ recordEvents: false })`): what recording adds to a toggle; with
 * BENCH_EVENTS=bare it writes the record into a table stripped of every index but its key (see
 * `stripEventIndexes`): what a row per event costs at the least, whatever indexes it is read by.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { setPassword } from '../src/domain/people/sign-in.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { Executor, NewRow } from '../src/storage/database.ts';
import { failed, isLimiterMode, LIMITER_MODES, serve, type Target } from './protocol.ts';

// BENCH_ROOT: the repository, where this script runs built (bench/run.ts builds it into dist/bench/)
const root = process.env.BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(root, '.bench-cache');

/** Cards of the bench user's list: My Tasks reads a user in this many cards. */
const MY_CARDS = 1000;
/** Rows per INSERT when filling the tables. */
const BATCH = 500;
/** Cards of "Toggle Multiple Labels, 10 cards": one per connection of the bench's default 10 (more connections share them). */
const TOGGLE_CARDS = 10;

interface World {
  boardId: string;
  listId: string;
  cardId: string;
  labels: string[];
  email: string;
  /** Cards made as the card is, one per connection of the toggle of many cards (absent in worlds of older runs: made then). */
  toggleCards?: string[];
}

const engine = process.env.BENCH_ENGINE ?? 'sqlite';
const cards = Number(process.env.BENCH_CARDS || 0);
const cached = cards > 0;
const tempDir = cached ? undefined : mkdtempSync(join(tmpdir(), 'taskboard-bench-'));
const postgresUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = cached ? `bench_cache_${cards}` : `bench_${process.pid}`;
const worldFile = join(cacheDir, `world-${engine}-${cards}.json`);

async function onPostgresServer(statement: string) {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * BENCH_EVENTS=bare: the event record's table keeps its key (SQLite: the rowid `seq`; PostgreSQL:
 * the primary key on `seq`) and loses every other index, the `id` column's unique one included.
 * Nothing reads the record while the toggles are measured, so the app runs as before; only its
 * INSERT touches fewer B-trees. A cached database is never stripped (later runs reuse it).
 */
async function stripEventIndexes(db: Executor) {
  if (cached) throw new Error('BENCH_EVENTS=bare strips the database it serves: it runs on a fresh one only (BENCH_CARDS=0)');
  if (engine === 'sqlite') {
    // SQLite cannot drop a UNIQUE column's index: the table is made again without it.
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'events'`.execute(db);
    const created = rows[0]?.sql;
    if (!created) throw new Error('no events table');
    const bare = created.replace(/\bunique\b/gi, '').replace(/^CREATE TABLE "?events"?/i, 'CREATE TABLE events_bare');
    await sql.raw(bare).execute(db);
    await sql`insert into events_bare select * from events`.execute(db);
    await sql`drop table events`.execute(db);
    await sql`alter table events_bare rename to events`.execute(db);
    return;
  }
  await sql`alter table events drop constraint if exists events_id_key`.execute(db);
  const { rows } = await sql<{ indexname: string }>`
    select indexname from pg_indexes where schemaname = current_schema() and tablename = 'events' and indexname <> 'events_pkey'`.execute(db);
  for (const { indexname } of rows) await sql`drop index ${sql.id(indexname)}`.execute(db);
}

/** BENCH_EVENTS: the event record as the app writes it, none, or bare rows (`stripEventIndexes`). */
const EVENT_MODES = ['on', 'off', 'bare'] as const;
type EventMode = (typeof EVENT_MODES)[number];
const isEventMode = (mode: string): mode is EventMode => (EVENT_MODES as readonly string[]).includes(mode);
const RECORDING_NAMES: Record<EventMode, string> = { on: 'events recorded', off: 'events not recorded', bare: 'events recorded as bare rows' };

function removeTemporary() {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  if (engine === 'postgres' && !cached) return onPostgresServer(`drop schema if exists ${schema} cascade`);
}

async function databaseUrl(): Promise<string> {
  if (engine === 'sqlite') {
    const dir = tempDir ?? cacheDir;
    mkdirSync(dir, { recursive: true });
    return `sqlite:${join(dir, cached ? `sqlite-${cards}.db` : 'bench.db')}`;
  }
  if (engine !== 'postgres') throw new Error(`BENCH_ENGINE must be sqlite or postgres, got "${engine}"`);
  await onPostgresServer(`create schema if not exists ${schema}`);
  return `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${schema}`;
}

/** Inserts rows in batches, each batch one statement, all in one transaction. */
async function insertMany<T>(db: Executor, count: number, insert: (trx: Executor, from: number, to: number) => Promise<T>) {
  for (let from = 0; from < count; from += BATCH * 20) {
    const end = Math.min(count, from + BATCH * 20);
    await db.transaction().execute(async (trx) => {
      for (let start = from; start < end; start += BATCH) await insert(trx, start, Math.min(end, start + BATCH));
    });
    if (count > 50_000) process.stderr.write(`  ${engine}: ${end.toLocaleString('en')} / ${count.toLocaleString('en')} cards written\n`);
  }
}

/** `count` copies of the template card's row in a new list, numbered by position. */
async function cloneCards(db: Executor, templateId: string, listId: string, count: number, member?: string) {
  const template = await db.selectFrom('cards').selectAll().where('id', '=', templateId).executeTakeFirstOrThrow();
  const base = Date.parse(template.created_at);
  await insertMany(db, count, async (trx, from, to) => {
    const rows: NewRow<'cards'>[] = [];
    for (let i = from; i < to; i++) {
      const at = new Date(base + i).toISOString();
      rows.push({ ...template, id: newId(), list_id: listId, name: `Card ${i}`, position: (i + 1) * 1024, created_at: at, updated_at: at, version: 0 });
    }
    await trx.insertInto('cards').values(rows).execute();
    if (member) {
      await trx
        .insertInto('card_members')
        .values(rows.map((row) => ({ card_id: row.id, user_id: member, created_at: row.created_at })))
        .execute();
    }
  });
}

try {
  const mode = process.env.BENCH_RATE_LIMIT_MODE ?? 'off';
  if (!isLimiterMode(mode)) throw new Error(`BENCH_RATE_LIMIT_MODE must be one of ${LIMITER_MODES.join(', ')}, got "${mode}"`);
  if (!Number.isInteger(cards) || cards < 0) throw new Error(`BENCH_CARDS must be a whole number, got "${process.env.BENCH_CARDS}"`);

  // Only what the benchmark decides, plus the tier sizes: a DATABASE_URL of the shell must not leak in.
  const tierEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('RATE_LIMIT_')));
  const uploads = join(tempDir ?? cacheDir, `uploads-${engine}-${cards}`);
  const config = loadConfig({
    ...tierEnv,
    DATABASE_URL: await databaseUrl(),
    UPLOAD_DIR: uploads,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENABLED: mode === 'off' ? 'false' : 'true',
    ...(mode === 'redis' ? { REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379' } : {}),
    // the bench's webhook receiver listens on 127.0.0.1, which deliveries refuse by default
    ...(process.env.BENCH_WEBHOOK_URL ? { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } : {}),
  });
  const events = process.env.BENCH_EVENTS ?? 'on';
  if (!isEventMode(events)) throw new Error(`BENCH_EVENTS must be ${EVENT_MODES.join(', ')}, got "${events}"`);
  const app = await buildApp({ config, logger: false, ...(events === 'off' ? { recordEvents: false } : {}) });
  await app.ready();
  const db = app.services.db;

  let world: World | undefined = cached && existsSync(worldFile) ? (JSON.parse(readFileSync(worldFile, 'utf8')) as World) : undefined;
  if (world && !(await db.selectFrom('cards').select('id').where('id', '=', world.cardId).executeTakeFirst())) world = undefined;
  if (world) process.stderr.write(`  ${engine}: reusing the ${cards.toLocaleString('en')}-card database of an earlier run\n`);

  const email = 'bench@bench.test';
  // Running bootstrap again reuses the user, company and team, and issues a new key.
  const tenant = await bootstrap(app.services, { company: 'Bench', team: 'Load', email, fullName: 'Bench Runner' });
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

  /** A card as the bench's cards are: a description, three labels and an attachment, made through the API. */
  async function makeCard(listId: string, labels: readonly string[]): Promise<string> {
    const { card } = await call<{ card: { _id: string } }>('POST', '/api/v1/cards', {
      list: listId,
      name: 'Measure the API',
      description: 'A card with labels and an attachment, as cards usually are.',
    });
    await call('POST', `/v2/cards/${card._id}/labels`, { labels: labels.slice(0, 3) });
    const boundary = 'benchboundary';
    const form =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n` +
      `${'notes '.repeat(200)}\r\n--${boundary}--\r\n`;
    await call('POST', `/api/v1/cards/${card._id}/attachments`, form, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    return card._id;
  }

  if (!world) {
    const started = Date.now();
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
    const cardId = await makeCard(list._id, labels);

    // The bench user's list: 1,000 cards it is a member of (plain copies of the card's row).
    const mine = await call<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board._id, name: 'Mine' });
    await cloneCards(db, cardId, mine.list._id, MY_CARDS, tenant.userId);
    // The rest up to BENCH_CARDS in another list of the same board, nobody's.
    const filler = cards - MY_CARDS - 1 - TOGGLE_CARDS;
    if (filler > 0) {
      const other = await call<{ list: { _id: string } }>('POST', '/api/v1/lists', { board: board._id, name: 'Everything else' });
      await cloneCards(db, cardId, other.list._id, filler);
    }
    // A deployment's tables have statistics (autovacuum's ANALYZE); these were filled a second ago,
    // before autovacuum looks: measure the plans a deployment would get.
    if (engine === 'postgres') {
      await onPostgresServer(
        ['cards', 'card_members', 'card_labels', 'card_views', 'lists', 'boards', 'labels', 'events'].map((table) => `analyze ${schema}.${table}`).join('; '),
      );
    }
    world = { boardId: board._id, listId: mine.list._id, cardId, labels, email };
    if (cached) {
      mkdirSync(cacheDir, { recursive: true });
      writeFileSync(worldFile, JSON.stringify(world));
    }
    process.stderr.write(`  ${engine}: database built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  let toggleCards = world.toggleCards;
  if (!toggleCards) {
    const { list_id: listId } = await db.selectFrom('cards').select('list_id').where('id', '=', world.cardId).executeTakeFirstOrThrow();
    toggleCards = [];
    for (let i = 0; i < TOGGLE_CARDS; i++) toggleCards.push(await makeCard(listId, world.labels));
    world = { ...world, toggleCards };
    if (cached) writeFileSync(worldFile, JSON.stringify(world));
  }
  // the first read adds the caller to `seen`; measure the steady state after it
  await call('GET', `/api/v1/cards/${world.cardId}`);
  // The same user signed in from a browser: its session cookie, for the read by session next to the key's.
  const password = 'bench session password 2026';
  await setPassword(app.services, tenant.userId, password);
  const signedIn = await app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password } });
  if (signedIn.statusCode !== 200) throw new Error(`setup sign-in answered ${signedIn.statusCode}: ${signedIn.body.slice(0, 500)}`);
  const session = { cookie: String(signedIn.headers['set-cookie']).split(';')[0]! };

  const toggled = world.labels[3] as string;
  const suffix = mode === 'off' ? '' : ` [rate limit: ${mode}]`;
  const toggle: Target = {
    // the same label each time: it goes on and off, so the card does not grow during the run
    name: `Toggle Multiple Labels${suffix}`,
    method: 'POST',
    path: `/v2/cards/${world.cardId}/labels`,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ labels: [toggled] }),
  };
  const targets: Target[] = [
    // the app's fixed cost (plugins, auth, one tiny query) without card work, to read the others against
    { name: `Get Label Colors${suffix}`, method: 'GET', path: '/api/v1/label-colors', headers: auth },
    { name: `Get Card Details${suffix}`, method: 'GET', path: `/api/v1/cards/${world.cardId}`, headers: auth },
    // the same read by the session cookie instead of the key (docs/people.md: within 10 % of it)
    { name: `Get Card Details, session${suffix}`, method: 'GET', path: `/api/v1/cards/${world.cardId}`, headers: session },
    toggle,
    { name: `Get List Card, page of 50${suffix}`, method: 'GET', path: `/api/v1/lists/${world.listId}/cards?limit=50`, headers: auth },
    { name: `My Tasks, 1,000 cards, page of 50${suffix}`, method: 'GET', path: `/api/v1/my-tasks?limit=50`, headers: auth },
    {
      // each connection its own card: the toggle without the queue on one card's row lock
      name: `Toggle Multiple Labels, ${toggleCards.length} cards${suffix}`,
      method: 'POST',
      path: `/v2/cards/${toggleCards[0]}/labels`,
      paths: toggleCards.map((id) => `/v2/cards/${id}/labels`),
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ labels: [toggled] }),
    },
  ];
  let limiter = mode === 'off' ? 'rate limits off' : `rate limits on (${mode}), tiers ${JSON.stringify(config.rateLimit.tiers)}`;
  const webhookUrl = process.env.BENCH_WEBHOOK_URL;
  let served = targets;
  // whatever is served, so that BENCH_EVENTS=bare never passes unnoticed
  if (events === 'bare') await stripEventIndexes(db);
  if (process.env.BENCH_SERVE === 'toggles') {
    const recording = RECORDING_NAMES[events];
    served = targets.filter((target) => target.method === 'POST').map((target) => ({ ...target, name: `${target.name}, ${recording}` }));
    limiter += `, ${recording}`;
  }
  if (webhookUrl) {
    // the toggle alone, with one webhook of every event subscribed: what recording and fan-out add
    await call('POST', `/api/v1/webhooks?companyId=${tenant.companyId}`, { url: webhookUrl, types: ['*'] });
    served = [{ ...toggle, name: `${toggle.name}, one webhook subscribed` }];
    limiter += `, one webhook of every event to ${webhookUrl}`;
  }
  const total = await db
    .selectFrom('cards')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await serve(
    app,
    served,
    `Taskboard on ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (${app.storage.description}), ${Number(total.n).toLocaleString('en')} cards, ${limiter}`,
    removeTemporary,
  );
} catch (error) {
  await Promise.resolve(removeTemporary()).catch(() => {});
  failed(error);
}
