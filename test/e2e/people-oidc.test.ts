import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import type { AppConfig } from '../../src/config.ts';
import { addMember } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp, testConfig } from '../support/harness.ts';
import { type ProviderAccount, signInAt, startProvider, type TestProvider } from '../support/oidc-provider.ts';
import { givePassword, sessionHeaders, signInAs } from '../support/people.ts';

const CALLBACK = 'http://localhost/api/v1/auth/oidc/callback';

/** A live provider on a loaded test machine may take seconds to answer: the bound here is generous (the down provider's test sets its own). */
function oidcConfig(settings: Partial<AppConfig['people']['oidc']>, people: Partial<AppConfig['people']> = {}): Partial<AppConfig> {
  const base = testConfig().people;
  return {
    people: {
      ...base,
      ...people,
      oidc: { ...base.oidc, redirectUrl: CALLBACK, allowSignUp: false, timeoutMs: 30_000, ...settings },
    },
  };
}

/** The cookie `name=value` a Set-Cookie header of the answer sets, if any. */
function cookieSet(setCookie: string | string[] | undefined, name: string): string | undefined {
  const lines = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return lines.map((line) => line.split(';')[0]!).find((pair) => pair.startsWith(`${name}=`));
}

for (const engine of ENGINES) {
  describe(`single sign-on with OpenID Connect [${engine}]`, () => {
    let provider: TestProvider;
    let t: TestApp;
    let accountSeq = 0;

    before(async () => {
      provider = await startProvider(CALLBACK);
      t = await buildTestApp(engine, {
        config: oidcConfig({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret }),
      });
    });
    after(async () => {
      await t?.dispose();
      await provider?.close();
    });

    /** An account at the provider; its id is the `sub`. */
    function account(claims: ProviderAccount): string {
      const id = `account-${++accountSeq}`;
      provider.accounts.set(id, claims);
      return id;
    }

    /** Start at the app, sign in at the provider, come back: the callback's answer. */
    async function singleSignOn(
      app: TestApp,
      accountId: string,
      options: { next?: string; tamper?: (callback: URL) => void; cookie?: string | null; remoteAddress?: string } = {},
    ) {
      const start = await app.app.inject({ method: 'GET', url: `/api/v1/auth/oidc/start${options.next ? `?next=${encodeURIComponent(options.next)}` : ''}` });
      assert.equal(start.statusCode, 303, start.body);
      const handle = cookieSet(start.headers['set-cookie'], 'taskboard_oidc');
      assert.ok(handle, `the start sets the sign-in cookie (it went to ${start.headers.location})`);
      assert.match(String(start.headers['set-cookie']), /HttpOnly/i);
      const authorization = new URL(String(start.headers.location));
      assert.equal(authorization.origin, provider.issuer);
      assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(authorization.searchParams.get('state') && authorization.searchParams.get('nonce'));
      const back = await signInAt(authorization.href, accountId);
      assert.equal(`${back.origin}${back.pathname}`, CALLBACK);
      options.tamper?.(back);
      const cookie = options.cookie === undefined ? handle : options.cookie;
      const callback = await app.app.inject({
        method: 'GET',
        url: `${back.pathname}${back.search}`,
        headers: cookie ? { cookie } : {},
        ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      });
      return { callback, handle, back };
    }

    function sessionCookieOf(callback: { headers: Record<string, unknown> }): string {
      const cookie = cookieSet(callback.headers['set-cookie'] as string[] | string, 'taskboard_session');
      assert.ok(cookie, 'the callback sets the session cookie');
      return cookie;
    }

    async function me(cookie: string) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { user: { _id: string; email: string; fullName: string }; companies: { _id: string; role: string }[]; teams: { _id: string }[] };
    }

    it('tells the sign-in page that single sign-on is on', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { singleSignOn: boolean }).singleSignOn, true);
    });

    it('signs in the existing user of the verified email, with a new session like a password sign-in', async () => {
      const id = account({ email: 'Owner@Acme.test', email_verified: true, name: 'Someone Else' });
      const { callback } = await singleSignOn(t, id, { next: '/boards/abc?x=1' });
      assert.equal(callback.statusCode, 303, callback.body);
      assert.equal(callback.headers.location, '/boards/abc?x=1');
      const setCookie = String(callback.headers['set-cookie']);
      assert.match(setCookie, /taskboard_session=tbs_[^;]+;.*HttpOnly/i);
      assert.match(setCookie, /SameSite=Lax/i);
      // the sign-in cookie is spent
      assert.match(setCookie, /taskboard_oidc=;/);
      const cookie = sessionCookieOf(callback);
      const who = await me(cookie);
      assert.equal(who.user._id, t.tenant.userId);
      assert.equal(who.user.fullName, 'Olive Owner', 'the provider does not rename an existing user');
      // the session works as a password session does: it hands out its CSRF token and changes with it
      const session = await t.app.inject({ method: 'GET', url: '/api/v1/auth/session', headers: { cookie } });
      assert.equal(session.statusCode, 200, session.body);
      const { csrfToken } = session.json() as { csrfToken: string };
      const board = await t.app.inject({
        method: 'POST',
        url: `/api/v1/boards?teamId=${t.tenant.teamId}`,
        headers: { cookie, 'x-csrf-token': csrfToken },
        payload: { name: 'Signed on' },
      });
      assert.equal(board.statusCode, 201, board.body);
      // a second sign-on makes another session, never the same token
      const again = sessionCookieOf((await singleSignOn(t, id)).callback);
      assert.notEqual(again, cookie);
    });

    it('asks a person with an authenticator app for its code after the provider: no session before it', async () => {
      await addMember(t.services, { companyId: t.tenant.companyId, email: 'sam@acme.test', role: 'member' });
      await givePassword(t.services, 'sam@acme.test');
      const browser = sessionHeaders(await signInAs(t.app, 'sam@acme.test'));
      const started = await t.app.inject({ method: 'POST', url: '/api/v1/me/second-factors/totp', headers: browser, payload: {} });
      const { secret } = started.json() as { secret: string };
      const code = (offsetSeconds: number) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });
      const confirmed = await t.app.inject({ method: 'POST', url: '/api/v1/me/second-factors/totp/confirm', headers: browser, payload: { code: code(0) } });
      assert.equal(confirmed.statusCode, 200, confirmed.body);

      const { callback } = await singleSignOn(t, account({ email: 'sam@acme.test', email_verified: true }));
      assert.equal(callback.statusCode, 303, callback.body);
      const location = new URL(String(callback.headers.location), 'http://taskboard.test');
      assert.equal(location.pathname, '/sign-in');
      assert.equal(location.search, '');
      assert.doesNotMatch(String(callback.headers['set-cookie']), /taskboard_session=tbs_/);
      const challenge = new URLSearchParams(location.hash.slice(1)).get('challenge');
      assert.ok(challenge);
      // the next step's code: the one just used to confirm is refused (no reuse)
      const finished = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-in/second-factor', payload: { challenge, code: code(30) } });
      assert.equal(finished.statusCode, 200, finished.body);
      assert.equal((await me(sessionCookieOf(finished))).user.email, 'sam@acme.test');
    });

    it('accepts a pending invitation of the verified email: a new user in the company and its teams', async () => {
      const invited = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/invitations`,
        headers: bearer(t.tenant.apiKey),
        payload: { email: 'ivy@acme.test', role: 'admin', teams: [t.tenant.teamId] },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const invitationId = (invited.json() as { invitation: { _id: string } }).invitation._id;
      const { callback } = await singleSignOn(t, account({ email: 'ivy@acme.test', email_verified: true, name: 'Ivy Invited' }));
      assert.equal(callback.statusCode, 303, callback.body);
      assert.equal(callback.headers.location, '/');
      const who = await me(sessionCookieOf(callback));
      assert.equal(who.user.email, 'ivy@acme.test');
      assert.equal(who.user.fullName, 'Ivy Invited');
      assert.deepEqual(
        who.companies.map((c) => [c._id, c.role]),
        [[t.tenant.companyId, 'admin']],
      );
      assert.deepEqual(
        who.teams.map((team) => team._id),
        [t.tenant.teamId],
      );
      const row = await t.services.db.selectFrom('invitations').select('accepted_at').where('id', '=', invitationId).executeTakeFirstOrThrow();
      assert.ok(row.accepted_at, 'the invitation is used up');
    });

    it('refuses a verified email with no account and no invitation, and makes no user', async () => {
      const { callback } = await singleSignOn(t, account({ email: 'stranger@elsewhere.test', email_verified: true }));
      assert.equal(callback.statusCode, 303);
      assert.equal(callback.headers.location, '/sign-in?error=sso_not_invited');
      assert.equal(cookieSet(callback.headers['set-cookie'], 'taskboard_session'), undefined);
      assert.equal(await t.services.db.selectFrom('users').select('id').where('email', '=', 'stranger@elsewhere.test').executeTakeFirst(), undefined);
    });

    it('refuses an email the provider has not verified, even of an existing user', async () => {
      const { callback } = await singleSignOn(t, account({ email: 'owner@acme.test', email_verified: false }));
      assert.equal(callback.headers.location, '/sign-in?error=sso_email_unverified');
      assert.equal(cookieSet(callback.headers['set-cookie'], 'taskboard_session'), undefined);
    });

    it('refuses a wrong state, a callback without the browser cookie, and a replayed callback', async () => {
      const owner = account({ email: 'owner@acme.test', email_verified: true });
      const forged = await singleSignOn(t, owner, { tamper: (back) => back.searchParams.set('state', 'forged-state') });
      assert.equal(forged.callback.headers.location, '/sign-in?error=sso_failed');

      // another browser's callback (login CSRF): this browser never began the sign-in
      const stolen = await singleSignOn(t, owner, { cookie: null });
      assert.equal(stolen.callback.headers.location, '/sign-in?error=sso_failed');

      const fine = await singleSignOn(t, owner);
      assert.equal(fine.callback.headers.location, '/');
      const replay = await t.app.inject({ method: 'GET', url: `${fine.back.pathname}${fine.back.search}`, headers: { cookie: fine.handle } });
      assert.equal(replay.headers.location, '/sign-in?error=sso_failed');
      assert.equal(cookieSet(replay.headers['set-cookie'], 'taskboard_session'), undefined);
    });

    it('goes back to the sign-in page when the person cancels at the provider', async () => {
      const start = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
      const handle = cookieSet(start.headers['set-cookie'], 'taskboard_oidc')!;
      const back = await signInAt(String(start.headers.location), 'nobody', { abort: true });
      assert.equal(back.searchParams.get('error'), 'access_denied');
      const callback = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie: handle } });
      assert.equal(callback.headers.location, '/sign-in?error=sso_cancelled');
    });

    it('refuses a next that leaves the site', async () => {
      for (const next of ['//evil.test/x', 'https://evil.test/', '/\\evil.test']) {
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/auth/oidc/start?next=${encodeURIComponent(next)}` });
        assert.equal(res.statusCode, 400, `${next}: ${res.body}`);
      }
    });

    it('counts refused callbacks as failed sign-ins of the address, and refuses the address past its limit', async () => {
      const strict = await buildTestApp(engine, {
        config: oidcConfig(
          { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
          { signInFailures: { perEmail: 10, perAddress: 2, windowSeconds: 900 } },
        ),
      });
      try {
        const stranger = account({ email: 'nobody@elsewhere.test', email_verified: true });
        for (let i = 0; i < 2; i++) assert.equal((await singleSignOn(strict, stranger)).callback.headers.location, '/sign-in?error=sso_not_invited');
        const owner = account({ email: 'owner@acme.test', email_verified: true });
        const throttled = await singleSignOn(strict, owner);
        assert.equal(throttled.callback.headers.location, '/sign-in?error=sso_throttled');
        assert.equal(cookieSet(throttled.callback.headers['set-cookie'], 'taskboard_session'), undefined);
        // another address is not held back by this one's failures
        const elsewhere = await singleSignOn(strict, owner, { remoteAddress: '10.1.2.3' });
        assert.equal(elsewhere.callback.headers.location, '/');
      } finally {
        await strict.dispose();
      }
    });

    it('with sign-up allowed, makes a user of a new verified email, in no company', async () => {
      const open = await buildTestApp(engine, {
        config: oidcConfig({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, allowSignUp: true }),
      });
      try {
        const { callback } = await singleSignOn(open, account({ email: 'newcomer@elsewhere.test', email_verified: true, name: 'Nico Newcomer' }));
        assert.equal(callback.statusCode, 303, callback.body);
        assert.equal(callback.headers.location, '/');
        const cookie = sessionCookieOf(callback);
        const res = await open.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie } });
        const who = res.json() as { user: { email: string; fullName: string }; companies: unknown[] };
        assert.equal(who.user.email, 'newcomer@elsewhere.test');
        assert.equal(who.user.fullName, 'Nico Newcomer');
        assert.deepEqual(who.companies, []);
        // still only verified emails
        const unverified = await singleSignOn(open, account({ email: 'other@elsewhere.test', email_verified: false }));
        assert.equal(unverified.callback.headers.location, '/sign-in?error=sso_email_unverified');
      } finally {
        await open.dispose();
      }
    });
  });
}

