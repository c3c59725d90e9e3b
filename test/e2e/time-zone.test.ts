/** PATCH /me `{timeZone}`: an IANA time zone (or null, the browser's), validated, in the caller's own record only. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, apiClient, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`time zone choice [${engine}]`, () => {
    let t: TestApp;
    let api: Api;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
    });
    after(() => t.dispose());

    const stored = async () =>
      (await t.services.db.selectFrom('users').select('time_zone').where('id', '=', t.tenant.userId).executeTakeFirstOrThrow()).time_zone;

    it("is null (the browser's) at first, set as the zone database spells it, and cleared", async () => {
      assert.equal((await api('GET', '/api/v1/me')).json().user.timeZone, null);
      const berlin = await api('PATCH', '/api/v1/me', { timeZone: 'europe/berlin' });
      assert.equal(berlin.statusCode, 200, berlin.body);
      assert.equal(berlin.json().user.timeZone, 'Europe/Berlin');
      assert.equal(berlin.json().user.fullName, 'Olive Owner', 'the other fields stay');
      assert.equal((await api('GET', '/api/v1/me')).json().user.timeZone, 'Europe/Berlin');
      assert.equal(await stored(), 'Europe/Berlin');
      assert.equal((await api('PATCH', '/api/v1/me', { timeZone: 'UTC' })).json().user.timeZone, 'UTC');
      assert.equal((await api('PATCH', '/api/v1/me', { timeZone: null })).json().user.timeZone, null);
      assert.equal(await stored(), null);
    });

    it('refuses what is not a time zone, with the field named, and writes nothing', async () => {
      await api('PATCH', '/api/v1/me', { timeZone: 'Asia/Tokyo' });
      for (const value of ['Mars/Olympus_Mons', '+02:00', '', 'x'.repeat(65), 7, true]) {
        const res = await api('PATCH', '/api/v1/me', { timeZone: value, fullName: 'Changed' });
        assert.equal(res.statusCode, 400, `${JSON.stringify(value)}: ${res.body}`);
        assert.ok(JSON.stringify(res.json()).includes('timeZone'), res.body);
      }
      const me = (await api('GET', '/api/v1/me')).json().user;
      assert.deepEqual([me.fullName, me.timeZone], ['Olive Owner', 'Asia/Tokyo']);
    });

    it("is not shown to others: a company member's record leaves it out", async () => {
      const res = await api('POST', `/api/v1/companies/${t.tenant.companyId}/members`, { email: 'tz@acme.test', fullName: 'Zed', role: 'member' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal('timeZone' in (res.json().member as Record<string, unknown>), false);
    });
  });
}
