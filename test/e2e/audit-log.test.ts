/**
 * The audit log (docs/people.md, "Audit log"): security and administration events recorded with
 * actor, time, address, user agent and target; read by owners only, filtered and paged; exported as
 * CSV and JSON Lines; pruned past retention; kept when what it names is deleted; and never holding
 * a secret (the last test greps every row for each secret the flows made).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pruneAuditLog } from '../../src/domain/audit/service.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { givePassword, sessionHeaders, signInAs, TEST_PASSWORD } from '../support/people.ts';

const AGENT = 'AuditTest/1.0 (+https://example.test)';

interface Entry {
  _id: string;
  at: string;
  kind: string;
  actor: { _id: string; email: string | null } | null;
  apiKey: string | null;
  ip: string | null;
  userAgent: string | null;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
}

for (const engine of ENGINES) {
  describe(`the audit log [${engine}]`, () => {
    let t: TestApp;
    /** Every secret the flows below make: none may appear in the log. */
    const secrets: string[] = [];
    let adminKey: string;

    before(async () => {
      t = await buildTestApp(engine);
      secrets.push(TEST_PASSWORD, t.tenant.apiKey);
      const admin = await addMember(t.services, { companyId: t.tenant.companyId, email: 'ada@acme.test', role: 'admin' });
      adminKey = admin.apiKey;
      secrets.push(adminKey);
    });
    after(() => t.dispose());

    async function readLog(query = '', token = t.tenant.apiKey): Promise<{ entries: Entry[]; nextCursor: string | null }> {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${t.tenant.companyId}/audit-log${query}`, headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    it('records failed and successful sign-ins with the reason, address and user agent', async () => {
      await givePassword(t.services, 'owner@acme.test');
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign-in',
        headers: { 'user-agent': AGENT },
        remoteAddress: '198.51.100.4',
        payload: { email: 'owner@acme.test', password: 'not the password at all' },
      });
      assert.equal(wrong.statusCode, 401);
      secrets.push('not the password at all');
      const session = await signInAs(t.app, 'owner@acme.test', TEST_PASSWORD, { 'user-agent': AGENT });
      secrets.push(session.cookie.split('=')[1] as string, session.csrfToken);

      const { entries } = await readLog('?kind=sign_in.failed');
      const failed = entries[0];
      assert.equal(failed?.details.reason, 'wrong_password');
      assert.equal(failed?.ip, '198.51.100.4');
      assert.equal(failed?.userAgent, AGENT);
      assert.deepEqual(failed?.target, { type: 'user', id: t.tenant.userId });
      const succeeded = (await readLog('?kind=sign_in.succeeded')).entries[0];
      assert.equal(succeeded?.actor?._id, t.tenant.userId);
      assert.equal(succeeded?.actor?.email, 'owner@acme.test');
      assert.equal(succeeded?.userAgent, AGENT);

      // a session's own changes are entries too: ending it
      const out = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: sessionHeaders(session) });
      assert.equal(out.statusCode, 204, out.body);
      assert.equal((await readLog('?kind=session.ended')).entries[0]?.details.reason, 'signed_out');
    });

    it('records keys made, rotated and revoked, with the key used', async () => {
      const made = await t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: { ...bearer(t.tenant.apiKey), 'user-agent': AGENT },
        payload: { name: 'ci' },
      });
      assert.equal(made.statusCode, 201);
      const { apiKey, token } = made.json();
      secrets.push(token);
      const rotated = await t.app.inject({ method: 'POST', url: `/api/v1/api-keys/${apiKey._id}/rotate`, headers: bearer(t.tenant.apiKey) });
      secrets.push(rotated.json().token);
      await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${apiKey._id}`, headers: bearer(t.tenant.apiKey) });
      const kinds = (await readLog(`?actor=${t.tenant.userId}`)).entries.filter((e) => e.target?.id === apiKey._id).map((e) => e.kind);
      assert.deepEqual(kinds, ['apikey.revoked', 'apikey.rotated', 'apikey.created']);
      const created = (await readLog('?kind=apikey.created')).entries[0];
      assert.equal(created?.userAgent, AGENT);
      assert.match(created?.apiKey ?? '', /^[0-9a-f]{24}$/);
      assert.equal(created?.details.name, 'ci');
    });

    it('records invitations, role changes, password resets and webhooks (a webhook by its host only)', async () => {
      const invited = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/invitations`,
        headers: bearer(t.tenant.apiKey),
        payload: { email: 'ivy@acme.test', role: 'member' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      secrets.push(invited.json().url.split('#')[1]);
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/companies/${t.tenant.companyId}/invitations/${invited.json().invitation._id}`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const member = await addMember(t.services, { companyId: t.tenant.companyId, email: 'max@acme.test' });
      secrets.push(member.apiKey);
      const role = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/companies/${t.tenant.companyId}/members/${member.userId}`,
        headers: bearer(t.tenant.apiKey),
        payload: { role: 'admin' },
      });
      assert.equal(role.statusCode, 200, role.body);
      const reset = await t.app.inject({
        method: 'POST',
        url: `/api/v1/companies/${t.tenant.companyId}/members/${member.userId}/password-reset`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(reset.statusCode, 201, reset.body);
      secrets.push(reset.json().url.split('#')[1]);
      const hook = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks?companyId=${t.tenant.companyId}`,
        headers: bearer(t.tenant.apiKey),
        payload: { url: 'http://127.0.0.1:9/hook?token=very-secret-query-token', types: ['card.*'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      secrets.push(hook.json().secret, 'very-secret-query-token');

      const kinds = (await readLog()).entries.map((e) => e.kind);
      for (const kind of ['invitation.created', 'invitation.revoked', 'member.role.changed', 'password.reset.issued', 'webhook.created']) {
        assert.ok(kinds.includes(kind), `${kind} missing from ${kinds.join(', ')}`);
      }
      const roleEntry = (await readLog('?kind=member.role.changed')).entries[0];
      assert.deepEqual(roleEntry?.target, { type: 'user', id: member.userId });
      assert.equal(roleEntry?.details.to, 'admin');
      assert.equal((await readLog('?kind=webhook.created')).entries[0]?.details.host, '127.0.0.1:9');
    });

    it("keeps a board's trail when the board is deleted", async () => {
      const { boardId } = await seedBoard(t.services, t.tenant);
      const exported = await t.app.inject({ method: 'GET', url: `/api/v1/boards/${boardId}/export`, headers: bearer(t.tenant.apiKey) });
      assert.equal(exported.statusCode, 200);
      const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/boards/${boardId}`, headers: bearer(t.tenant.apiKey) });
      assert.equal(deleted.statusCode, 200, deleted.body);
      await t.storage.db.deleteFrom('boards').where('id', '=', boardId).execute();
      const trail = (await readLog()).entries.filter((e) => e.target?.id === boardId).map((e) => e.kind);
      assert.deepEqual(trail, ['board.deleted', 'board.exported']);
    });

    it('pages newest first by cursor, each entry once, and filters by time', async () => {
      const all: Entry[] = [];
      let cursor: string | null = null;
      do {
        const page: { entries: Entry[]; nextCursor: string | null } = await readLog(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(page.entries.length <= 2);
        all.push(...page.entries);
        cursor = page.nextCursor;
      } while (cursor);
      const whole = (await readLog('?limit=200')).entries;
      assert.deepEqual(
        all.map((e) => e._id),
        whole.map((e) => e._id),
      );
      assert.ok(whole.length >= 10);
      const sorted = [...whole].sort((a, b) => (a.at === b.at ? b._id.localeCompare(a._id) : b.at.localeCompare(a.at)));
      assert.deepEqual(whole, sorted);
      const middle = whole[Math.floor(whole.length / 2)] as Entry;
      const since = (await readLog(`?limit=200&since=${middle.at}`)).entries;
      assert.ok(since.length > 0 && since.every((e) => e.at >= middle.at));
      const until = (await readLog(`?limit=200&until=${middle.at}`)).entries;
      assert.ok(until.every((e) => e.at < middle.at));
      assert.equal(since.length + until.length, whole.length);
    });

    it('is read by owners only: 403 for an admin, 404 for another company, 400 for a bad cursor', async () => {
      const admin = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${t.tenant.companyId}/audit-log`, headers: bearer(adminKey) });
      assert.equal(admin.statusCode, 403, admin.body);
      const other = await buildTestApp(engine);
      try {
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${other.tenant.companyId}/audit-log`, headers: bearer(t.tenant.apiKey) });
        assert.equal(res.statusCode, 404);
      } finally {
        await other.dispose();
      }
      const bad = await t.app.inject({ method: 'GET', url: `/api/v1/companies/${t.tenant.companyId}/audit-log?cursor=nope`, headers: bearer(t.tenant.apiKey) });
      assert.equal(bad.statusCode, 400);
    });

    it('exports as CSV and JSON Lines, and logs the export', async () => {
      const whole = (await readLog('?limit=200')).entries;
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/v1/companies/${t.tenant.companyId}/audit-log/export?format=csv`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(csv.statusCode, 200, csv.body);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const rows = csv.body.trim().split('\n');
      assert.match(rows[0] ?? '', /^id,at,kind,actor_id,actor_email/);
      // the export's own entry comes first, then everything there was
      assert.equal(rows.length, whole.length + 2);
      const jsonl = await t.app.inject({
        method: 'GET',
        url: `/api/v1/companies/${t.tenant.companyId}/audit-log/export?format=jsonl&kind=apikey.created`,
        headers: bearer(t.tenant.apiKey),
      });
      assert.equal(jsonl.statusCode, 200);
      const lines = jsonl.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Entry);
      assert.ok(lines.length > 0 && lines.every((e) => e.kind === 'apikey.created'));
      assert.equal((await readLog('?kind=audit_log.exported')).entries.length, 2);
      const refused = await t.app.inject({
        method: 'GET',
        url: `/api/v1/companies/${t.tenant.companyId}/audit-log/export?format=csv`,
        headers: bearer(adminKey),
      });
      assert.equal(refused.statusCode, 403);
    });

    it('holds no secret: no password, token, key, code or hash in any row', async () => {
      const session = await signInAs(t.app, 'owner@acme.test');
      secrets.push(session.cookie.split('=')[1] as string, session.csrfToken);
      const made = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: bearer(t.tenant.apiKey), payload: { name: 'late' } });
      secrets.push(made.json().token);
      const rows = await t.storage.db.selectFrom('audit_log').selectAll().execute();
      assert.ok(rows.length >= 2);
      const text = JSON.stringify(rows);
      const found = secrets.filter((secret) => secret.length >= 8 && text.includes(secret));
      assert.deepEqual(found, []);
      assert.ok(!text.includes('$argon2'), 'an argon2 hash in the audit log');
    });
    it('prunes entries past the retention, and only those', async () => {
      const before = (await readLog('?limit=200')).entries.length;
      const now = { ...t.services, clock: { now: () => Date.now() } };
      assert.equal((await pruneAuditLog(now, 1)).entries, 0);
      const later = { ...t.services, clock: { now: () => Date.now() + 2 * 86_400_000 } };
      assert.ok((await pruneAuditLog(later, 1)).entries >= before);
      assert.equal((await readLog()).entries.length, 0);
    });
  });
}
