import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { runTaskboard } from '../support/cli.ts';
import { type EmptyDatabase, ENGINES, emptyDatabase, openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';
import { signInAs, TEST_PASSWORD } from '../support/people.ts';

for (const engine of ENGINES) {
  describe(`first run: the setup link [${engine}]`, () => {
    let test: TestStorage;
    let app: App;
    const lines: string[] = [];

    before(async () => {
      test = await openTestStorage(engine);
      const stream = { write: (line: string) => lines.push(line) };
      app = await buildApp({ config: testConfig({ logLevel: 'info' }), storage: test.storage, rateLimiter: null, logger: { level: 'info', stream } });
      await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await test?.dispose();
    });

    it('logs one line with the link while there is no user; the token sets up once, then dies', async () => {
      const logged = lines.filter((line) => line.includes('/setup#'));
      assert.equal(logged.length, 1, lines.join('\n'));
      const token = /\/setup#([A-Za-z0-9_-]+)/.exec(logged[0]!)![1]!;
      assert.match(logged[0]!, /http:\/\/127\.0\.0\.1:\d+\/setup#/);

      assert.equal((await app.inject({ method: 'GET', url: `/api/v1/setup/${token}` })).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/setup/not-the-token' })).statusCode, 404);
      const body = { token, companyName: 'Acme', teamName: 'Core', fullName: 'Olive Owner', email: 'olive@acme.test', password: TEST_PASSWORD };
      const weak = await app.inject({ method: 'POST', url: '/api/v1/setup', payload: { ...body, password: 'password' } });
      assert.equal(weak.statusCode, 400, weak.body);
      const wrong = await app.inject({ method: 'POST', url: '/api/v1/setup', payload: { ...body, token: 'x'.repeat(43) } });
      assert.equal(wrong.statusCode, 404, wrong.body);

      const res = await app.inject({ method: 'POST', url: '/api/v1/setup', payload: body });
      assert.equal(res.statusCode, 201, res.body);
      const made = res.json() as { user: { email: string }; csrfToken: string; companyId: string; teamId: string };
      assert.equal(made.user.email, 'olive@acme.test');
      const cookie = String(res.headers['set-cookie']).split(';')[0]!;
      const me = await app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
      assert.equal(me.statusCode, 200, me.body);
      const meBody = me.json() as { companies: { _id: string; role: string }[]; teams: { _id: string }[] };
      assert.deepEqual(
        meBody.companies.map((c) => [c._id, c.role]),
        [[made.companyId, 'owner']],
      );
      assert.deepEqual(
        meBody.teams.map((t) => t._id),
        [made.teamId],
      );
      await signInAs(app, 'olive@acme.test');

      assert.equal((await app.inject({ method: 'POST', url: '/api/v1/setup', payload: { ...body, email: 'again@acme.test' } })).statusCode, 404);
      assert.equal((await app.inject({ method: 'GET', url: `/api/v1/setup/${token}` })).statusCode, 404);
      assert.ok(!lines.some((line) => line.includes(TEST_PASSWORD)));
    });
  });

  describe(`the command line sets passwords [${engine}]`, () => {
    let database: EmptyDatabase;
    let app: App | undefined;
    before(async () => {
      database = await emptyDatabase(engine);
    });
    after(async () => {
      await app?.close();
      await database.dispose();
    });

    it('bootstrap --password-stdin, then users set-password --password-stdin; a bad password is refused', async () => {
      const env = { DATABASE_URL: database.url };
      const boot = await runTaskboard(
        ['bootstrap', '--company', 'Initech', '--team', 'Printers', '--email', 'peter@initech.test', '--name', 'Peter', '--password-stdin', '--json'],
        env,
        `${TEST_PASSWORD}\n`,
      );
      assert.equal(boot.code, 0, boot.stderr);
      assert.doesNotMatch(boot.stdout, /violet/);
      const storage = await import('../../src/storage/open.ts').then((m) => m.openStorage(database.url));
      app = await buildApp({ config: testConfig(), storage, rateLimiter: null, logger: false });
      app.addHook('onClose', async () => storage.close());
      await signInAs(app, 'peter@initech.test');

      const short = await runTaskboard(['users', 'set-password', '--email', 'peter@initech.test', '--password-stdin'], env, 'short\n');
      assert.equal(short.code, 2, short.stderr);
      const noStdin = await runTaskboard(['users', 'set-password', '--email', 'peter@initech.test'], env, 'x');
      assert.equal(noStdin.code, 2);
      const unknown = await runTaskboard(['users', 'set-password', '--email', 'nobody@initech.test', '--password-stdin'], env, 'another long password 9\n');
      assert.equal(unknown.code, 1);
      const reset = await runTaskboard(['users', 'set-password', '--email', 'Peter@initech.test', '--password-stdin'], env, 'another long password 9\n');
      assert.equal(reset.code, 0, reset.stderr);
      await signInAs(app, 'peter@initech.test', 'another long password 9');
      const old = await app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'peter@initech.test', password: TEST_PASSWORD } });
      assert.equal(old.statusCode, 401);
    });
  });
}
