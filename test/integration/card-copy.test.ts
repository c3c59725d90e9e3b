import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { bootstrap } from '../../src/domain/account/bootstrap.ts';
import { authenticate } from '../../src/domain/account/service.ts';
import { copyCard, copyCards, copyCardsMultiTeam } from '../../src/domain/cards/copy.ts';
import { createCard, loadCard } from '../../src/domain/cards/service.ts';
import { deleteChecklist } from '../../src/domain/checklists/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import type { DomainError } from '../../src/domain/shared/errors.ts';
import { newId } from '../../src/domain/shared/ids.ts';
import { Card } from '../../src/schemas/records.ts';
import { addCardMember, addChecklist, addCheer, addConversation, addFileAttachment, addLinkAttachment, markSeen } from '../support/card-parts.ts';
import { type CopyMoveWorld, copyMoveWorld } from '../support/copy-move-world.ts';
import { addMember, seedBoard } from '../support/fixtures.ts';
import { buildTestApp, ENGINE_STORES, type TestApp } from '../support/harness.ts';
import { storedObjects } from '../support/s3.ts';
import { assertSchema } from '../support/schema.ts';

const ID = /^[0-9a-f]{24}$/;

for (const [engine, store] of ENGINE_STORES) {
  describe(`Copy Card, Copy Cards, Copy Cards Multi Team (services) [${engine}, ${store}]`, () => {
    let t: TestApp;
    let owner: Caller;
    let w: CopyMoveWorld;

    before(async () => {
      t = await buildTestApp(engine, { store });
      w = await copyMoveWorld(t);
      owner = await authenticate(t.services, t.tenant.apiKey);
    });
    after(() => t.dispose());

    const listA0 = () => w.boardA.listIds[0] as string;
    const listA1 = () => w.boardA.listIds[1] as string;

    /** A card with every part a card can have, in list A0. */
    async function fullCard(name = 'Source') {
      const card = await createCard(
        t.services,
        owner,
        {},
        { list: listA0(), name, description: 'the description', startDate: '2026-03-01T00:00:00.000Z', dueDate: '2026-03-09T00:00:00.000Z' },
      );
      const row = { id: card._id, company_id: card.company, team_id: card.team };
      await t.services.db
        .insertInto('card_labels')
        .values(w.boardA.labelIds.map((label_id) => ({ card_id: card._id, label_id, created_at: new Date().toISOString() })))
        .execute();
      await addCardMember(t.services, card._id, w.alice);
      await addCardMember(t.services, card._id, w.bob);
      const todo = await addChecklist(t.services, row, t.tenant.userId, 'Todo', [
        { name: 'first', done: true, date: '2026-03-02T00:00:00.000Z', members: [w.alice, w.bob] },
        { name: 'second', members: [w.bob] },
      ]);
      const later = await addChecklist(t.services, row, t.tenant.userId, 'Later', [{ name: 'third' }]);
      const file = await addFileAttachment(t.services, row, w.alice, 'notes', 'the bytes of the notes');
      const link = await addLinkAttachment(t.services, row, w.bob, 'site', 'https://example.com/');
      await addLinkAttachment(t.services, row, w.bob, 'gone', 'https://example.com/gone', true);
      const itemFile = await addFileAttachment(t.services, row, w.alice, 'item file', 'bytes on an item', todo.itemIds[0] as string);
      const talk = await addConversation(t.services, row, w.alice, w.bob);
      await addCheer(t.services, row, w.bob, t.tenant.userId, { type: 'card', id: card._id });
      await markSeen(t.services, card._id, w.bob);
      return { card: await loadCard(t.services, card._id), todo, later, file, link, itemFile, talk };
    }

    const count = async (table: 'cards' | 'attachments' | 'checklists' | 'checklist_items' | 'comments' | 'cheers') =>
      Number(
        (
          await t.services.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const itemsOf = (cardId: string) =>
      t.services.db
        .selectFrom('checklist_items as i')
        .innerJoin('checklists as k', 'k.id', 'i.checklist_id')
        .select([
          'i.id',
          'i.name',
          'i.date',
          'i.complete_status',
          'i.complete_set_at',
          'k.name as checklist',
          'i.company_id',
          'i.team_id',
          'i.creator_id',
          'i.version',
        ])
        .where('i.card_id', '=', cardId)
        .orderBy('k.position')
        .orderBy('i.position')
        .execute();
    const itemMembers = async (itemId: string) =>
      (await t.services.db.selectFrom('checklist_item_members').select('user_id').where('item_id', '=', itemId).execute()).map((m) => m.user_id).sort();
    const bytesOf = async (key: string) => text(await t.services.files.open(key));
    const storageKey = async (attachmentId: string) =>
      (await t.services.db.selectFrom('attachments').select('storage_key').where('id', '=', attachmentId).executeTakeFirstOrThrow()).storage_key as string;

    it('copies the card with new ids, __v 0, the caller as creator, and every part but comments, cheers and seen', async () => {
      const source = await fullCard();
      const { card, dropped } = await copyCard(t.services, owner, source.card._id, {}, { list: listA1() });
      assertSchema(Card, card);
      assert.match(card._id, ID);
      assert.notEqual(card._id, source.card._id);
      assert.equal(card.__v, 0);
      assert.equal(card.creator, t.tenant.userId);
      assert.equal(card.list, listA1());
      assert.equal(card.board, w.boardA.boardId);
      assert.equal(card.name, 'Source');
      assert.equal(card.description, 'the description');
      assert.equal(card.startDate, source.card.startDate);
      assert.equal(card.dueDate, source.card.dueDate);
      assert.deepEqual(
        card.labels.map((l) => l._id),
        source.card.labels.map((l) => l._id),
      );
      assert.deepEqual(card.members.map((m) => m._id).sort(), [w.alice, w.bob].sort());
      assert.deepEqual(card.members, source.card.members, 'in the same order');
      assert.deepEqual(card.comments, []);
      assert.deepEqual(card.cheers, []);
      assert.deepEqual(card.seen, []);
      assert.deepEqual(dropped, { cardId: card._id, labels: [], members: [], checklistItemMembers: [], customFields: [] });

      // checklists: new ids, same names and order; items keep name, order, date, completion and members
      assert.equal(card.checklists.length, 2);
      assert.ok(card.checklists.every((id) => !source.card.checklists.includes(id)));
      assert.deepEqual(card.allChecklistItemsCount, { completed: 1, total: 3 });
      assert.deepEqual(card.allChecklistItemsCount, source.card.allChecklistItemsCount);
      const sourceItems = await itemsOf(source.card._id);
      const copiedItems = await itemsOf(card._id);
      const shape = (i: (typeof sourceItems)[number]) => [i.checklist, i.name, i.date, i.complete_status, i.complete_set_at];
      assert.deepEqual(copiedItems.map(shape), sourceItems.map(shape));
      assert.ok(copiedItems.every((i) => !sourceItems.some((s) => s.id === i.id) && i.version === 0 && i.creator_id === t.tenant.userId));
      assert.deepEqual(await itemMembers(copiedItems[0]?.id as string), [w.alice, w.bob].sort());
      assert.deepEqual(await itemMembers(copiedItems[1]?.id as string), [w.bob]);

      // attachments: the live ones, as new records; files with bytes of their own
      assert.deepEqual(card.attachments.map((a) => a.name).sort(), ['notes', 'site']);
      assert.deepEqual(
        card.attachments.map((a) => a.name),
        source.card.attachments.map((a) => a.name),
        'in the same order',
      );
      assert.ok(card.attachments.every((a) => !source.card.attachments.some((s) => s._id === a._id)));
      const file = card.attachments.find((a) => a.name === 'notes') as Card['attachments'][number];
      const link = card.attachments.find((a) => a.name === 'site') as Card['attachments'][number];
      assert.equal(file.card, card._id);
      assert.equal(file.creator._id, t.tenant.userId);
      assert.equal(file.__v, 0);
      assert.equal(file.url, `/api/v1/cards/${card._id}/attachments/${file._id}/file`);
      assert.equal(file.size, 'the bytes of the notes'.length);
      assert.equal(link.url, 'https://example.com/');
      const fileKey = await storageKey(file._id);
      assert.notEqual(fileKey, source.file.storageKey);
      assert.equal(await bytesOf(fileKey), 'the bytes of the notes');
      // the item's file came along with the item
      const itemFile = await t.services.db
        .selectFrom('attachments')
        .selectAll()
        .where('card_id', '=', card._id)
        .where('checklist_item_id', 'is not', null)
        .execute();
      assert.equal(itemFile.length, 1);
      assert.equal(itemFile[0]?.checklist_item_id, copiedItems[0]?.id);
      assert.notEqual(itemFile[0]?.storage_key, source.itemFile.storageKey);
      assert.equal(await bytesOf(itemFile[0]?.storage_key as string), 'bytes on an item');

      // the source did not change
      assert.deepEqual(await loadCard(t.services, source.card._id), source.card);
    });

    it('deleting either file leaves the other readable', async () => {
      const source = await fullCard();
      const { card } = await copyCard(t.services, owner, source.card._id, {}, { list: listA0() });
      const copyKey = await storageKey(card.attachments.find((a) => a.name === 'notes')?._id as string);
      await t.services.files.remove(source.file.storageKey);
      assert.equal(await bytesOf(copyKey), 'the bytes of the notes');
      const again = await fullCard();
      const { card: second } = await copyCard(t.services, owner, again.card._id, {}, { list: listA0() });
      await t.services.files.remove(await storageKey(second.attachments.find((a) => a.name === 'notes')?._id as string));
      assert.equal(await bytesOf(again.file.storageKey), 'the bytes of the notes');
    });

    it('keeps only what `keep` asks for; a missing flag means true', async () => {
      const source = await fullCard();
      const none = await copyCard(
        t.services,
        owner,
        source.card._id,
        {},
        {
          list: listA0(),
          keep: { labels: false, members: false, checklists: false, attachments: false },
        },
      );
      assert.deepEqual([none.card.labels, none.card.members, none.card.checklists, none.card.attachments], [[], [], [], []]);
      assert.deepEqual(none.card.allChecklistItemsCount, { completed: 0, total: 0 });
      assert.equal((await t.services.db.selectFrom('attachments').select('id').where('card_id', '=', none.card._id).execute()).length, 0);
      const onlyLabels = await copyCard(
        t.services,
        owner,
        source.card._id,
        {},
        { list: listA0(), keep: { members: false, checklists: false, attachments: false } },
      );
      assert.equal(onlyLabels.card.labels.length, 2);
      assert.deepEqual([onlyLabels.card.members, onlyLabels.card.checklists, onlyLabels.card.attachments], [[], [], []]);
      // attachments without checklists: the card's own, not the items' (they have no item to sit on)
      const noChecklists = await copyCard(t.services, owner, source.card._id, {}, { list: listA0(), keep: { checklists: false } });
      const rows = await t.services.db.selectFrom('attachments').select(['checklist_item_id']).where('card_id', '=', noChecklists.card._id).execute();
      assert.deepEqual(
        rows.map((r) => r.checklist_item_id),
        [null, null],
      );
      assert.equal(noChecklists.card.members.length, 2);
    });

    it('names the copy, places it at the requested position, and copies completion', async () => {
      const top = await createCard(t.services, owner, {}, { list: listA1(), name: 'Top' });
      const source = await fullCard('Named');
      await t.services.db
        .updateTable('cards')
        .set({ complete_status: 1, complete_type: 'done', is_public: 1, workload_value: 3, cover: '#ff0000', notified_due_one_day: 1, archived: 1 })
        .where('id', '=', source.card._id)
        .execute();
      const { card } = await copyCard(t.services, owner, source.card._id, {}, { list: listA1(), name: '  Renamed  ', position: 0 });
      assert.equal(card.name, 'Renamed');
      assert.ok(card.position < top.position);
      assert.deepEqual(card.complete.status, true);
      assert.equal(card.complete.type, 'done');
      assert.equal(card.isPublic, true);
      assert.deepEqual(card.workload, { value: 3, measurement: 'hours' });
      assert.equal(card.cover, '#ff0000');
      assert.equal(card.archived.status, false, 'a copy of an archived card is not archived');
      assert.deepEqual(card.isNotified, { startOneHour: false, startOneDay: false, dueOneHour: false, dueOneDay: false });
      assert.equal(card.complete.setAt, card.createdAt);
    });

    it("a cover showing one of the card's files shows the copy's file on the copy", async () => {
      const source = await fullCard('Covered');
      const fileUrl = source.card.attachments.find((a) => a.name === 'notes')?.url as string;
      await t.services.db.updateTable('cards').set({ cover: fileUrl }).where('id', '=', source.card._id).execute();
      const { card } = await copyCard(t.services, owner, source.card._id, {}, { list: listA0() });
      assert.equal(card.cover, card.attachments.find((a) => a.name === 'notes')?.url);
      assert.notEqual(card.cover, fileUrl);
    });

    it('onto another board of the team: drops the labels and says so', async () => {
      const source = await fullCard();
      const { card, dropped } = await copyCard(t.services, owner, source.card._id, {}, { list: w.boardB.listIds[0] as string });
      assert.equal(card.board, w.boardB.boardId);
      assert.deepEqual(card.labels, []);
      assert.equal(card.members.length, 2);
      assert.deepEqual(dropped, { cardId: card._id, labels: [...w.boardA.labelIds].sort(), members: [], checklistItemMembers: [], customFields: [] });
      const notAsked = await copyCard(t.services, owner, source.card._id, {}, { list: w.boardB.listIds[0] as string, keep: { labels: false } });
      assert.deepEqual(notAsked.dropped.labels, [], 'labels not asked for are not reported as dropped');
    });

    it('onto another team: drops members (of the card and its items) who are not in it, and says so', async () => {
      const source = await fullCard();
      const { card, dropped } = await copyCard(t.services, owner, source.card._id, {}, { list: w.boardOps.listIds[0] as string });
      assert.equal(card.team, w.opsTeam);
      assert.deepEqual(
        card.members.map((m) => m._id),
        [w.alice],
      );
      assert.deepEqual(card.labels, []);
      const copied = await itemsOf(card._id);
      assert.ok(copied.every((i) => i.team_id === w.opsTeam));
      assert.deepEqual(await itemMembers(copied[0]?.id as string), [w.alice]);
      assert.deepEqual(await itemMembers(copied[1]?.id as string), []);
      assert.deepEqual(dropped, {
        cardId: card._id,
        labels: [...w.boardA.labelIds].sort(),
        members: [w.bob],
        checklistItemMembers: [
          { checklistItem: copied[0]?.id, members: [w.bob] },
          { checklistItem: copied[1]?.id, members: [w.bob] },
        ],
        customFields: [],
      });
      const attachments = await t.services.db.selectFrom('attachments').select(['company_id', 'team_id']).where('card_id', '=', card._id).execute();
      assert.ok(attachments.length === 3 && attachments.every((a) => a.team_id === w.opsTeam));
    });

    it('is a 404 for a card or list out of reach, and writes nothing', async () => {
      const source = await fullCard();
      const other = await bootstrap(t.services, { company: 'Other', team: 'T', email: 'x@other.test', fullName: 'X' });
      const stranger = await authenticate(t.services, other.apiKey);
      const foreignList = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
      const bobCaller = await authenticate(
        t.services,
        (await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [], email: 'carol@acme.test' })).apiKey,
      );
      const before = { cards: await count('cards'), attachments: await count('attachments'), files: await storedObjects(t.services.files) };
      const attempts: [string, () => Promise<unknown>, string | undefined][] = [
        ['stranger', () => copyCard(t.services, stranger, source.card._id, {}, { list: foreignList }), undefined],
        ['member of no team', () => copyCard(t.services, bobCaller, source.card._id, {}, { list: listA0() }), undefined],
        ['foreign list', () => copyCard(t.services, owner, source.card._id, {}, { list: foreignList }), 'body.list'],
        ['unknown list', () => copyCard(t.services, owner, source.card._id, {}, { list: newId() }), 'body.list'],
        ['unknown card', () => copyCard(t.services, owner, newId(), {}, { list: listA0() }), undefined],
        ['scope of another team', () => copyCard(t.services, owner, source.card._id, { teamId: w.opsTeam }, { list: listA0() }), undefined],
        ['scope of another company', () => copyCard(t.services, owner, source.card._id, { companyId: other.companyId }, { list: listA0() }), undefined],
      ];
      for (const [what, attempt, field] of attempts) {
        await assert.rejects(attempt, (error: DomainError) => {
          assert.equal(error.status, 404, what);
          if (field) assert.equal(error.details?.[0]?.field, field, what);
          return true;
        });
      }
      assert.deepEqual({ cards: await count('cards'), attachments: await count('attachments'), files: await storedObjects(t.services.files) }, before);
    });

    it('a transaction that fails after the bytes were copied leaves no file behind', async () => {
      const source = await fullCard();
      const filesBefore = await storedObjects(t.services.files);
      const cardsBefore = await count('cards');
      await failAttachmentInserts(t, async () => {
        await assert.rejects(copyCard(t.services, owner, source.card._id, {}, { list: listA0() }), /injected failure/);
        await assert.rejects(
          copyCardsMultiTeam(t.services, owner, {
            cards: [{ cardId: source.card._id, companyId: t.tenant.companyId, teamId: t.tenant.teamId }],
            target: { companyId: t.tenant.companyId, teamId: w.opsTeam, list: w.boardOps.listIds[0] as string },
          }),
          /injected failure/,
        );
      });
      assert.deepEqual(await storedObjects(t.services.files), filesBefore);
      assert.equal(await count('cards'), cardsBefore);
    });

    it('a file missing from storage is a 409, and nothing is written', async () => {
      const source = await fullCard();
      await t.services.files.remove(source.itemFile.storageKey);
      const filesBefore = await storedObjects(t.services.files);
      const cardsBefore = await count('cards');
      await assert.rejects(copyCard(t.services, owner, source.card._id, {}, { list: listA0() }), (error: DomainError) => error.status === 409);
      assert.deepEqual(await storedObjects(t.services.files), filesBefore);
      assert.equal(await count('cards'), cardsBefore);
      // without the items' files it can be copied
      const { card } = await copyCard(t.services, owner, source.card._id, {}, { list: listA0(), keep: { checklists: false } });
      assert.equal(card.attachments.length, 2);
    });

    it('parallel copies onto one list each get their own place at the bottom', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const source = await createCard(t.services, owner, {}, { list: listA0(), name: 'Many' });
      const answers = await Promise.all(Array.from({ length: 8 }, () => copyCard(t.services, owner, source._id, {}, { list })));
      const positions = answers.map((a) => a.card.position);
      assert.equal(new Set(positions).size, 8);
      const bulk = await Promise.all(
        Array.from({ length: 4 }, () => copyCards(t.services, owner, {}, { cardIds: [source._id, answers[0]?.card._id as string], list })),
      );
      const all = [...positions, ...bulk.flatMap((b) => b.cards.map((c) => c.position))];
      assert.equal(new Set(all).size, 16, 'no two cards share a position');
    });

    it('a copy made while checklists of its source are deleted sees the source before or after each delete, whole', async () => {
      const source = await createCard(t.services, owner, {}, { list: listA0(), name: 'Shrinking' });
      const row = { id: source._id, company_id: source.company, team_id: source.team };
      const checklists: { checklistId: string }[] = [];
      for (let i = 0; i < 6; i++) checklists.push(await addChecklist(t.services, row, t.tenant.userId, `C${i}`, [{ name: 'x' }, { name: 'y', done: true }]));
      for (const [i, { checklistId }] of checklists.entries()) {
        const [copy] = await Promise.all([
          copyCard(t.services, owner, source._id, {}, { list: listA1() }),
          deleteChecklist(t.services, owner, checklistId, {}),
        ]);
        const left = checklists.length - i;
        assert.ok([left, left - 1].includes(copy.card.checklists.length), `round ${i}: ${copy.card.checklists.length} checklists`);
        assert.deepEqual(copy.card.allChecklistItemsCount, { completed: copy.card.checklists.length, total: 2 * copy.card.checklists.length });
      }
    });

    it('Copy Cards copies in request order to the bottom, keeping every part; all or nothing', async () => {
      const list = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
      const existing = await createCard(t.services, owner, {}, { list, name: 'Already there' });
      const a = await fullCard('A');
      const b = await createCard(t.services, owner, {}, { list: listA1(), name: 'B' });
      const { cards, dropped } = await copyCards(t.services, owner, { teamId: t.tenant.teamId }, { cardIds: [b._id, a.card._id], list });
      assert.deepEqual(
        cards.map((c) => c.name),
        ['B', 'A'],
      );
      assert.ok(existing.position < (cards[0]?.position as number) && (cards[0]?.position as number) < (cards[1]?.position as number));
      assert.ok(cards.every((c) => c.__v === 0 && c.list === list));
      // another board of the team: A's labels stay behind
      assert.deepEqual(dropped, [{ cardId: cards[1]?._id, labels: [...w.boardA.labelIds].sort(), members: [], checklistItemMembers: [], customFields: [] }]);
      assert.equal(cards[1]?.members.length, 2);
      assert.equal(cards[1]?.attachments.length, 2);
      assert.deepEqual(cards[1]?.allChecklistItemsCount, { completed: 1, total: 3 });

      const opsCard = await createCard(t.services, owner, {}, { list: w.boardOps.listIds[0] as string, name: 'Ops card' });
      const before = await count('cards');
      await assert.rejects(copyCards(t.services, owner, {}, { cardIds: [b._id, opsCard._id, newId()], list }), (error: DomainError) => {
        assert.equal(error.status, 400);
        assert.deepEqual(
          error.details?.map((d) => [d.index, d.field, d.code]),
          [
            [1, 'body.cardIds[1]', 'validation_failed'],
            [2, 'body.cardIds[2]', 'not_found'],
          ],
        );
        return true;
      });
      assert.equal(await count('cards'), before);
    });
  });
}

/** Makes every insert into `attachments` fail while `work` runs: a real database error, mid-transaction. */
async function failAttachmentInserts(t: TestApp, work: () => Promise<void>): Promise<void> {
  const db = t.services.db;
  if (t.engine === 'sqlite') {
    await sql`create trigger fail_attachment_insert before insert on attachments begin select raise(abort, 'injected failure'); end`.execute(db);
  } else {
    await sql`create function fail_attachment_insert() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(db);
    await sql`create trigger fail_attachment_insert before insert on attachments for each row execute function fail_attachment_insert()`.execute(db);
  }
  try {
    await work();
  } finally {
    await sql`drop trigger fail_attachment_insert${sql.raw(t.engine === 'sqlite' ? '' : ' on attachments')}`.execute(db);
    if (t.engine === 'postgres') await sql`drop function fail_attachment_insert()`.execute(db);
  }
}
