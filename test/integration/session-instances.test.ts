/**
 * A session ended, or a password changed, through one of two instances on one PostgreSQL database
 * is refused by the other within the authentication cache's bound (as API-key revocation is: see
 * auth-instances.test.ts); B's clock is moved past the bound, no sleep.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type App, buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { openStorage, type StorageConnection } from '../../src/storage/open.ts';
import { openTestStorage, type TestStorage, testConfig } from '../support/harness.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const WITHIN_MS = 1000;

describe('a session ended through one of two instances [postgres]', () => {
  let test: TestStorage;
  let second: StorageConnection;
  let a: App;
  let b: App;
  let bNow = Date.now();
  const passBound = () => (bNow += WITHIN_MS);

  before(async () => {
    test = await openTestStorage('postgres');
    second = openStorage(test.url);
    a = await buildApp({ config: testConfig(), storage: test.storage, rateLimiter: null, logger: false });
    b = await buildApp({ config: testConfig(), storage: second, rateLimiter: null, logger: false, clock: { now: () => bNow } });
    await Promise.all([a.ready(), b.ready()]);
    await bootstrap(a.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
    await givePassword(a.services, 'owner@acme.test');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await second?.close();
    await test?.dispose();
  });

  const me = (app: App, cookie: string) => app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });

  it('is refused on the other instance once the bound has passed', async () => {
    const session = await signInAs(a, 'owner@acme.test');
    assert.equal((await me(b, session.cookie)).statusCode, 200);
    const out = await a.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: sessionHeaders(session) });
    assert.equal(out.statusCode, 204, out.body);
    assert.equal((await me(a, session.cookie)).statusCode, 401);
    passBound();
    assert.equal((await me(b, session.cookie)).statusCode, 401);
  });

  it('a password changed on one instance ends the other sessions on the other', async () => {
    const mine = await signInAs(a, 'owner@acme.test');
    const other = await signInAs(b, 'owner@acme.test');
    assert.equal((await me(b, other.cookie)).statusCode, 200);
    const change = await a.inject({
      method: 'PATCH',
      url: '/api/v1/me/password',
      headers: sessionHeaders(mine),
      payload: { currentPassword: TEST_PASSWORD, newPassword: 'the next password 2026' },
    });
    assert.equal(change.statusCode, 200, change.body);
    passBound();
    assert.equal((await me(b, other.cookie)).statusCode, 401);
    assert.equal((await me(b, mine.cookie)).statusCode, 200);
  });
});
