import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const OWNER = 'owner@acme.test';

for (const engine of ENGINES) {
  describe(`people sign in with passwords and sessions [${engine}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await buildTestApp(engine, {
        config: {
          people: { ...(await import('../support/harness.ts')).testConfig().people, signInFailures: { perEmail: 3, perAddress: 1000, windowSeconds: 900 } },
        },
      });
      await givePassword(t.services, OWNER);
    });
    after(() => t.dispose());

    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    it('signs in with the right password: the user, a CSRF token and an HttpOnly SameSite=Lax cookie (no Secure over HTTP)', async () => {
      const res = await call('POST', '/api/v1/auth/sign-in', {}, { email: 'Owner@Acme.test', password: TEST_PASSWORD });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { user: { email: string }; csrfToken: string };
      assert.equal(body.user.email, OWNER);
      assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
      assert.doesNotMatch(res.body, /password|argon2/i);
      const cookie = String(res.headers['set-cookie']);
      assert.match(cookie, /^taskboard_session=tbs_[A-Za-z0-9_-]{43};/);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Path=\//);
      assert.doesNotMatch(cookie, /Secure/);
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    it('over HTTPS behind a trusted proxy the cookie is __Host- and Secure, and only that cookie is read', async () => {
      const proxied = await buildTestApp(engine, { config: { trustProxy: true } });
      try {
        await givePassword(proxied.services, OWNER);
        const https = { 'x-forwarded-proto': 'https' };
        const session = await signInAs(proxied.app, OWNER, TEST_PASSWORD, https);
        assert.match(session.setCookie, /^__Host-taskboard_session=tbs_/);
        assert.match(session.setCookie, /; Secure/);
        assert.match(session.setCookie, /Path=\//);
        assert.doesNotMatch(session.setCookie, /Domain=/i);
        const me = await proxied.app.inject({ method: 'GET', url: '/api/v1/me', headers: { ...https, cookie: session.cookie } });
        assert.equal(me.statusCode, 200, me.body);
        // the same token under the plain name, over HTTPS, is not a session
        const planted = await proxied.app.inject({ method: 'GET', url: '/api/v1/me', headers: { ...https, cookie: session.cookie.replace('__Host-', '') } });
        assert.equal(planted.statusCode, 401);
      } finally {
        await proxied.dispose();
      }
    });

    it('a wrong password and an unknown email answer the same 401', async () => {
      const wrong = await call(
        'POST',
        '/api/v1/auth/sign-in',
        { 'x-forwarded-for': '10.0.0.1' },
        { email: 'nobody@acme.test', password: 'not the password at all' },
      );
      const unknown = await call('POST', '/api/v1/auth/sign-in', {}, { email: 'nobody-else@acme.test', password: 'not the password at all' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      const strip = (body: string) => ({ ...(JSON.parse(body) as object), requestId: null });
      assert.deepEqual(strip(wrong.body), strip(unknown.body));
      assert.equal(wrong.headers['set-cookie'], undefined);
    });

    it('an email or a password reset request with a control character is a 400, on PostgreSQL too', async () => {
      for (const [url, body] of [
        ['/api/v1/auth/sign-in', { email: 'a\u0000b@acme.test', password: 'not the password at all' }],
        ['/api/v1/auth/password-reset', { email: 'a\u0000b@acme.test' }],
      ] as const) {
        const answer = await call('POST', url, {}, body);
        assert.equal(answer.statusCode, 400, `${url}: ${answer.body}`);
        assert.equal((JSON.parse(answer.body) as { code: string }).code, 'validation_failed');
      }
    });

    it('gives a new token at every sign-in (no fixation)', async () => {
      const a = await signInAs(t.app, OWNER);
      const b = await signInAs(t.app, OWNER, TEST_PASSWORD, { cookie: a.cookie });
      assert.notEqual(a.cookie, b.cookie);
      assert.notEqual(a.csrfToken, b.csrfToken);
    });

    it('authenticates reads by cookie; a change needs the CSRF token and an allowed Origin; keys are unaffected', async () => {
      const session = await signInAs(t.app, OWNER);
      const me = await call('GET', '/api/v1/me', { cookie: session.cookie });
      assert.equal(me.statusCode, 200, me.body);
      const url = `/api/v1/boards?teamId=${t.tenant.teamId}`;
      const noToken = await call('POST', url, { cookie: session.cookie }, { name: 'Forged' });
      assert.equal(noToken.statusCode, 403, noToken.body);
      assert.equal((noToken.json() as { code: string }).code, 'forbidden');
      const wrongToken = await call('POST', url, { cookie: session.cookie, 'x-csrf-token': 'x'.repeat(43) }, { name: 'Forged' });
      assert.equal(wrongToken.statusCode, 403);
      const crossSite = await call('POST', url, { ...sessionHeaders(session), origin: 'https://evil.example' }, { name: 'Forged' });
      assert.equal(crossSite.statusCode, 403);
      const fetchSite = await call('POST', url, { ...sessionHeaders(session), 'sec-fetch-site': 'cross-site' }, { name: 'Forged' });
      assert.equal(fetchSite.statusCode, 403);
      const sameOrigin = await call('POST', url, { ...sessionHeaders(session), origin: 'http://localhost:80', host: 'localhost:80' }, { name: 'Roadmap' });
      assert.equal(sameOrigin.statusCode, 201, sameOrigin.body);
      const byKey = await call('POST', url, bearer(t.tenant.apiKey), { name: 'By key' });
      assert.equal(byKey.statusCode, 201, byKey.body);
      const boards = await call('GET', `/api/v1/boards?teamId=${t.tenant.teamId}`, { cookie: session.cookie });
      assert.equal(boards.statusCode, 200);
      // a session's change is the user's, without a key
      const activity = await call('GET', `/api/v1/activity?companyId=${t.tenant.companyId}&type=board.created`, bearer(t.tenant.apiKey));
      if (activity.statusCode === 200) {
        const events = (activity.json() as { events: { actor: { user: string; apiKey: string | null } }[] }).events;
        assert.ok(
          events.some((event) => event.actor?.apiKey === null && event.actor.user === t.tenant.userId),
          activity.body,
        );
      }
    });

    it('GET /auth/session answers the user and the CSRF token; a key has no session', async () => {
      const session = await signInAs(t.app, OWNER);
      const res = await call('GET', '/api/v1/auth/session', { cookie: session.cookie });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { user: { email: string }; csrfToken: string; session: { _id: string } };
      assert.equal(body.csrfToken, session.csrfToken);
      assert.equal(body.user.email, OWNER);
      assert.equal((await call('GET', '/api/v1/auth/session', bearer(t.tenant.apiKey))).statusCode, 404);
    });

    it("lists the caller's sessions and ends one: its cookie is refused at once", async () => {
      const mine = await signInAs(t.app, OWNER, TEST_PASSWORD, { 'user-agent': 'Firefox test' });
      const other = await signInAs(t.app, OWNER, TEST_PASSWORD, { 'user-agent': 'Phone' });
      const list = await call('GET', '/api/v1/auth/sessions', { cookie: mine.cookie });
      assert.equal(list.statusCode, 200, list.body);
      const sessions = (list.json() as { sessions: { _id: string; current: boolean; userAgent: string; ip: string; createdAt: string; lastSeenAt: string }[] })
        .sessions;
      const current = sessions.filter((s) => s.current);
      assert.equal(current.length, 1);
      assert.equal(current[0]!.userAgent, 'Firefox test');
      assert.doesNotMatch(list.body, /tbs_/);
      const phone = sessions.find((s) => s.userAgent === 'Phone')!;
      assert.equal((await call('GET', '/api/v1/me', { cookie: other.cookie })).statusCode, 200);
      const end = await call('DELETE', `/api/v1/auth/sessions/${phone._id}`, sessionHeaders(mine));
      assert.equal(end.statusCode, 204, end.body);
      assert.equal((await call('GET', '/api/v1/me', { cookie: other.cookie })).statusCode, 401);
      assert.equal((await call('DELETE', `/api/v1/auth/sessions/${phone._id}`, sessionHeaders(mine))).statusCode, 404);
    });

    it('signs out: 204, the cookie cleared and refused', async () => {
      const session = await signInAs(t.app, OWNER);
      const res = await call('POST', '/api/v1/auth/sign-out', sessionHeaders(session));
      assert.equal(res.statusCode, 204, res.body);
      assert.match(String(res.headers['set-cookie']), /taskboard_session=;/);
      assert.equal((await call('GET', '/api/v1/me', { cookie: session.cookie })).statusCode, 401);
    });

    it('changes the password: the current one is checked, the rules apply, other sessions end', async () => {
      await givePassword(t.services, OWNER);
      const mine = await signInAs(t.app, OWNER);
      const other = await signInAs(t.app, OWNER);
      const wrong = await call('PATCH', '/api/v1/me/password', sessionHeaders(mine), {
        currentPassword: 'wrong wrong wrong',
        newPassword: 'a brand new password 7',
      });
      assert.equal(wrong.statusCode, 400);
      const short = await call('PATCH', '/api/v1/me/password', sessionHeaders(mine), { currentPassword: TEST_PASSWORD, newPassword: 'short' });
      assert.equal(short.statusCode, 400);
      const common = await call('PATCH', '/api/v1/me/password', sessionHeaders(mine), { currentPassword: TEST_PASSWORD, newPassword: '1qaz2wsx3edc' });
      assert.equal(common.statusCode, 400);
      assert.match(common.body, /common/);
      const ok = await call('PATCH', '/api/v1/me/password', sessionHeaders(mine), { currentPassword: TEST_PASSWORD, newPassword: 'a brand new password 7' });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal((await call('GET', '/api/v1/me', { cookie: mine.cookie })).statusCode, 200);
      assert.equal((await call('GET', '/api/v1/me', { cookie: other.cookie })).statusCode, 401);
      await signInAs(t.app, OWNER, 'a brand new password 7');
      await givePassword(t.services, OWNER);
    });

    it('limits failed sign-ins per email with Retry-After; a success clears the count', async () => {
      await givePassword(t.services, OWNER);
      const attempt = (password: string) => call('POST', '/api/v1/auth/sign-in', {}, { email: OWNER, password });
      for (let i = 0; i < 2; i++) assert.equal((await attempt('wrong password here')).statusCode, 401);
      await signInAs(t.app, OWNER);
      for (let i = 0; i < 3; i++) assert.equal((await attempt('wrong password here')).statusCode, 401);
      const refused = await attempt(TEST_PASSWORD);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.equal((refused.json() as { code: string }).code, 'rate_limited');
    });
  });
}

describe('session requests count per user, apart from keys, in larger buckets', () => {
  it('asks the limiter for user:<id> with the tier times SESSION_RATE_LIMIT_FACTOR; keys keep their tiers', async () => {
    const { recordingLimiter } = await import('../support/harness.ts');
    const limiter = recordingLimiter();
    const t = await buildTestApp('sqlite', { rateLimiter: limiter });
    try {
      await givePassword(t.services, OWNER);
      const session = await signInAs(t.app, OWNER);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { cookie: session.cookie } })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(t.tenant.apiKey) })).statusCode, 200);
      const [bySession, byKey] = limiter.seen.filter((seen) => seen.route === 'GET /api/v1/me');
      assert.deepEqual(bySession, {
        apiKeyId: `user:${t.tenant.userId}`,
        route: 'GET /api/v1/me',
        tier: 'very-low',
        limit: t.config.rateLimit.tiers['very-low'] * t.config.people.sessionRateLimitFactor,
      });
      assert.deepEqual(byKey, {
        apiKeyId: (await t.services.db.selectFrom('api_keys').select('id').executeTakeFirstOrThrow()).id,
        route: 'GET /api/v1/me',
        tier: 'very-low',
      });
      // the sign-in itself is public: it never reaches a bucket
      assert.ok(!limiter.seen.some((seen) => seen.route.includes('sign-in')));
    } finally {
      await t.dispose();
    }
  });
});
