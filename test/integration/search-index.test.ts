import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { expectedEntries, indexedEntries, wordIndexCheck } from '../../src/storage/repositories/search.ts';
import { runTaskboard } from '../support/cli.ts';
import { addTeam, cardRow, multipart } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

/** A small deterministic generator (mulberry32), so a failing sequence can be run again. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T };
}

const WORDS = ['login', 'Café', 'release', 'notes', '東京都', 'naïve', 'flaky', 'test', 'Ärger', 'deploy', 'öffnen', '会議'];

for (const engine of ENGINES) {
  describe(`search index stays true to the records [${engine}]`, () => {
    let t: TestApp;
    let api: Api;
    let secondTeam: string;

    before(async () => {
      t = await buildTestApp(engine);
      api = apiClient(t, t.tenant.apiKey);
      secondTeam = await addTeam(t.services, t.tenant.companyId, 'Second', [t.tenant.userId]);
    });
    after(() => t.dispose());

    async function ok(method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
      const res = await api(method, url, body);
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as Record<string, { _id: string }>;
    }

    async function assertIndexTrue() {
      assert.deepEqual(await indexedEntries(t.services.db), await expectedEntries(t.services.db));
      const words = await wordIndexCheck(t.services.db);
      assert.deepEqual(words.found, words.expected);
    }

    it('after a random sequence of writes, the index is what the records say; a rolled-back write is never indexed', async () => {
      const r = random(engine === 'sqlite' ? 17 : 23);
      const text = () => Array.from({ length: 1 + Math.floor(r.next() * 4) }, () => r.pick(WORDS)).join(' ');
      const boardIn = async (teamId: string) => {
        const board = (await ok('POST', `/api/v1/boards?teamId=${teamId}`, { name: text() })).board!._id;
        const list = (await ok('POST', '/api/v1/lists', { board, name: text() })).list!._id;
        return { board, list, teamId };
      };
      const places = [await boardIn(t.tenant.teamId), await boardIn(secondTeam)];
      const cards: { id: string; teamId: string }[] = [];
      let comments: { card: string; id: string }[] = [];
      let items: { card: string; id: string }[] = [];
      let attachments: { card: string; id: string }[] = [];
      const checklists = new Map<string, string>();
      const someCard = () => r.pick(cards);
      for (let step = 0; step < 100; step++) {
        // a search now and then catches SQLite's word index up between writes, as a server's would
        if (r.next() < 0.15) {
          const res = await api('GET', `/api/v1/search?q=${encodeURIComponent(r.pick(WORDS))}`);
          assert.equal(res.statusCode, 200, res.body);
        }
        if (step === 50) await assertIndexTrue();
        const roll = r.next();
        if (cards.length < 3 || roll < 0.2) {
          const place = r.pick(places);
          const id = (await ok('POST', '/api/v1/cards', { list: place.list, name: text(), description: text() })).card!._id;
          cards.push({ id, teamId: place.teamId });
        } else if (roll < 0.35) {
          const card = someCard();
          await ok('PATCH', `/api/v1/cards/${card.id}`, r.next() < 0.5 ? { name: text() } : { description: text() });
        } else if (roll < 0.45) {
          const card = someCard().id;
          comments.push({ card, id: (await ok('POST', `/api/v1/cards/${card}/comments`, { content: text() })).comment!._id });
        } else if (roll < 0.5 && comments.length > 0) {
          const comment = r.pick(comments).id;
          await ok('PATCH', `/api/v1/comments/${comment}`, { content: text() });
          if (r.next() < 0.5) await ok('POST', `/api/v1/comments/${comment}/discussions`, { content: text() });
        } else if (roll < 0.6) {
          const card = someCard();
          let checklist = checklists.get(card.id);
          if (!checklist) {
            checklist = (await ok('POST', `/api/v1/cards/${card.id}/checklists`, { name: 'Todo' })).checklist!._id;
            checklists.set(card.id, checklist);
          }
          items.push({ card: card.id, id: (await ok('POST', `/api/v1/checklists/${checklist}/items`, { name: text() })).checklistItem!._id });
        } else if (roll < 0.65 && items.length > 0) {
          const item = items.splice(Math.floor(r.next() * items.length), 1)[0] as { card: string; id: string };
          if (r.next() < 0.5) {
            await ok('PATCH', `/api/v1/checklist-items/${item.id}`, { name: text() });
            items.push(item);
          } else await ok('DELETE', `/api/v1/checklist-items/${item.id}`);
        } else if (roll < 0.7) {
          const card = someCard();
          const { payload, headers } = multipart({ name: text() }, { filename: 'f.txt', contentType: 'text/plain', content: Buffer.from('x') });
          const res = await t.app.inject({
            method: 'POST',
            url: `/api/v1/cards/${card.id}/attachments`,
            payload,
            headers: { ...headers, ...bearer(t.tenant.apiKey) },
          });
          assert.equal(res.statusCode, 201, res.body);
          attachments.push({ card: card.id, id: res.json().attachment._id });
        } else if (roll < 0.75 && attachments.length > 0) {
          const attachment = attachments.splice(Math.floor(r.next() * attachments.length), 1)[0] as { card: string; id: string };
          await ok('DELETE', `/api/v1/cards/${attachment.card}/attachments/${attachment.id}`);
        } else if (roll < 0.8) {
          const place = r.pick(places);
          if (r.next() < 0.5) await ok('PATCH', `/api/v1/lists/${place.list}`, { name: text() });
          else await ok('PATCH', `/api/v1/boards/${place.board}`, { name: text() });
        } else if (roll < 0.88) {
          // to another team: the card's comments, items and attachments go with it
          const card = someCard();
          const target = r.pick(places);
          await ok('PATCH', '/api/v1/cards/move-multi-team', {
            cards: [{ cardId: card.id, companyId: t.tenant.companyId, teamId: card.teamId }],
            target: { companyId: t.tenant.companyId, teamId: target.teamId, list: target.list },
          });
          card.teamId = target.teamId;
        } else if (roll < 0.93 && cards.length > 3) {
          const card = cards.splice(Math.floor(r.next() * cards.length), 1)[0] as { id: string };
          await ok('DELETE', `/api/v1/cards/${card.id}`);
          comments = comments.filter((c) => c.card !== card.id);
          items = items.filter((c) => c.card !== card.id);
          attachments = attachments.filter((c) => c.card !== card.id);
          checklists.delete(card.id);
        } else {
          await ok('PATCH', '/api/v1/cards/archived', { cardIds: [someCard().id], status: r.next() < 0.5 });
        }
      }
      await assertIndexTrue();
      const indexed = await indexedEntries(t.services.db);
      const kinds = new Set(indexed.map((e) => e.entity_type));
      for (const kind of ['board', 'card', 'checklistItem', 'comment', 'list']) assert.ok(kinds.has(kind), `${kind} among ${indexed.length} entries`);

      // a change that rolls back leaves no trace in the index
      const place = places[0]!;
      const row = cardRow({ _id: place.list, board: place.board, company: t.tenant.companyId, team: place.teamId }, t.tenant.userId, 'Phantom', 1);
      await assert.rejects(
        t.services.db.transaction().execute(async (trx) => {
          await trx.insertInto('cards').values(row).execute();
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal(
        (await indexedEntries(t.services.db)).some((e) => e.entity_id === row.id),
        false,
      );
      await assertIndexTrue();
    });

    it('taskboard reindex rebuilds a damaged index, in batches, and running it again changes nothing', async () => {
      const db = t.services.db;
      const before = await expectedEntries(db);
      assert.ok(before.length > 10);
      await sql`delete from search_entries where entity_id in (${sql.join(before.slice(0, 5).map((e) => e.entity_id))})`.execute(db);
      await sql`update search_entries set title = 'stale' where entity_id = ${before[6]!.entity_id}`.execute(db);
      const orphan = { ...before[7]!, entity_id: newId() };
      await sql`insert into search_entries (entity_type, entity_id, company_id, team_id, card_id, list_id, board_id, title, body, created_at, updated_at${sql.raw(
        engine === 'postgres' ? ', folded_title, folded' : '',
      )}) values (${orphan.entity_type}, ${orphan.entity_id}, ${orphan.company_id}, ${orphan.team_id}, ${orphan.card_id}, ${orphan.list_id}, ${orphan.board_id}, 'ghost', '', ${nowIso()}, ${nowIso()}${sql.raw(engine === 'postgres' ? `, '', ''` : '')})`.execute(
        db,
      );

      const first = await runTaskboard(['reindex', '--batch', '7', '--json'], { DATABASE_URL: t.url });
      assert.equal(first.code, 0, first.stderr);
      const report = JSON.parse(first.stdout);
      assert.equal(report.orphans, 1);
      await assertIndexTrue();
      assert.equal((await api('GET', '/api/v1/search?q=ghost')).json().hits.length, 0);

      const again = await runTaskboard(['reindex', '--json'], { DATABASE_URL: t.url });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).orphans, 0);
      await assertIndexTrue();
      const bad = await runTaskboard(['reindex', '--batch', 'many'], { DATABASE_URL: t.url });
      assert.equal(bad.code, 2);
    });
  });
}
