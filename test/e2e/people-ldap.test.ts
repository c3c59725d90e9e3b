/**
 * LDAP sign-in (docs/people.md, "LDAP") against a real OpenLDAP server started by the test
 * (test/support/slapd.ts): the service account searches the email, the person's entry binds with
 * the password; a new person is made at the first sign-in, an existing one signs in with the
 * directory's password; a wrong password, an unknown email, a filter injection and a server that
 * is down all answer the same 401, with the reason in the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppConfig } from '../../src/config.ts';
import { buildTestApp, ENGINES, type TestApp, testConfig } from '../support/harness.ts';
import { SERVICE_DN, SERVICE_PASSWORD, SUFFIX, slapdMissing, startSlapd, type TestDirectory } from '../support/slapd.ts';
import { freePort } from '../support/smtp.ts';

const LEE_PASSWORD = 'granite harbour lantern 41';
const OWNER_PASSWORD = 'directory owner password 7';

function withDirectory(url: string): Partial<AppConfig> {
  const people = testConfig().people;
  return {
    people: {
      ...people,
      ldap: {
        ...people.ldap,
        url,
        bindDn: SERVICE_DN,
        bindPassword: SERVICE_PASSWORD,
        searchBase: `ou=people,${SUFFIX}`,
        searchFilter: '(mail={email})',
        startTls: false,
        timeoutMs: 2000,
      },
    },
  };
}

for (const engine of ENGINES) {
  describe(`sign-in with an LDAP directory [${engine}]`, { skip: slapdMissing }, () => {
    let directory: TestDirectory;
    let t: TestApp;

    before(async () => {
      directory = await startSlapd();
      await directory.add(`uid=lee,ou=people,${SUFFIX}`, {
        objectClass: 'inetOrgPerson',
        uid: 'lee',
        cn: 'Lee Directory',
        sn: 'Directory',
        mail: 'lee@acme.test',
        userPassword: LEE_PASSWORD,
      });
      await directory.add(`uid=olive,ou=people,${SUFFIX}`, {
        objectClass: 'inetOrgPerson',
        uid: 'olive',
        cn: 'Olive in the directory',
        sn: 'Owner',
        mail: 'owner@acme.test',
        userPassword: OWNER_PASSWORD,
      });
      await directory.add(`uid=gone,ou=people,${SUFFIX}`, {
        objectClass: 'inetOrgPerson',
        uid: 'gone',
        cn: 'Gone Away',
        sn: 'Away',
        mail: 'gone@acme.test',
        userPassword: LEE_PASSWORD,
        // locked for good by an administrator (the password policy overlay's lock)
        pwdAccountLockedTime: '000001010000Z',
      });
      t = await buildTestApp(engine, { config: withDirectory(directory.url) });
    });
    after(async () => {
      await t?.dispose();
      await directory?.stop();
    });

    const signIn = (app: TestApp, email: string, password: string) =>
      app.app.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password } });
    async function reasons(): Promise<string[]> {
      const rows = await t.storage.db.selectFrom('audit_log').select(['kind', 'details']).where('kind', '=', 'sign_in.failed').execute();
      return rows.map((row) => JSON.parse(row.details).reason as string);
    }

    it('makes the person at their first sign-in, named as the directory names them, in no company', async () => {
      const res = await signIn(t, 'Lee@Acme.test', LEE_PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      const cookie = String(res.headers['set-cookie']).split(';')[0]!;
      const me = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
      const body = me.json() as { user: { email: string; fullName: string }; companies: unknown[] };
      assert.equal(body.user.email, 'lee@acme.test');
      assert.equal(body.user.fullName, 'Lee Directory');
      assert.deepEqual(body.companies, []);
      // the directory's password is not kept here
      const row = await t.storage.db.selectFrom('users').select('password_hash').where('email', '=', 'lee@acme.test').executeTakeFirstOrThrow();
      assert.equal(row.password_hash, null);
      // a second sign-in finds the same person
      assert.equal((await signIn(t, 'lee@acme.test', LEE_PASSWORD)).statusCode, 200);
      assert.equal((await t.storage.db.selectFrom('users').select('id').where('email', '=', 'lee@acme.test').execute()).length, 1);
    });

    it('signs an existing person in with the directory password, recorded as an LDAP sign-in', async () => {
      const res = await signIn(t, 'owner@acme.test', OWNER_PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      const rows = await t.storage.db.selectFrom('audit_log').select('details').where('kind', '=', 'sign_in.succeeded').execute();
      assert.ok(rows.some((row) => JSON.parse(row.details).method === 'ldap'));
    });

    it('a wrong password, an unknown email and a filter injection answer the same 401', async () => {
      const wrong = await signIn(t, 'owner@acme.test', 'not the directory password');
      const unknown = await signIn(t, 'nobody@acme.test', LEE_PASSWORD);
      const injected = await signIn(t, 'lee@acme.test)(mail=*', LEE_PASSWORD);
      const wildcard = await signIn(t, '*', LEE_PASSWORD);
      for (const res of [wrong, unknown, injected, wildcard]) {
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.headers['set-cookie'], undefined);
      }
      const strip = (body: string) => ({ ...(JSON.parse(body) as object), requestId: null });
      assert.deepEqual(strip(wrong.body), strip(unknown.body));
      const seen = await reasons();
      assert.ok(seen.includes('ldap_wrong_password'), seen.join());
      assert.ok(seen.includes('ldap_unknown'), seen.join());
    });

    it('refuses an account the directory has disabled, with its right password, and makes no user', async () => {
      const res = await signIn(t, 'gone@acme.test', LEE_PASSWORD);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(await t.storage.db.selectFrom('users').select('id').where('email', '=', 'gone@acme.test').executeTakeFirst(), undefined);
      assert.ok((await reasons()).includes('ldap_disabled'));
    });

    it('a directory that does not answer refuses the sign-in, within the timeout', async () => {
      const down = await buildTestApp(engine, { config: withDirectory(`ldap://127.0.0.1:${await freePort()}`) });
      try {
        const started = Date.now();
        const res = await signIn(down, 'owner@acme.test', OWNER_PASSWORD);
        assert.equal(res.statusCode, 401, res.body);
        assert.ok(Date.now() - started < 5000);
        const rows = await down.storage.db.selectFrom('audit_log').select('details').where('kind', '=', 'sign_in.failed').execute();
        assert.ok(rows.some((row) => JSON.parse(row.details).reason === 'ldap_unavailable'));
      } finally {
        await down.dispose();
      }
    });
  });
}
