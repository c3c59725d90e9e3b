/**
 * Checklists through the services: the copy functions Copy Card builds on, the transactions under
 * concurrent requests, and position renumbering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { authenticate } from '../../src/domain/account/service.ts';
import * as attachmentService from '../../src/domain/attachments/service.ts';
import { createCard, loadCard } from '../../src/domain/cards/service.ts';
import { copyChecklistInto, copyChecklistsOfCard } from '../../src/domain/checklists/copy.ts';
import * as items from '../../src/domain/checklists/items.ts';
import * as checklists from '../../src/domain/checklists/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { NotFoundError } from '../../src/domain/shared/errors.ts';
import { nowIso } from '../../src/domain/shared/ids.ts';
import { POSITION_STEP } from '../../src/domain/shared/positions.ts';
import { moveCardChildren } from '../../src/storage/repositories/card-copies.ts';
import { recordCardChange, setCardColumns } from '../../src/storage/repositories/cards.ts';
import { findChecklist } from '../../src/storage/repositories/checklists.ts';
import { findListById } from '../../src/storage/repositories/lists.ts';
import { type ChecklistWorld, checklistWorld } from '../support/checklist-world.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

for (const engine of ENGINES) {
  describe(`checklists through the services [${engine}]`, () => {
    let t: TestApp;
    let caller: Caller;
    let w: ChecklistWorld;

    before(async () => {
      t = await buildTestApp(engine);
      caller = await authenticate(t.services, t.tenant.apiKey);
      w = await checklistWorld(t);
    });
    after(() => t.dispose());

    const newCard = async (list = w.listId) => (await createCard(t.services, caller, {}, { list, name: 'Card' }))._id;
    const cardRow = (id: string) =>
      t.services.db.selectFrom('cards').select(['id', 'company_id', 'team_id', 'version']).where('id', '=', id).executeTakeFirstOrThrow();

    /** A card with two checklists: [a (3 items: one done, dated, with members), b (empty)], and an attachment on an item. */
    async function richCard() {
      const cardId = await newCard();
      const a = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'A' });
      const b = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'B' });
      const one = await items.createItem(
        t.services,
        caller,
        a._id,
        {},
        { name: 'one', members: [w.mate.userId, w.both.userId], date: '2026-01-01T00:00:00.000Z' },
      );
      const two = await items.createItem(t.services, caller, a._id, {}, { name: 'two', members: [w.both.userId] });
      const zero = await items.createItem(t.services, caller, a._id, {}, { name: 'zero', position: 'top' });
      await items.toggleItemComplete(t.services, caller, two._id, {});
      await attachmentService.addItemLink(t.services, caller, one._id, {}, { url: 'https://example.com/a' });
      return { cardId, a, b, one, two, zero };
    }

    it("copyChecklistInto copies the checklist and its items with new ids, keeping only members of the target card's team", async () => {
      const { a } = await richCard();
      const target = await newCard(w.elsewhereListId);
      const row = await cardRow(target);
      assert.equal(row.team_id, w.elsewhereTeam);
      const at = nowIso();
      const source = await findChecklist(t.services.db, a._id);
      assert.ok(source);
      const copyId = await t.services.db.transaction().execute((trx) => copyChecklistInto(trx, source, row, 5 * POSITION_STEP, w.mate.userId, at));
      const copy = await t.services.db.selectFrom('checklists').selectAll().where('id', '=', copyId).executeTakeFirstOrThrow();
      assert.deepEqual(
        {
          card: copy.card_id,
          company: copy.company_id,
          team: copy.team_id,
          name: copy.name,
          position: copy.position,
          creator: copy.creator_id,
          at: copy.created_at,
        },
        { card: target, company: row.company_id, team: w.elsewhereTeam, name: 'A', position: 5 * POSITION_STEP, creator: w.mate.userId, at },
      );
      const copied = await t.services.db.selectFrom('checklist_items').selectAll().where('checklist_id', '=', copyId).orderBy('position').execute();
      assert.deepEqual(
        copied.map((i) => [i.name, i.complete_status, i.date]),
        [
          ['zero', 0, null],
          ['one', 0, '2026-01-01T00:00:00.000Z'],
          ['two', 1, null],
        ],
      );
      for (const item of copied) {
        assert.equal(item.card_id, target);
        assert.equal(item.team_id, w.elsewhereTeam);
        assert.equal(item.creator_id, w.mate.userId);
        assert.equal(item.version, 0);
      }
      const members = await t.services.db
        .selectFrom('checklist_item_members')
        .select(['item_id', 'user_id'])
        .where(
          'item_id',
          'in',
          copied.map((i) => i.id),
        )
        .execute();
      assert.deepEqual(
        members.map((m) => m.user_id),
        [w.both.userId, w.both.userId],
        'mate is not in Elsewhere',
      );
      const attachments = await t.services.db
        .selectFrom('attachments')
        .select('id')
        .where(
          'checklist_item_id',
          'in',
          copied.map((i) => i.id),
        )
        .execute();
      assert.deepEqual(attachments, [], 'attachments are not copied');
      const card = await loadCard(t.services, target);
      assert.deepEqual(card.checklists, [copyId]);
      assert.deepEqual(card.allChecklistItemsCount, { completed: 1, total: 3 });
    });

    it("copyChecklistsOfCard copies every checklist in order after those the target has, in the caller's transaction", async () => {
      const { cardId, a, b } = await richCard();
      const target = await newCard();
      const existing = await checklists.createChecklist(t.services, caller, target, {}, { name: 'Existing' });
      const row = await cardRow(target);
      const { checklists: copies } = await t.services.db.transaction().execute((trx) => copyChecklistsOfCard(trx, cardId, row, caller.userId, nowIso()));
      assert.equal(copies.length, 2);
      const card = await loadCard(t.services, target);
      assert.deepEqual(card.checklists, [existing._id, ...copies]);
      assert.deepEqual(card.allChecklistItemsCount, { completed: 1, total: 3 });
      const names = await t.services.db.selectFrom('checklists').select(['id', 'name']).where('id', 'in', copies).execute();
      assert.deepEqual(
        copies.map((id) => names.find((n) => n.id === id)?.name),
        [a.name, b.name],
      );
      const kept = await t.services.db
        .selectFrom('checklist_item_members as m')
        .innerJoin('checklist_items as i', 'i.id', 'm.item_id')
        .select('m.user_id')
        .where('i.card_id', '=', target)
        .execute();
      assert.equal(kept.length, 3, 'same team: every member kept');
      // a failing transaction leaves nothing behind
      await assert.rejects(
        t.services.db.transaction().execute(async (trx) => {
          await copyChecklistsOfCard(trx, cardId, row, caller.userId, nowIso());
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.deepEqual((await loadCard(t.services, target)).checklists, card.checklists);
    });

    it('copyChecklistsOfCard puts each item, in order, in the copy of its own checklist', async () => {
      const cardId = await newCard();
      const sources = [];
      for (const name of ['P', 'Q', 'R']) sources.push(await checklists.createChecklist(t.services, caller, cardId, {}, { name }));
      // items created across the checklists in turn, some placed at the top
      for (let i = 0; i < 9; i++) {
        await items.createItem(t.services, caller, sources[i % 3]?._id as string, {}, { name: `i${i}`, position: i === 4 ? 'top' : 'bottom' });
      }
      const target = await cardRow(await newCard());
      const { checklists: copies, items: itemCopies } = await t.services.db
        .transaction()
        .execute((trx) => copyChecklistsOfCard(trx, cardId, target, caller.userId, nowIso()));
      const itemsIn = async (checklistId: string) => (await items.getItems(t.services, caller, checklistId, {}, {})).items;
      const namesIn = async (checklistId: string) => (await itemsIn(checklistId)).map((i) => i.name);
      assert.equal(copies.length, 3);
      for (const [i, source] of sources.entries()) assert.deepEqual(await namesIn(copies[i] as string), await namesIn(source._id), source.name);
      assert.deepEqual(await namesIn(copies[1] as string), ['i4', 'i1', 'i7']);
      // the answer pairs each source item, in display order, with its copy: same place in the copy of its checklist
      const pairs = [];
      for (const [i, source] of sources.entries()) {
        const [from, to] = [await itemsIn(source._id), await itemsIn(copies[i] as string)];
        for (const [n, item] of from.entries()) pairs.push([item._id, to[n]?._id]);
      }
      assert.deepEqual([...itemCopies], pairs);
    });

    it("checks the reach again under the card's lock: a card moved meanwhile to a team the caller is not in is a 404, and nothing changes", async () => {
      const mate = await authenticate(t.services, w.mate.apiKey);
      const cardId = await newCard();
      const checklist = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'Plan' });
      const item = await items.createItem(t.services, caller, checklist._id, {}, { name: 'Step' });
      const list = await findListById(t.services.db, w.elsewhereListId);
      assert.ok(list);
      // Another request moves the card to team Elsewhere (mate is not in it) and holds the card's lock...
      const mover = await t.services.db.startTransaction().execute();
      let racing: Promise<unknown>[] = [];
      try {
        await recordCardChange(mover, cardId, nowIso());
        await moveCardChildren(mover, cardId, list);
        await setCardColumns(mover, cardId, { company_id: list.company_id, team_id: list.team_id, board_id: list.board_id, list_id: list.id });
        // ...while mate's requests, which saw the card in team Core, wait for it (each on a connection
        // of the pool of 10, as the mover and the polling below: eight requests fill it).
        racing = [
          checklists.createChecklist(t.services, mate, cardId, {}, { name: 'Sneaked in' }),
          checklists.renameChecklist(t.services, mate, checklist._id, {}, 'Renamed'),
          items.createItem(t.services, mate, checklist._id, {}, { name: 'Sneaked in' }),
          items.renameItem(t.services, mate, item._id, {}, 'Renamed'),
          items.toggleItemComplete(t.services, mate, item._id, {}),
          items.copyItem(t.services, mate, item._id, {}, { checklist: checklist._id }),
          attachmentService.addItemLink(t.services, mate, item._id, {}, { url: 'https://example.com/sneaked' }),
          attachmentService.addLink(t.services, mate, cardId, {}, { url: 'https://example.com/sneaked' }),
        ].map((request) =>
          request.then(
            (answer) => answer,
            (error: unknown) => error,
          ),
        );
        if (engine === 'postgres') {
          // (SQLite runs one transaction at a time: there the requests start only after the move.)
          const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(mover)).rows[0] as { pid: number };
          // the sessions waiting for the mover, directly or behind another waiter in the lock's queue
          const waiting = async () =>
            (
              await sql<{ n: number }>`
                with recursive waiter(pid) as (
                  select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))
                  union
                  select a.pid from pg_stat_activity a join waiter w on w.pid = any(pg_blocking_pids(a.pid))
                )
                select count(*)::int as n from waiter`.execute(t.services.db)
            ).rows[0]?.n ?? 0;
          for (let polls = 0; (await waiting()) < racing.length; polls++) assert.ok(polls < 10_000, 'every request comes to wait for the lock');
        }
        await mover.commit().execute();
      } catch (error) {
        await mover.rollback().execute();
        throw error;
      }
      const moved = await cardRow(cardId);
      for (const outcome of await Promise.all(racing)) assert.ok(outcome instanceof NotFoundError, String(outcome));
      assert.equal((await cardRow(cardId)).version, moved.version, 'the card records the move alone');
      const rows = await t.services.db
        .selectFrom('checklist_items')
        .select(['id', 'name', 'complete_status', 'version'])
        .where('checklist_id', '=', checklist._id)
        .execute();
      assert.deepEqual(rows, [{ id: item._id, name: 'Step', complete_status: 0, version: 1 }], 'moved: its version grew by the move alone');
      assert.equal((await findChecklist(t.services.db, checklist._id))?.name, 'Plan');
      const onCard = await t.services.db.selectFrom('checklists').select('id').where('card_id', '=', cardId).execute();
      assert.deepEqual(onCard, [{ id: checklist._id }], 'no checklist was created on the moved card');
      assert.equal((await t.services.db.selectFrom('attachments').select('id').where('card_id', '=', cardId).execute()).length, 0);
    });

    it('serialises concurrent item creations on one checklist: distinct positions, every change counted', async () => {
      const cardId = await newCard();
      const checklist = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'Busy' });
      const before = await cardRow(cardId);
      const made = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          items.createItem(t.services, caller, checklist._id, {}, { name: `n${i}`, position: i % 3 === 0 ? 'top' : 'bottom' }),
        ),
      );
      const rows = await t.services.db.selectFrom('checklist_items').select(['id', 'position']).where('checklist_id', '=', checklist._id).execute();
      assert.equal(rows.length, 12);
      assert.equal(new Set(rows.map((r) => r.position)).size, 12, 'no two items share a position');
      assert.equal((await cardRow(cardId)).version, before.version + 12);
      const final = await t.services.db.selectFrom('checklists').select('version').where('id', '=', checklist._id).executeTakeFirstOrThrow();
      assert.equal(final.version, 12);
      assert.equal(new Set(made.map((m) => m._id)).size, 12);
    });

    it('keeps the counts true under concurrent moves, completions and deletes across checklists', async () => {
      const cardId = await newCard();
      const a = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'A' });
      const b = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'B' });
      const made = [];
      for (let i = 0; i < 8; i++) made.push(await items.createItem(t.services, caller, a._id, {}, { name: `i${i}` }));
      await Promise.all([
        ...made.slice(0, 4).map((item) => items.moveItem(t.services, caller, item._id, {}, { position: 'top', checklist: b._id })),
        ...made.slice(4, 6).map((item) => items.toggleItemComplete(t.services, caller, item._id, {})),
        ...made.slice(6).map((item) => items.deleteItem(t.services, caller, item._id, {})),
        items.toggleItemComplete(t.services, caller, made[0]?._id as string, {}, true),
      ]);
      const card = await loadCard(t.services, cardId);
      assert.deepEqual(card.allChecklistItemsCount, { completed: 3, total: 6 });
      const inB = await t.services.db.selectFrom('checklist_items').select('position').where('checklist_id', '=', b._id).execute();
      assert.equal(inB.length, 4);
      assert.equal(new Set(inB.map((r) => r.position)).size, 4);
    });

    it('copies in opposite directions between two cards at once without deadlock', async () => {
      const [x, y] = [await newCard(), await newCard()];
      const cx = await checklists.createChecklist(t.services, caller, x, {}, { name: 'X' });
      const cy = await checklists.createChecklist(t.services, caller, y, {}, { name: 'Y' });
      await items.createItem(t.services, caller, cx._id, {}, { name: 'x1' });
      const iy = await items.createItem(t.services, caller, cy._id, {}, { name: 'y1' });
      const [vx, vy] = [(await cardRow(x)).version, (await cardRow(y)).version];
      await Promise.all([
        checklists.copyChecklist(t.services, caller, cx._id, {}, { card: y }),
        checklists.copyChecklist(t.services, caller, cy._id, {}, { card: x }),
        items.copyItem(t.services, caller, iy._id, {}, { checklist: cx._id }),
        checklists.copyChecklist(t.services, caller, cx._id, {}, { card: y }),
      ]);
      assert.equal((await cardRow(x)).version, vx + 4);
      assert.equal((await cardRow(y)).version, vy + 4);
      assert.equal((await loadCard(t.services, x)).allChecklistItemsCount.total, 3, 'x1 and two copies of y1');
      // y got two copies of X, each with x1 and, if the item copy came first, y1's copy as well
      const onY = await t.services.db.selectFrom('checklist_items').select('id').where('card_id', '=', y).execute();
      assert.ok(onY.length >= 3 && onY.length <= 5);
      assert.equal((await loadCard(t.services, y)).allChecklistItemsCount.total, onY.length);
    });

    it('renumbers the siblings when positions run out between two neighbours, keeping their order', async () => {
      const cardId = await newCard();
      const checklist = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'Dense' });
      const first = await items.createItem(t.services, caller, checklist._id, {}, { name: 'first' });
      const last = await items.createItem(t.services, caller, checklist._id, {}, { name: 'last' });
      // squeeze the two neighbours together so nothing fits between them
      await t.services.db.updateTable('checklist_items').set({ position: 1 }).where('id', '=', first._id).execute();
      await t.services.db
        .updateTable('checklist_items')
        .set({ position: 1 + 1e-7 })
        .where('id', '=', last._id)
        .execute();
      const middle = await items.createItem(t.services, caller, checklist._id, {}, { name: 'middle', position: 1 });
      const got = (await items.getItems(t.services, caller, checklist._id, {}, {})).items;
      assert.deepEqual(
        got.map((i) => i.name),
        ['first', 'middle', 'last'],
      );
      assert.deepEqual(
        got.map((i) => i.position),
        [1, 2, 3].map((n) => n * POSITION_STEP),
      );
      assert.equal(middle.position, 2 * POSITION_STEP);
      assert.deepEqual(
        got.map((i) => i.__v),
        [1, 0, 1],
        'a renumbered sibling records the change of its position',
      );

      const c1 = await checklists.createChecklist(t.services, caller, cardId, {}, { name: 'c1' });
      await t.services.db.updateTable('checklists').set({ position: 5 }).where('card_id', '=', cardId).execute();
      await checklists.moveChecklist(t.services, caller, c1._id, {}, 0);
      const ids = (await loadCard(t.services, cardId)).checklists;
      assert.equal(ids[0], c1._id);
      const positions = await t.services.db.selectFrom('checklists').select('position').where('card_id', '=', cardId).orderBy('position').execute();
      assert.equal(new Set(positions.map((p) => p.position)).size, positions.length);
    });
  });
}
