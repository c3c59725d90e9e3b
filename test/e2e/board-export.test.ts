/**
 * GET /api/v1/boards/:boardId/export: the whole board as the documented document, in batches larger
 * than one, or one CSV row per card; out of reach it is a 404 like every read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromBuffer } from 'yauzl';
import { EXPORT_BATCH_CARDS } from '../../src/domain/boards/export.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { BoardExport } from '../../src/schemas/board-export.ts';
import { addCardMember, addChecklist, addConversation, addFileAttachment, addLinkAttachment } from '../support/card-parts.ts';
import { type CardTeam, cardTeam } from '../support/card-team.ts';
import { type BoardFixture, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { assertSchema } from '../support/schema.ts';

/** Every entry of a zip and its bytes, in the zip's order. */
function unzip(buffer: Buffer): Promise<[string, Buffer][]> {
  return new Promise((resolve, reject) => {
    fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries: [string, Buffer][] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry) => {
        zip.openReadStream(entry, async (failed, stream) => {
          if (failed) return reject(failed);
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          entries.push([entry.fileName, Buffer.concat(chunks)]);
          zip.readEntry();
        });
      });
      zip.readEntry();
    });
  });
}

for (const engine of ENGINES) {
  describe(`board export [${engine}]`, () => {
    let t: TestApp;
    let team: CardTeam;
    let board: BoardFixture;
    let rich: string;
    let formula: string;
    let deleted: string;
    const bulk = EXPORT_BATCH_CARDS + 7;
    before(async () => {
      t = await buildTestApp(engine);
      team = await cardTeam(t);
      board = await seedBoard(t.services, t.tenant, { lists: 2, labels: 2 });
      const [first, second] = board.listIds as [string, string];
      const create = async (list: string, name: string) => {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: bearer(t.tenant.apiKey), payload: { list, name } });
        assert.equal(res.statusCode, 201, res.body);
        return res.json().card._id as string;
      };
      rich = await create(first, 'Ünïcode café 🚀');
      formula = await create(first, '=HYPERLINK("http://evil.test")');
      deleted = await create(first, 'Gone');
      const owner = (await t.services.db.selectFrom('cards').select(['id', 'company_id', 'team_id']).where('id', '=', rich).executeTakeFirstOrThrow()) as {
        id: string;
        company_id: string;
        team_id: string;
      };
      await addCardMember(t.services, rich, team.alice.userId);
      await t.services.db
        .insertInto('card_labels')
        .values({ card_id: rich, label_id: board.labelIds[1] as string, created_at: nowIso() })
        .execute();
      await addChecklist(t.services, owner, t.tenant.userId, 'Launch', [{ name: 'Book room', done: true, members: [team.bob.userId] }, { name: 'Invite' }]);
      await addConversation(t.services, owner, team.alice.userId, team.bob.userId);
      await addFileAttachment(t.services, owner, t.tenant.userId, 'notes', 'hello');
      await addLinkAttachment(t.services, owner, t.tenant.userId, 'Spec', 'https://example.test/spec');
      await addLinkAttachment(t.services, owner, t.tenant.userId, 'Old', 'https://example.test/old', true);
      await t.services.db.updateTable('cards').set({ deleted_at: nowIso() }).where('id', '=', deleted).execute();
      // more cards in the second list than one batch holds
      const at = nowIso();
      const rows = Array.from({ length: bulk }, (_, i) => ({
        id: newId(),
        company_id: owner.company_id,
        team_id: owner.team_id,
        board_id: board.boardId,
        list_id: second,
        name: `Bulk ${i}`,
        creator_id: t.tenant.userId,
        position: (i + 1) * 1024,
        start_date: null,
        due_date: null,
        created_at: at,
        updated_at: at,
      }));
      for (let i = 0; i < rows.length; i += 100)
        await t.services.db
          .insertInto('cards')
          .values(rows.slice(i, i + 100))
          .execute();
    });
    after(() => t.dispose());

    const exportOf = (query = '', key = t.tenant.apiKey) =>
      t.app.inject({ method: 'GET', url: `/api/v1/boards/${board.boardId}/export${query}`, headers: bearer(key) });

    it('writes the whole board as the documented, versioned document', async () => {
      const res = await exportOf();
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename\*=UTF-8''Board\.json/);
      const doc: BoardExport = assertSchema(BoardExport, res.json() as BoardExport);
      assert.equal(doc.formatVersion, 1);
      assert.equal(doc.board._id, board.boardId);
      assert.deepEqual(
        doc.lists.map((list) => list._id),
        board.listIds,
      );
      assert.deepEqual(doc.labels.map((label) => label._id).sort(), [...board.labelIds].sort());

      // every live card of the board once, list by list in position order (counted from the source)
      const source = await t.services.db
        .selectFrom('cards as c')
        .innerJoin('lists as l', 'l.id', 'c.list_id')
        .select('c.id')
        .where('c.board_id', '=', board.boardId)
        .where('c.deleted_at', 'is', null)
        .orderBy('l.position')
        .orderBy('c.position')
        .orderBy('c.id')
        .execute();
      assert.deepEqual(
        doc.cards.map((card) => card._id),
        source.map((row) => row.id),
      );
      assert.equal(doc.cards.length, bulk + 2);
      assert.ok(!doc.cards.some((card) => card._id === deleted), 'a deleted card is left out');

      const card = doc.cards.find((c) => c._id === rich);
      assert.ok(card);
      assert.equal(card.name, 'Ünïcode café 🚀');
      assert.equal(card.list, board.listIds[0]);
      assert.deepEqual(card.members, [team.alice.userId]);
      assert.deepEqual(card.labels, [board.labelIds[1]]);
      assert.deepEqual(
        card.checklists.map((checklist) => [checklist.name, checklist.items.map((item) => [item.name, item.complete, item.members])]),
        [
          [
            'Launch',
            [
              ['Book room', true, [team.bob.userId]],
              ['Invite', false, []],
            ],
          ],
        ],
      );
      assert.deepEqual(
        card.comments.map((comment) => [comment.author, comment.content, comment.discussions.map((reply) => [reply.author, reply.content])]),
        [[team.alice.userId, 'a comment', [[team.alice.userId, 'a reply']]]],
      );
      assert.deepEqual(
        card.cheers.map((cheer) => [cheer.giver, cheer.receiver, cheer.on.type]).sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
        [
          [team.bob.userId, team.alice.userId, 'comment'],
          [team.bob.userId, team.alice.userId, 'discussion'],
        ],
      );
      assert.deepEqual(
        // two attachments made within one millisecond keep no order between them (created_at, then a random id)
        card.attachments.map((a) => [a.type, a.name, a.url, a.file, a.size]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
        [
          ['file', 'notes', null, `files/${card.attachments.find((a) => a.type === 'file')?._id}/notes.txt`, 5],
          ['link', 'Spec', 'https://example.test/spec', null, 0],
        ],
      );

      // everyone the document names is in `people`, with their names
      const people = new Map(doc.people.map((person) => [person._id, person.fullName]));
      assert.equal(people.get(team.alice.userId), 'Alice Author');
      assert.equal(people.get(team.bob.userId), 'Bob Builder');
      const named = doc.cards.flatMap((c) => [
        c.creator,
        ...c.members,
        ...c.comments.flatMap((comment) => [comment.author, ...comment.discussions.map((reply) => reply.author)]),
        ...c.cheers.flatMap((cheer) => [cheer.giver, cheer.receiver]),
        ...c.attachments.map((a) => a.creator),
        ...c.checklists.flatMap((checklist) => checklist.items.flatMap((item) => item.members)),
      ]);
      assert.deepEqual(
        named.filter((id) => !people.has(id)),
        [],
      );
    });

    it('writes one CSV row per card, formulas kept as text', async () => {
      const res = await exportOf('?format=csv');
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      const text = res.body;
      assert.ok(text.startsWith('\uFEFFcard,name,list,labels,members,'), text.slice(0, 80));
      const lines = text.trimEnd().split('\n');
      assert.equal(lines.length, 1 + bulk + 2);
      const richLine = lines.find((line) => line.startsWith(rich));
      assert.ok(richLine);
      assert.match(richLine, new RegExp(`^${rich},Ünïcode café 🚀,List 0,Label 1,Alice Author,,,no,no,2,1,1,2,,`));
      const formulaLine = lines.find((line) => line.startsWith(formula));
      assert.ok(formulaLine);
      assert.match(formulaLine, /^[0-9a-f]{24},"'=HYPERLINK\(""http:\/\/evil\.test""\)",List 0,/);
    });

    it('zips the document with the attached files at the paths it names', async () => {
      const res = await exportOf('?files=true');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/zip');
      const entries = await unzip(res.rawPayload);
      const [documentEntry] = entries;
      assert.ok(documentEntry);
      assert.equal(documentEntry[0], 'board.json');
      const doc: BoardExport = assertSchema(BoardExport, JSON.parse(documentEntry[1].toString('utf8')) as BoardExport);
      assert.equal(doc.cards.length, bulk + 2);
      const named = doc.cards.flatMap((card) => card.attachments.flatMap((a) => (a.file ? [a.file] : [])));
      assert.deepEqual(
        entries.slice(1).map(([name]) => name),
        named,
      );
      assert.equal(named.length, 1);
      assert.equal(entries[1]?.[1].toString('utf8'), 'hello');
      assert.equal((await exportOf('?files=true&format=csv')).statusCode, 400);
    });

    it('is a 404 outside the caller reach, and a 400 for an unknown format', async () => {
      for (const key of [team.outsider.apiKey, team.other.apiKey]) {
        const res = await exportOf('', key);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'not_found');
      }
      assert.equal((await exportOf(`?teamId=${newId()}`)).statusCode, 404);
      const unknown = await t.app.inject({ method: 'GET', url: `/api/v1/boards/${newId()}/export`, headers: bearer(t.tenant.apiKey) });
      assert.equal(unknown.statusCode, 404);
      const bad = await exportOf('?format=xml');
      assert.equal(bad.statusCode, 400, bad.body);
    });
  });
}
