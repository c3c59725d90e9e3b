/** PATCH /me `{emailNotifications}` and `{locale}`: the caller's choices, in their own user record only. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword, signInAs } from '../support/people.ts';

for (const engine of ENGINES) {
  describe(`email notifications choice [${engine}]`, () => {
    let t: TestApp;
    let api: Api;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
    });
    after(() => t.dispose());

    it('is off for a new person, turned on and off by PATCH /me, and shown in their record', async () => {
      assert.equal((await api('GET', '/api/v1/me')).json().user.emailNotifications, false);
      const on = await api('PATCH', '/api/v1/me', { emailNotifications: true });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal(on.json().user.emailNotifications, true);
      assert.equal(on.json().user.fullName, 'Olive Owner', 'the other fields stay');
      const stored = await t.services.db.selectFrom('users').select('email_notifications').where('id', '=', t.tenant.userId).executeTakeFirstOrThrow();
      assert.equal(stored.email_notifications, 1);
      assert.equal((await api('GET', '/api/v1/me')).json().user.emailNotifications, true);
      await givePassword(t.services, 'owner@acme.test');
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        payload: { email: 'owner@acme.test', password: 'violet tractor umbrella 42' },
      });
      assert.equal(signIn.json().user.emailNotifications, true);
      await signInAs(t.app, 'owner@acme.test');

      const off = await api('PATCH', '/api/v1/me', { emailNotifications: false });
      assert.equal(off.json().user.emailNotifications, false);
      assert.equal((await api('GET', '/api/v1/me')).json().user.emailNotifications, false);
    });

    it('refuses anything but a boolean, with the field named', async () => {
      for (const value of ['yes', 1, null]) {
        const res = await api('PATCH', '/api/v1/me', { emailNotifications: value });
        assert.equal(res.statusCode, 400, res.body);
        assert.ok(JSON.stringify(res.json()).includes('emailNotifications'), res.body);
      }
    });

    it("is not shown to others: a company member's record leaves it out", async () => {
      const res = await api('POST', `/api/v1/companies/${t.tenant.companyId}/members`, { email: 'mia@acme.test', fullName: 'Mia', role: 'member' });
      assert.equal(res.statusCode, 201, res.body);
      const member = res.json().member as Record<string, unknown>;
      assert.equal(member.email, 'mia@acme.test');
      assert.equal('emailNotifications' in member, false);
      assert.equal('locale' in member, false);
    });

    it("keeps the language: null (the browser's) at first, set and cleared by PATCH /me", async () => {
      assert.equal((await api('GET', '/api/v1/me')).json().user.locale, null);
      const german = await api('PATCH', '/api/v1/me', { locale: 'de' });
      assert.equal(german.statusCode, 200, german.body);
      assert.equal(german.json().user.locale, 'de');
      assert.equal((await api('GET', '/api/v1/me')).json().user.locale, 'de');
      const stored = await t.services.db.selectFrom('users').select('locale').where('id', '=', t.tenant.userId).executeTakeFirstOrThrow();
      assert.equal(stored.locale, 'de');
      assert.equal((await api('PATCH', '/api/v1/me', { locale: null })).json().user.locale, null);
      assert.equal((await api('GET', '/api/v1/me')).json().user.locale, null);
    });

    it('refuses a language it does not speak, with the field named, and writes nothing', async () => {
      for (const value of ['xx', 'EN', 'de-DE', 7, '']) {
        const res = await api('PATCH', '/api/v1/me', { locale: value, fullName: 'Changed' });
        assert.equal(res.statusCode, 400, res.body);
        assert.ok(JSON.stringify(res.json()).includes('locale'), res.body);
      }
      assert.equal((await api('GET', '/api/v1/me')).json().user.fullName, 'Olive Owner');
    });
  });
}
