/**
 * At-least-once across a crash: the server, a real process, is killed with SIGKILL while the
 * delivery of a committed change is under way (the receiver holds the request unanswered, so the
 * delivery is leased and not yet marked). After a restart the lease expires, is taken over, and
 * the event arrives, with the same webhook-id and a valid signature.
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
import { eventually, type Receiver, startReceiver } from '../support/receiver.ts';

interface Server {
  child: ChildProcess;
  url: string;
}

/** `taskboard serve` as a process of its own (node itself, so SIGKILL reaches the server), once it listens. */
async function startServer(databaseUrl: string): Promise<Server> {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_ENABLED: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_MS: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
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

describe('webhook delivery survives a kill -9 of the server [sqlite]', () => {
  let database: EmptyDatabase;
  let storage: StorageConnection;
  let receiver: Receiver;
  let server: Server | undefined;

  before(async () => {
    database = await emptyDatabase('sqlite');
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    receiver = await startReceiver();
  });
  after(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await once(server.child, 'exit');
    }
    await receiver.close();
    await storage.close();
    await database.dispose();
  });

  it('delivers, after a restart, the change whose delivery the crash interrupted', async () => {
    const services = serviceContext(storage);
    const tenant = await bootstrap(services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    const board = await seedBoard(services, tenant);
    server = await startServer(database.url);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${(server as Server).url}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, any>;
      assert.ok(res.ok, `${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const { webhook, secret } = await call('POST', `/api/v1/webhooks?companyId=${tenant.companyId}`, { url: receiver.url, types: ['card.updated'] });
    const { card } = await call('POST', '/api/v1/cards', { list: board.listIds[0], name: 'Before' });

    receiver.respond = () => 'hang';
    await call('PATCH', `/api/v1/cards/${card._id}`, { name: 'After' }); // committed: the answer came
    await receiver.until((r) => r.length === 1, 20_000, 'the first attempt');
    server.child.kill('SIGKILL');
    await once(server.child, 'exit');

    const [interrupted] = await storage.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhook._id).execute();
    assert.equal(interrupted?.status, 'pending');
    assert.ok(interrupted?.lease_owner, 'the dead instance still holds the lease');
    assert.equal(receiver.received[0]?.headers['webhook-id'], interrupted?.id);

    receiver.respond = () => 204;
    server = await startServer(database.url);
    await receiver.until((r) => r.some((x) => x.answered), 30_000, 'the delivery after the restart');
    const delivered = await eventually(
      () =>
        storage.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('id', '=', interrupted?.id ?? '')
          .executeTakeFirstOrThrow(),
      (row) => row.status === 'delivered',
      20_000,
      'the delivery marked delivered',
    );
    assert.equal(delivered.attempts, 1, 'the interrupted attempt was never recorded; the one that answered was');
    const answered = receiver.received.filter((r) => r.answered);
    assert.deepEqual(
      answered.map((r) => r.headers['webhook-id']),
      [interrupted?.id],
    );
    const [body] = receiver.verified(secret, answered) as { type: string; data: { card: string; data: unknown } }[];
    assert.equal(body?.type, 'card.updated');
    assert.equal(body?.data.card, card._id);
  });
});
