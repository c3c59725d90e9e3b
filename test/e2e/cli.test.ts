/**
 * The `taskboard` command as a deployer runs it, against a real database whose keys then
 * authenticate against the app built on that same database. The cases run its `main` in-process;
 * one runs bin/taskboard as a real process.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { MIGRATION_NAMES } from '../../src/storage/migrator.ts';
import { openStorage } from '../../src/storage/open.ts';
import { type CommandRun, ROOT, runCommand, runTaskboard } from '../support/cli.ts';
import { bearer, type EmptyDatabase, ENGINES, emptyDatabase, testConfig } from '../support/harness.ts';

/** `taskboard <args>` against the database at `databaseUrl`. */
function taskboard(args: string[], databaseUrl: string): Promise<CommandRun> {
  return runTaskboard(args, { DATABASE_URL: databaseUrl });
}

function assertCleanFailure(result: CommandRun, code: number, pattern: RegExp) {
  assert.equal(result.code, code, `exit ${result.code}; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trim().split('\n').length, 1, `not one line: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'stack trace on stderr');
}

function json<T>(result: CommandRun): T {
  assert.equal(result.code, 0, `exit ${result.code}; stderr: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

interface Bootstrapped {
  companyId: string;
  teamId: string;
  userId: string;
  apiKey: string;
}

/** GET /api/v1/me with `token` against an app built on the database at `url`. */
async function whoAmI(url: string, token: string) {
  const storage = openStorage(url);
  const app = await buildApp({ config: testConfig(), storage, logger: false });
  try {
    const res = await app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });
    return { status: res.statusCode, body: res.json() };
  } finally {
    await app.close();
    await storage.close();
  }
}

for (const engine of ENGINES) {
  describe(`taskboard command [${engine}]`, () => {
    let database: EmptyDatabase;
    before(async () => {
      database = await emptyDatabase(engine);
    });
    after(() => database.dispose());

    it('migrates an empty database, then finds nothing to apply', async () => {
      const first = json<{ database: string; applied: string[] }>(await taskboard(['migrate', '--json'], database.url));
      assert.deepEqual(first.applied, MIGRATION_NAMES);
      assert.equal(typeof first.database, 'string');
      const second = json<{ applied: string[] }>(await taskboard(['migrate', '--json'], database.url));
      assert.deepEqual(second.applied, []);
      if (engine === 'sqlite') {
        // The readable form once; it reads the same on both engines.
        const text = await taskboard(['migrate'], database.url);
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, /up to date/);
      }
    });

    it('bootstraps a tenant whose key authenticates, and reuses it when run again', async () => {
      const args = ['bootstrap', '--company', 'Initech', '--team', 'Printers', '--email', 'Peter@initech.test', '--name', 'Peter Gibbons', '--json'];
      const first = json<Bootstrapped>(await taskboard(args, database.url));
      assert.deepEqual(Object.keys(first).sort(), ['apiKey', 'companyId', 'teamId', 'userId']);
      for (const id of [first.companyId, first.teamId, first.userId]) assert.match(id, /^[0-9a-f]{24}$/);

      const second = json<Bootstrapped>(await taskboard(args, database.url));
      assert.equal(second.companyId, first.companyId);
      assert.equal(second.teamId, first.teamId);
      assert.equal(second.userId, first.userId);
      assert.notEqual(second.apiKey, first.apiKey);

      for (const key of [first.apiKey, second.apiKey]) {
        const me = await whoAmI(database.url, key);
        assert.equal(me.status, 200, JSON.stringify(me.body));
        assert.equal(me.body.user._id, first.userId);
        assert.equal(me.body.user.email, 'peter@initech.test');
        assert.deepEqual(
          me.body.companies.map((c: { _id: string; role: string }) => [c._id, c.role]),
          [[first.companyId, 'owner']],
        );
        assert.deepEqual(
          me.body.teams.map((t: { _id: string }) => t._id),
          [first.teamId],
        );
      }

      if (engine === 'sqlite') {
        const readable = await taskboard(args.slice(0, -1), database.url);
        assert.equal(readable.code, 0, readable.stderr);
        assert.match(readable.stdout, new RegExp(first.companyId));
        assert.match(readable.stdout, /API key\s+tb_/);
      }
    });

    it('creates a key for an existing user and refuses an unknown email', async () => {
      const tenant = json<Bootstrapped>(
        await taskboard(
          ['bootstrap', '--company', 'Hooli', '--team', 'Nucleus', '--email', 'gavin@hooli.test', '--name', 'Gavin Belson', '--json'],
          database.url,
        ),
      );
      const created = json<{ userId: string; apiKeyId: string; apiKey: string }>(
        await taskboard(['keys', 'create', '--email', 'gavin@hooli.test', '--name', 'deploy', '--json'], database.url),
      );
      assert.deepEqual(Object.keys(created).sort(), ['apiKey', 'apiKeyId', 'userId']);
      assert.equal(created.userId, tenant.userId);
      const me = await whoAmI(database.url, created.apiKey);
      assert.equal(me.status, 200);
      assert.equal(me.body.user._id, tenant.userId);

      assertCleanFailure(await taskboard(['keys', 'create', '--email', 'nobody@hooli.test', '--json'], database.url), 1, /nobody@hooli\.test/);
    });
  });
}

describe('taskboard command: a PostgreSQL schema that does not exist yet', () => {
  let database: EmptyDatabase;
  before(async () => {
    database = await emptyDatabase('postgres', { schemaMissing: true });
  });
  after(() => database.dispose());

  it('serve refuses to start, exiting 2 with the schema named; migrate creates it, and the server then runs on it', async () => {
    const schema = new URL(database.url).searchParams.get('schema') as string;
    const serve = await runTaskboard(['serve'], { DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1' });
    assertCleanFailure(serve, 2, new RegExp(`schema "${schema}", which does not exist .*taskboard migrate`));
    // the other commands (here bootstrap) refuse it too, and create nothing
    const bootstrap = ['bootstrap', '--company', 'Hooli', '--team', 'Core', '--email', 'gavin@hooli.test', '--name', 'Gavin', '--json'];
    assertCleanFailure(await taskboard(bootstrap, database.url), 2, new RegExp(`"${schema}"`));

    assert.deepEqual(json<{ applied: string[] }>(await taskboard(['migrate', '--json'], database.url)).applied, MIGRATION_NAMES);
    const tenant = json<Bootstrapped>(await taskboard(bootstrap, database.url));
    assert.equal((await whoAmI(database.url, tenant.apiKey)).status, 200);
  });
});

describe('taskboard command: usage and configuration errors', () => {
  let dir: string;
  let url: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskboard-cli-'));
    url = `sqlite:${join(dir, 'cli.db')}`;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 2 with one line on stderr for bad arguments', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command "frobnicate"/],
      [['keys', 'delete'], /unknown keys command "delete"/],
      [['bootstrap', '--company', 'Acme'], /missing --team, --email, --name/],
      [['keys', 'create'], /missing --email/],
      [['keys', 'create', '--email'], /--email/],
      [['migrate', '--force'], /Unknown option '--force'/],
      [['migrate', 'now'], /Unexpected argument 'now'/],
      [['bootstrap', '--company', 'A', '--team', 'B', '--email', 'not-an-email', '--name', 'N'], /not an email address/],
    ];
    const results = await Promise.all(cases.map(([args]) => taskboard(args, url)));
    cases.forEach(([, pattern], i) => assertCleanFailure(results[i]!, 2, pattern));
  });

  it('exits 2 for a configuration error', async () => {
    assertCleanFailure(await taskboard(['migrate'], 'mysql://localhost/db'), 2, /DATABASE_URL/);
    const badPort = await runTaskboard(['migrate'], { DATABASE_URL: url, PORT: 'eighty' });
    assertCleanFailure(badPort, 2, /PORT/);
  });

  it('exits 2 naming the variable for every configuration error, including those found at start', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['migrate'], { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
      [['migrate'], { REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
      // Only the app knows its routes: this one is found when the server starts.
      [['serve'], { PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_ROUTE_TIERS: '{"GET /api/v1/nope":"low"}' }, /RATE_LIMIT_ROUTE_TIERS/],
      [['migrate'], { DATABASE_URL: 'sqlite:/no/such/dir/x.db' }, /DATABASE_URL.*\/no\/such\/dir.*--create/],
    ];
    const results = await Promise.all(cases.map(([args, env]) => runTaskboard(args, { DATABASE_URL: url, ...env })));
    cases.forEach(([, , pattern], i) => assertCleanFailure(results[i]!, 2, pattern));
  });

  it('creates a missing SQLite folder when migrate --create asks for it', async () => {
    const file = join(dir, 'new', 'sub', 'x.db');
    const result = await runTaskboard(['migrate', '--create', '--json'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(json<{ database: string }>(result).database, `sqlite:${file}`);
    assert.ok(existsSync(file));
  });

  it('exits 1 with one line when the database cannot be reached', async () => {
    assertCleanFailure(await taskboard(['migrate'], 'postgres://postgres@127.0.0.1:1/test'), 1, /ECONNREFUSED/);
  });

  it('prints its help', async () => {
    const result = await taskboard(['--help'], url);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Usage: taskboard/);
    for (const command of ['bootstrap', 'keys create', 'migrate', 'serve']) assert.match(result.stdout, new RegExp(command));
  });

  it('runs as bin/taskboard, a process of its own, from any directory', async () => {
    const fresh = `sqlite:${join(dir, 'spawned.db')}`;
    const result = await runCommand(join(ROOT, 'bin/taskboard'), ['migrate', '--json'], { DATABASE_URL: fresh }, dir);
    assert.deepEqual(json<{ applied: string[] }>(result).applied, MIGRATION_NAMES);
  });
});