describe('single sign-on when the provider is down or off', () => {
  it('is off without OIDC_ISSUER: the sign-in page hides it and its routes are 404', async () => {
    const t = await buildTestApp('sqlite');
    try {
      const providers = await t.app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
      assert.equal((providers.json() as { singleSignOn: boolean }).singleSignOn, false);
      for (const url of ['/api/v1/auth/oidc/start', '/api/v1/auth/oidc/callback?code=x&state=y']) {
        const res = await t.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal((res.json() as { code: string }).code, 'not_found');
      }
    } finally {
      await t.dispose();
    }
  });

  it('answers the sign-in page with sso_unavailable when the provider refuses connections or never answers', async () => {
    // a port nobody listens on
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    // a provider that accepts the connection and then says nothing
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      for (const issuer of [`http://127.0.0.1:${closedPort}`, `http://127.0.0.1:${silentPort}`]) {
        const t = await buildTestApp('sqlite', { config: oidcConfig({ issuer, clientId: 'taskboard', timeoutMs: 300 }) });
        try {
          const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
          assert.equal(res.statusCode, 303, `${issuer}: ${res.body}`);
          assert.equal(res.headers.location, '/sign-in?error=sso_unavailable');
          assert.equal(cookieSet(res.headers['set-cookie'], 'taskboard_oidc'), undefined);
        } finally {
          await t.dispose();
        }
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
