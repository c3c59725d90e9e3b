/**
 * Board rules on SQLite (`npm run bench:rules`): what 50 enabled rules on a board add to the toggle's
 * request path, and how far the rules lag behind 200 triggering changes a second.
 *
 * Each measure runs a server of its own, a child process (`bench/rules.ts serve`), on a fresh SQLite
 * file, driven from here over HTTP:
 *   1. toggle cost: Toggle Multiple Labels on ten cards (one per connection), 10 connections, for
 *      BENCH_SECONDS after a warm-up, on a board without rules and on one with 50 enabled rules (the
 *      worker running in the same process): requests per second and latency;
 *   2. lag: the toggle at a steady 200 a second for BENCH_SECONDS, on a board with two rules that
 *      every toggle triggers (label added / label removed: shift the due date), then the time from
 *      each triggering event's record to its run's end, read from the database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import { openStorage } from '../src/storage/open.ts';
import { percentile } from './webhook-lag.ts';

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const CONNECTIONS = 10;
const RATE = Number(process.env.BENCH_RULES_RATE || 200);

interface Ready {
  url: string;
  key: string;
  cards: string[];
  label: string;
  database: string;
}

/** The server: a fresh SQLite file, a board with ten cards and `BENCH_RULES` rules of the given kind. */
async function serveChild(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'taskboard-bench-rules-'));
  const database = `sqlite:${join(dir, 'bench.db')}`;
  const config = loadConfig({
    DATABASE_URL: database,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENABLED: 'false',
    REMINDER_INTERVAL_MS: '0',
    RULES_POLL_MS: '1000',
    RULES_ACTIONS_PER_HOUR: '10000000',
  });
  const app = await buildApp({ config });
  await app.ready();
  const tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  const call = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${tenant.apiKey}` }, payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const board = (await call('POST', `/api/v1/boards?teamId=${tenant.teamId}`, { name: 'Bench' })).board;
  const lists: string[] = [];
  for (const name of ['Todo', 'Doing', 'Done']) lists.push((await call('POST', '/api/v1/lists', { board: board._id, name })).list._id);
  const colors = (await app.inject({ method: 'GET', url: '/api/v1/label-colors', headers: { authorization: `Bearer ${tenant.apiKey}` } })).json().colors;
  const labels: string[] = [];
  for (const name of ['Urgent', 'Later']) labels.push((await call('POST', `/api/v1/boards/${board._id}/labels`, { name, color: colors[0]._id })).label._id);
  const cards: string[] = [];
  for (let i = 0; i < 20; i++) cards.push((await call('POST', '/api/v1/cards', { list: lists[0], name: `Card ${i}` })).card._id);
  const kind = process.env.BENCH_RULES ?? 'none';
  if (kind === 'fifty') {
    // 50 enabled rules of the kinds a board has: none is triggered by the toggle of the label `Urgent`
    // but the label rule, whose condition then does not hold (a run filed and skipped on each add)
    const triggers = [
      { type: 'card.moved.into', list: lists[2] },
      { type: 'card.moved.out', list: lists[1] },
      { type: 'card.created', list: lists[0] },
      { type: 'card.completed' },
      { type: 'comment.contains', text: 'urgent' },
      { type: 'member.added' },
      { type: 'due.passed' },
    ];
    for (let i = 0; i < 49; i++) {
      await call('POST', `/api/v1/boards/${board._id}/rules`, {
        name: `Rule ${i}`,
        trigger: triggers[i % triggers.length],
        actions: [{ type: 'complete', status: true }],
      });
    }
    await call('POST', `/api/v1/boards/${board._id}/rules`, {
      name: 'Urgent and later',
      trigger: { type: 'label.added', label: labels[0] },
      conditions: [{ type: 'label', label: labels[1], has: true }],
      actions: [{ type: 'move', list: lists[1], position: 'top' }],
    });
  } else if (kind === 'lag') {
    for (const type of ['label.added', 'label.removed']) {
      await call('POST', `/api/v1/boards/${board._id}/rules`, {
        name: type,
        trigger: { type, label: labels[0] },
        actions: [{ type: 'due.shift', amount: 1, unit: 'hours', direction: 'later' }],
      });
    }
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  const ready: Ready = { url: `http://127.0.0.1:${address.port}`, key: tenant.apiKey, cards, label: labels[0] as string, database };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  process.on('SIGTERM', async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function startChild(kind: string): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/rules.ts', 'serve'], {
    env: { ...process.env, BENCH_RULES: kind },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const line = /READY (.*)\n/.exec(output);
      if (line?.[1]) resolve(JSON.parse(line[1]) as Ready);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}: ${output}`)));
  });
  return { child, ready };
}

async function stopChild(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

function toggleLoad(ready: Ready, seconds: number, rate?: number): Promise<Result> {
  let connection = 0;
  const headers = { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ labels: [ready.label] });
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: ready.url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        ...(rate ? { overallRate: rate } : {}),
        setupClient: (client) =>
          client.setRequests([{ method: 'POST', path: `/v2/cards/${ready.cards[connection++ % ready.cards.length]}/labels`, headers, body }]),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function toggleCost(kind: string) {
  const { child, ready } = await startChild(kind);
  try {
    await toggleLoad(ready, WARMUP);
    const result = await toggleLoad(ready, SECONDS);
    if (result.non2xx || result.errors) throw new Error(`${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { kind, rps: result.requests.average, meanMs: result.latency.average, p99Ms: result.latency.p99 };
  } finally {
    await stopChild(child);
  }
}

