import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { bearer, buildTwoCompanyApp, ENGINES, type OtherCompany, type TestApp } from '../support/harness.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

/** What a 404 for a link that once worked says of it (undefined for a token never made). */
function goneReason(res: { json: () => unknown }) {
  const detail = (res.json() as { details?: { reason?: string; companyName?: string; inviterName?: string | null }[] }).details?.[0];
  if (!detail?.reason) return undefined;
  return detail.companyName === undefined
    ? { reason: detail.reason }
    : { reason: detail.reason, companyName: detail.companyName, inviterName: detail.inviterName };
}

for (const engine of ENGINES) {
  describe(`invitations and password resets [${engine}]`, () => {
    let t: TestApp;
    let other: OtherCompany;

    before(async () => {
      ({ t, other } = await buildTwoCompanyApp(engine));
    });
    after(() => t.dispose());

    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    async function invite(email: string, extra: object = {}) {
      const res = await call('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, bearer(t.tenant.apiKey), {
        email,
        role: 'member',
        teams: [t.tenant.teamId],
        ...extra,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { invitation: { _id: string; email: string; expiresAt: string }; url: string };
      return { ...body, token: /#(tbi_[A-Za-z0-9_-]{43})$/.exec(body.url)![1]! };
    }

    it('invites, shows the invitation without authentication, accepts once: joins company and team, signed in', async () => {
      const { invitation, token, url } = await invite('Nina@Acme.test');
      assert.equal(invitation.email, 'nina@acme.test');
      assert.match(url, /^http:\/\/localhost:80\/invitations#tbi_/);
      const days = (Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000;
      assert.ok(days > 6.9 && days <= 7, String(days));
      const stored = await t.services.db.selectFrom('invitations').select('token_hash').where('id', '=', invitation._id).executeTakeFirstOrThrow();
      assert.notEqual(stored.token_hash, token);

      const preview = await call('GET', `/api/v1/invitations/${token}`, {});
      assert.equal(preview.statusCode, 200, preview.body);
      assert.deepEqual(
        { ...(preview.json() as object), expiresAt: null, message: null },
        {
          companyName: 'Acme',
          inviterName: 'Olive Owner',
          email: 'nina@acme.test',
          role: 'member',
          expiresAt: null,
          message: null,
          teams: [{ _id: t.tenant.teamId, name: 'Core' }],
          board: null,
          hasPassword: false,
        },
      );

      const weak = await call('POST', `/api/v1/invitations/${token}/accept`, {}, { fullName: 'Nina', password: 'short' });
      assert.equal(weak.statusCode, 400);
      const accepted = await call('POST', `/api/v1/invitations/${token}/accept`, {}, { fullName: 'Nina New', password: TEST_PASSWORD });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const cookie = String(accepted.headers['set-cookie']).split(';')[0]!;
      const me = await call('GET', '/api/v1/me', { cookie });
      const body = me.json() as { user: { fullName: string }; companies: { _id: string; role: string }[]; teams: { _id: string }[] };
      assert.equal(body.user.fullName, 'Nina New');
      assert.deepEqual(
        body.companies.map((c) => [c._id, c.role]),
        [[t.tenant.companyId, 'member']],
      );
      assert.deepEqual(
        body.teams.map((team) => team._id),
        [t.tenant.teamId],
      );
      assert.equal((await call('POST', `/api/v1/invitations/${token}/accept`, {}, { fullName: 'Again', password: TEST_PASSWORD })).statusCode, 404);
      const used = await call('GET', `/api/v1/invitations/${token}`, {});
      assert.equal(used.statusCode, 404);
      assert.deepEqual(goneReason(used), { reason: 'used', companyName: 'Acme', inviterName: 'Olive Owner' });
      assert.match((used.json() as { message: string }).message, /used already: ask Olive Owner/);
      await signInAs(t.app, 'nina@acme.test');
    });

    it('an invitation from a board joins its team and names the board; a token never made is a plain 404', async () => {
      const board = await call('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, bearer(t.tenant.apiKey), { name: 'Roadmap' });
      const boardId = (board.json() as { board: { _id: string } }).board._id;
      const { invitation, token } = await invite('bea@acme.test', { teams: [], board: boardId });
      assert.equal((invitation as unknown as { board: string }).board, boardId);
      assert.deepEqual((invitation as unknown as { teams: string[] }).teams, [t.tenant.teamId]);
      const preview = (await call('GET', `/api/v1/invitations/${token}`, {})).json() as { board: unknown; teams: unknown };
      assert.deepEqual(preview.board, { _id: boardId, name: 'Roadmap' });
      assert.deepEqual(preview.teams, [{ _id: t.tenant.teamId, name: 'Core' }]);
      // another company's board cannot be named, and says nothing of it
      const foreign = await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Secret' });
      const foreignId = (foreign.json() as { board: { _id: string } }).board._id;
      const refused = await call('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, bearer(t.tenant.apiKey), {
        email: 'cal@acme.test',
        role: 'member',
        board: foreignId,
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.doesNotMatch(refused.body, /Secret/);
      const never = await call('GET', `/api/v1/invitations/tbi_${'x'.repeat(43)}`, {});
      assert.equal(never.statusCode, 404);
      assert.equal(goneReason(never), undefined);
    });

    it('a signed-in person with the invited email joins without a new password', async () => {
      await bootstrap(t.services, { company: 'Hooli', team: 'Nucleus', email: 'hank@hooli.test', fullName: 'Hank' });
      await givePassword(t.services, 'hank@hooli.test');
      const session = await signInAs(t.app, 'hank@hooli.test');
      const { token } = await invite('hank@hooli.test');
      assert.equal(((await call('GET', `/api/v1/invitations/${token}`, {})).json() as { hasPassword: boolean }).hasPassword, true);
      const accepted = await call('POST', `/api/v1/invitations/${token}/accept`, sessionHeaders(session));
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal((accepted.json() as { csrfToken: null }).csrfToken, null);
      const me = (await call('GET', '/api/v1/me', { cookie: session.cookie })).json() as { companies: { _id: string }[] };
      assert.ok(me.companies.some((c) => c._id === t.tenant.companyId));
    });

    it('an account with a password must sign in first; a revoked invitation is gone; other companies see 404', async () => {
      await givePassword(t.services, 'owner@acme.test');
      const { invitation, token } = await invite('someone@acme.test');
      const list = await call('GET', `/api/v1/companies/${t.tenant.companyId}/invitations`, bearer(t.tenant.apiKey));
      assert.equal(list.statusCode, 200);
      assert.ok((list.json() as { invitations: { _id: string }[] }).invitations.some((i) => i._id === invitation._id));
      assert.doesNotMatch(list.body, /tbi_/);
      assert.equal((await other.api('GET', `/api/v1/companies/${t.tenant.companyId}/invitations`)).statusCode, 404);
      assert.equal((await other.api('DELETE', `/api/v1/companies/${t.tenant.companyId}/invitations/${invitation._id}`)).statusCode, 404);
      assert.equal((await other.api('DELETE', `/api/v1/companies/${other.companyId}/invitations/${invitation._id}`)).statusCode, 404);
      const revoked = await call('DELETE', `/api/v1/companies/${t.tenant.companyId}/invitations/${invitation._id}`, bearer(t.tenant.apiKey));
      assert.equal(revoked.statusCode, 200, revoked.body);
      const gone = await call('GET', `/api/v1/invitations/${token}`, {});
      assert.equal(gone.statusCode, 404);
      assert.equal(goneReason(gone)?.reason, 'revoked');

      const member = await call('POST', `/api/v1/companies/${t.tenant.companyId}/invitations`, bearer(t.tenant.apiKey), {
        email: 'owner@acme.test',
        role: 'member',
      });
      assert.equal(member.statusCode, 409, member.body);
    });

    it("password reset: 202 always; an admin's link resets once and ends every session", async () => {
      for (const email of ['owner@acme.test', 'nobody@acme.test']) {
        const res = await call('POST', '/api/v1/auth/password-reset', {}, { email });
        assert.equal(res.statusCode, 202, res.body);
      }
      const nina = (await t.services.db.selectFrom('users').select('id').where('email', '=', 'nina@acme.test').executeTakeFirstOrThrow()).id;
      const session = await signInAs(t.app, 'nina@acme.test');
      assert.equal((await other.api('POST', `/api/v1/companies/${t.tenant.companyId}/members/${nina}/password-reset`)).statusCode, 404);
      const link = await call('POST', `/api/v1/companies/${t.tenant.companyId}/members/${nina}/password-reset`, bearer(t.tenant.apiKey));
      assert.equal(link.statusCode, 201, link.body);
      const url = (link.json() as { url: string }).url;
      assert.match(url, /^http:\/\/localhost:80\/reset#tbr_/);
      const token = /#(tbr_[A-Za-z0-9_-]{43})$/.exec(url)![1]!;
      const preview = await call('GET', `/api/v1/auth/password-reset/${token}`, {});
      assert.equal(preview.statusCode, 200, preview.body);
      assert.equal((preview.json() as { email: string }).email, 'nina@acme.test');
      const reset = await call('POST', `/api/v1/auth/password-reset/${token}`, {}, { password: 'nina has a new password' });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal((await call('GET', '/api/v1/me', { cookie: session.cookie })).statusCode, 401, 'the old session ended');
      // the reset signs in: its answer carries a new session
      const fresh = String(reset.headers['set-cookie']).split(';')[0]!;
      const me = await call('GET', '/api/v1/me', { cookie: fresh });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal((me.json() as { user: { email: string } }).user.email, 'nina@acme.test');
      assert.equal(typeof (reset.json() as { csrfToken: string }).csrfToken, 'string');
      await signInAs(t.app, 'nina@acme.test', 'nina has a new password');
      const again = await call('POST', `/api/v1/auth/password-reset/${token}`, {}, { password: 'and another one again' });
      assert.equal(again.statusCode, 404);
      assert.equal(goneReason(again)?.reason, 'used');
      assert.equal(goneReason(await call('GET', `/api/v1/auth/password-reset/${token}`, {}))?.reason, 'used');
    });
  });
}
