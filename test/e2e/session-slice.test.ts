/**
 * The session slice (scripts/test.sh) runs e2e files again with E2E_AUTH=session: this file runs in
 * both passes and proves that the harness's client really is what the pass says, so the second
 * pass cannot quietly go by key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, buildTestApp, type TestApp } from '../support/harness.ts';

const bySession = process.env.E2E_AUTH === 'session';

describe(`the e2e client goes by ${bySession ? 'session cookie' : 'API key'}`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp('sqlite');
  });
  after(() => t.dispose());

  it(bySession ? 'signs the key’s user in once and sends the cookie, never the key' : 'sends the key and signs nobody in', async () => {
    const api = apiClient(t, t.tenant.apiKey);
    for (const url of ['/api/v1/me', `/api/v1/boards?teamId=${t.tenant.teamId}`]) {
      const res = await api('GET', url);
      assert.equal(res.statusCode, 200, res.body);
    }
    const created = await api('POST', `/api/v1/boards?teamId=${t.tenant.teamId}`, { name: 'Slice' });
    assert.equal(created.statusCode, 201, created.body);
    const sessions = await t.services.db.selectFrom('sessions').select(['id', 'last_seen_at']).where('user_id', '=', t.tenant.userId).execute();
    const current = await api('GET', '/api/v1/auth/session');
    if (bySession) {
      assert.equal(sessions.length, 1, 'one session for all the client’s calls');
      assert.equal(current.statusCode, 200, current.body);
    } else {
      assert.equal(sessions.length, 0);
      // a key's request has no session to show
      assert.equal(current.statusCode, 404, current.body);
    }
  });
});
