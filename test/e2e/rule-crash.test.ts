/**
 * Exactly once across crashes: the server, a real process, is killed with SIGKILL first after
 * changes committed that its rule had not run for (no rule worker in that process), then again while
 * its rule worker is busy with them. After the last restart every triggering change has had its
 * rule's actions once: one comment and one `rule.run` event per card, none lost, none doubled.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { migrateToLatest } from '../../src/storage/migrator.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { ROOT } from '../support/cli.ts';
import { seedBoard } from '../support/fixtures.ts';
import { type EmptyDatabase, emptyDatabase, serviceContext } from '../support/harness.ts';
import { eventually } from '../support/receiver.ts';

const CARDS = 150;

/** `taskboard serve` as a process of its own (node itself, so SIGKILL reaches the server), once it listens. */
async function startServer(databaseUrl: string, rulesPollMs: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_ENABLED: 'false',
      RULES_POLL_MS: String(rulesPollMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 120_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
  return { child, url };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

describe('board rules survive kill -9 of the server [sqlite]', () => {
  let database: EmptyDatabase;
  let storage: StorageConnection;
  let server: { child: ChildProcess; url: string } | undefined;

  before(async () => {
    database = await emptyDatabase('sqlite');
    storage = openStorage(database.url);
    await migrateToLatest(storage);
  });
  after(async () => {
    if (server) await kill(server.child);
    await storage.close();
    await database.dispose();
  });

  it('runs the rule once for every change committed before and during the crashes', async () => {
    const services = serviceContext(storage);
    const tenant = await bootstrap(services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const board = await seedBoard(services, tenant, { lists: 2 });
    const [todo, done] = board.listIds as [string, string];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server?.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, any>;
      assert.ok(res.ok, `${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    // 1. no rule worker: the changes commit, no rule runs, and the process dies
    server = await startServer(database.url, 0);
    const { rule } = await call('POST', `/api/v1/boards/${board.boardId}/rules`, {
      name: 'Close done cards',
      trigger: { type: 'card.moved.into', list: done },
      actions: [
        { type: 'comment', text: 'Closed by the rule' },
        { type: 'complete', status: true },
      ],
    });
    const cards: string[] = [];
    for (let i = 0; i < CARDS; i++) cards.push((await call('POST', '/api/v1/cards', { list: todo, name: `Card ${i}` })).card._id);
    for (const card of cards) await call('PATCH', `/api/v1/cards/${card}/position`, { list: done, position: 'bottom' });
    await kill(server.child);
    const runs = () => storage.db.selectFrom('rule_runs').select(['card_id', 'status']).where('rule_id', '=', rule._id).execute();
    assert.equal((await runs()).length, 0, 'nothing ran before the first crash');

    // 2. a rule worker: killed as soon as it has run some, mid-work
    server = await startServer(database.url, 100);
    await eventually(runs, (rows) => rows.some((row) => row.status === 'done'), 30_000, 'a first run');
    await kill(server.child);
    const between = await runs();
    const doneBefore = between.filter((row) => row.status === 'done').length;
    assert.ok(doneBefore < CARDS, `the crash came mid-work (${doneBefore} of ${CARDS} done)`);

    // 3. restarted: the rest runs, nothing twice
    server = await startServer(database.url, 100);
    const finished = await eventually(runs, (rows) => rows.length === CARDS && rows.every((row) => row.status === 'done'), 60_000, 'every run done');
    assert.equal(new Set(finished.map((row) => row.card_id)).size, CARDS);
    const comments = await storage.db
      .selectFrom('comments')
      .select((eb) => ['card_id', eb.fn.countAll<number>().as('count')])
      .where('card_id', 'in', cards)
      .groupBy('card_id')
      .execute();
    assert.equal(comments.length, CARDS, 'none lost');
    assert.deepEqual([...new Set(comments.map((c) => Number(c.count)))], [1], 'none doubled');
    const ran = await storage.db.selectFrom('events').select('card_id').where('type', '=', 'rule.run').execute();
    assert.equal(ran.length, CARDS);
    const open = await storage.db.selectFrom('cards').select('id').where('id', 'in', cards).where('complete_status', '=', 0).execute();
    assert.deepEqual(open, []);
  });
});