async function lag() {
  const { child, ready } = await startChild('lag');
  try {
    const result = await toggleLoad(ready, SECONDS, RATE);
    if (result.non2xx || result.errors) throw new Error(`lag: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const storage = openStorage(ready.database);
    try {
      const started = performance.now();
      for (;;) {
        const pending = await storage.db.selectFrom('rule_runs').select('id').where('status', '=', 'pending').limit(1).execute();
        if (!pending.length) break;
        if (performance.now() - started > 120_000) throw new Error('the rules did not catch up within 2 minutes');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const rows = await storage.db
        .selectFrom('rule_runs')
        .innerJoin('events', 'events.id', 'rule_runs.event_id')
        .select(['rule_runs.finished_at', 'events.created_at', 'rule_runs.status'])
        .execute();
      const lags = rows.map((row) => Date.parse(row.finished_at as string) - Date.parse(row.created_at)).sort((a, b) => a - b);
      const done = rows.filter((row) => row.status === 'done').length;
      return {
        changes: result.requests.total,
        rate: RATE,
        runs: rows.length,
        done,
        p50Ms: percentile(lags, 50),
        p99Ms: percentile(lags, 99),
        maxMs: lags.at(-1),
      };
    } finally {
      await storage.close();
    }
  } finally {
    await stopChild(child);
  }
}

if (process.argv[2] === 'serve') {
  await serveChild();
} else {
  const none = await toggleCost('none');
  const fifty = await toggleCost('fifty');
  console.log(`toggle, no rules:        ${none.rps.toFixed(0)} req/s, mean ${none.meanMs.toFixed(2)} ms, p99 ${none.p99Ms} ms`);
  console.log(`toggle, 50 enabled rules: ${fifty.rps.toFixed(0)} req/s, mean ${fifty.meanMs.toFixed(2)} ms, p99 ${fifty.p99Ms} ms`);
  console.log(`cost added by the rules (requests/s): ${(((none.rps - fifty.rps) / none.rps) * 100).toFixed(1)} %`);
  const lagged = await lag();
  console.log(
    `lag at ${lagged.rate} triggering changes/s: ${lagged.changes} changes, ${lagged.runs} runs (${lagged.done} done), commit → run done p50 ${lagged.p50Ms} ms, p99 ${lagged.p99Ms} ms, max ${lagged.maxMs} ms`,
  );
}
