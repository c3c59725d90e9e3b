import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { createCard } from '../../src/domain/cards/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { Card } from '../../src/schemas/records.ts';
import { addMember, addTeam, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

for (const engine of ENGINES) {
  describe(`Toggle Multiple Members [${engine}]`, () => {
    let t: TestApp;
    let caller: Caller;
    let listId: string;
    /** Members of the card's team (the tenant owner's team), 22 of them. */
    let teammates: string[];
    let rival: BootstrapResult;

    before(async () => {
      t = await buildTestApp(engine);
      caller = await authenticate(t.services, t.tenant.apiKey);
      listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      teammates = [];
      for (let i = 0; i < 22; i++) {
        const m = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `m${i}@acme.test`, fullName: `Mate ${i}` });
        teammates.push(m.userId);
      }
      rival = await bootstrap(t.services, { company: 'Rival', team: 'T', email: 'r@rival.test', fullName: 'R' });
    });
    after(() => t.dispose());

    const newCard = async () => (await createCard(t.services, caller, {}, { list: listId, name: 'Card' }))._id;
    const toggle = (cardId: string, body: unknown, key = t.tenant.apiKey, query = '') =>
      t.app.inject({ method: 'POST', url: `/v2/cards/${cardId}/members${query}`, headers: bearer(key), payload: body as object });
    const version = async (cardId: string) =>
      (await t.services.db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow()).version;
    const cardMembers = async (cardId: string) =>
      (await t.services.db.selectFrom('card_members').select('user_id').where('card_id', '=', cardId).execute()).map((r) => r.user_id).sort();
    const ids = (card: { members: { _id: string }[] }) => card.members.map((m) => m._id);

    it('adds absent members and removes present ones, answering {message, card} with the full record', async () => {
      const cardId = await newCard();
      const [a, b, c] = teammates as [string, string, string];
      const first = await toggle(cardId, { members: [a, b, t.tenant.userId] });
      assert.equal(first.statusCode, 200, first.body);
      const body = first.json();
      assert.equal(body.message, 'Members toggled');
      assertSchema(Card, body.card);
      assert.deepEqual(ids(body.card), [a, b, t.tenant.userId].sort(), 'joined together: in id order');
      assert.deepEqual(
        body.card.members.find((m: { _id: string }) => m._id === a),
        { _id: a, fullName: 'Mate 0', photoUrl: '' },
      );
      assert.equal(body.card.__v, 1);

      const second = await toggle(cardId, { members: [b, c] });
      assert.equal(second.statusCode, 200);
      assert.deepEqual(ids(second.json().card).sort(), [a, c, t.tenant.userId].sort());
      assert.equal(second.json().card.__v, 2);
      assert.deepEqual(await cardMembers(cardId), [a, c, t.tenant.userId].sort());
    });

    it("refuses users outside the card's team (unknown, other team, other company, company admin), naming each, and changes nothing", async () => {
      const cardId = await newCard();
      await toggle(cardId, { members: [teammates[0]] });
      const elsewhere = await addMember(t.services, { companyId: t.tenant.companyId, email: 'elsewhere@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Other team', [elsewhere.userId]);
      const admin = await addMember(t.services, { companyId: t.tenant.companyId, email: 'admin@acme.test', role: 'admin' });
      const unknown = 'ffffffffffffffffffffffff';
      const res = await toggle(cardId, { members: [teammates[1], unknown, elsewhere.userId, teammates[0], rival.userId, admin.userId] });
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      assert.equal(body.code, 'validation_failed');
      assert.match(body.message, new RegExp(unknown));
      assert.deepEqual(
        body.details.map((d: { field: string }) => d.field),
        ['body.members[1]', 'body.members[2]', 'body.members[4]', 'body.members[5]'],
      );
      assert.deepEqual(await cardMembers(cardId), [teammates[0]]);
      assert.equal(await version(cardId), 1);
    });

    it('removes a member who has left the team, but does not add one back', async () => {
      const cardId = await newCard();
      const leaver = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'leaver@acme.test' });
      assert.equal((await toggle(cardId, { members: [leaver.userId] })).statusCode, 200);
      await t.services.db.deleteFrom('team_members').where('team_id', '=', t.tenant.teamId).where('user_id', '=', leaver.userId).execute();

      const off = await toggle(cardId, { members: [leaver.userId, teammates[2]] });
      assert.equal(off.statusCode, 200, off.body);
      assert.deepEqual(ids(off.json().card), [teammates[2]]);
      const backOn = await toggle(cardId, { members: [leaver.userId] });
      assert.equal(backOn.statusCode, 400);
      assert.deepEqual(
        backOn.json().details.map((d: { field: string }) => d.field),
        ['body.members[0]'],
      );
      assert.deepEqual(await cardMembers(cardId), [teammates[2]]);
      assert.equal(await version(cardId), 2);
    });

    it('rejects malformed ids, duplicates, an empty or too long list, unknown fields and wrong types with 400', async () => {
      const cardId = await newCard();
      const cases: [unknown, string][] = [
        [{ members: ['not-an-id'] }, 'body.members[0]'],
        [{ members: [teammates[0], teammates[1], teammates[0]] }, 'body.members[2]'],
        [{ members: [] }, 'body.members'],
        [{ members: Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(24, '0')) }, 'body.members'],
        [{ members: [teammates[0]], labels: [] }, 'body.labels'],
        [{ members: teammates[0] }, 'body.members'],
        [{ members: [7] }, 'body.members[0]'],
        [{}, 'body.members'],
      ];
      for (const [body, field] of cases) {
        const res = await toggle(cardId, body);
        assert.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          `${JSON.stringify(body).slice(0, 80)} → ${res.body}`,
        );
      }
      assert.equal((await toggle('123', { members: [teammates[0]] })).statusCode, 400);
      assert.deepEqual(await cardMembers(cardId), []);
      assert.equal(await version(cardId), 0);
    });

    it('20 parallel toggles of 20 different members leave 20 members and __v 20 higher', async () => {
      const cardId = await newCard();
      const twenty = teammates.slice(0, 20);
      const answers = await Promise.all(twenty.map((id) => toggle(cardId, { members: [id] })));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        twenty.map(() => 200),
      );
      assert.deepEqual(await cardMembers(cardId), [...twenty].sort());
      assert.equal(await version(cardId), 20);
      assert.equal(new Set(answers.map((a) => a.json().card.__v)).size, 20, 'the toggles applied one after another');
    });

    it('a member toggled by 10 parallel requests ends absent', async () => {
      const cardId = await newCard();
      const answers = await Promise.all(Array.from({ length: 10 }, () => toggle(cardId, { members: [teammates[3]] })));
      assert.ok(answers.every((a) => a.statusCode === 200));
      assert.deepEqual(await cardMembers(cardId), []);
      assert.equal(await version(cardId), 10);
    });

    it("is a 404 for another company's key, a member of another team, or a mismatching scope, and changes nothing", async () => {
      const cardId = await newCard();
      const outsider = await addMember(t.services, { companyId: t.tenant.companyId, email: 'outsider@acme.test' });
      await addTeam(t.services, t.tenant.companyId, 'Outside', [outsider.userId]);
      for (const [key, query] of [
        [rival.apiKey, ''],
        [outsider.apiKey, ''],
        [t.tenant.apiKey, `?companyId=${rival.companyId}`],
        [t.tenant.apiKey, `?teamId=${rival.teamId}`],
      ] as const) {
        const res = await toggle(cardId, { members: [teammates[0]] }, key, query);
        assert.equal(res.statusCode, 404, query);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await toggle('ffffffffffffffffffffffff', { members: [teammates[0]] })).statusCode, 404);
      assert.deepEqual(await cardMembers(cardId), []);
      assert.equal(await version(cardId), 0);
      const scoped = await toggle(cardId, { members: [teammates[0]] }, t.tenant.apiKey, `?companyId=${t.tenant.companyId}&teamId=${t.tenant.teamId}`);
      assert.equal(scoped.statusCode, 200);
      assert.equal(await version(cardId), 1);
    });

    it('needs an API key', async () => {
      const cardId = await newCard();
      const res = await t.app.inject({ method: 'POST', url: `/v2/cards/${cardId}/members`, payload: { members: [teammates[0]] } });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
    });
  });
}
