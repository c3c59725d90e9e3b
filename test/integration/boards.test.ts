/**
 * Boards, lists and labels at the service level, on both engines: reach by role, position
 * renumbering, and the label delete across many cards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate, issueApiKey } from '../../src/domain/account/service.ts';
import { BOARD_CARDS_PER_LIST, createBoard, getBoardWithLists, getBoardWithListsAndCards, listBoards } from '../../src/domain/boards/boards.ts';
import { createLabel, deleteLabel, listBoardLabels } from '../../src/domain/boards/labels.ts';
import { createList, listLists, updateList } from '../../src/domain/boards/lists.ts';
import { listCardsOfList } from '../../src/domain/cards/listing.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { NotFoundError, ValidationError } from '../../src/domain/shared/errors.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import type { CompanyRole } from '../../src/storage/database.ts';
import { cardRow } from '../support/fixtures.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

const GREEN = '000000000000000000000001';

for (const engine of ENGINES) {
  describe(`boards, lists and labels services [${engine}]`, () => {
    let t: TestApp;
    let ctx: ServiceContext;
    let owner: Caller;
    let otherTeamId: string;

    /** A user of the tenant's company with `role`, member of `teamIds`, as a caller. */
    async function colleague(role: CompanyRole, teamIds: string[]): Promise<Caller> {
      const userId = newId();
      const now = nowIso();
      await ctx.db
        .insertInto('users')
        .values({ id: userId, email: `${userId}@acme.test`, full_name: role, photo_url: '', created_at: now, updated_at: now })
        .execute();
      await ctx.db.insertInto('company_members').values({ company_id: t.tenant.companyId, user_id: userId, role, created_at: now }).execute();
      for (const teamId of teamIds) await ctx.db.insertInto('team_members').values({ team_id: teamId, user_id: userId, created_at: now }).execute();
      return authenticate(ctx, (await issueApiKey(ctx, userId, 'test')).token);
    }

    before(async () => {
      t = await buildTestApp(engine);
      ctx = t.services;
      owner = await authenticate(ctx, t.tenant.apiKey);
      otherTeamId = newId();
      const now = nowIso();
      await ctx.db
        .insertInto('teams')
        .values({ id: otherTeamId, company_id: t.tenant.companyId, name: 'Other', creator_id: t.tenant.userId, created_at: now, updated_at: now, version: 0 })
        .execute();
    });
    after(() => t.dispose());

    it('lets team members reach their team, and company owners and admins every team', async () => {
      const member = await colleague('member', [otherTeamId]);
      const admin = await colleague('admin', []);
      const coreBoard = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Core board' });
      const otherBoard = await createBoard(ctx, member, { teamId: otherTeamId, name: 'Other board' });
      assert.equal(otherBoard.company, t.tenant.companyId);

      await assert.rejects(getBoardWithLists(ctx, member, coreBoard._id, {}), NotFoundError);
      await assert.rejects(createBoard(ctx, member, { teamId: t.tenant.teamId, name: 'Not mine' }), NotFoundError);
      await assert.rejects(createList(ctx, member, { board: coreBoard._id, name: 'Not mine' }, {}), NotFoundError);
      await assert.rejects(listBoards(ctx, member, { teamId: t.tenant.teamId }), NotFoundError);
      const memberBoards = await listBoards(ctx, member, {});
      assert.deepEqual(
        memberBoards.map((b) => b._id),
        [otherBoard._id],
      );
      assert.deepEqual(await listBoards(ctx, member, { companyId: t.tenant.companyId }), memberBoards);

      const adminBoards = (await listBoards(ctx, admin, {})).map((b) => b._id);
      assert.ok(adminBoards.includes(coreBoard._id) && adminBoards.includes(otherBoard._id));
      const adminList = await createList(ctx, admin, { board: coreBoard._id, name: 'By admin' }, { teamId: t.tenant.teamId });
      assert.ok((await listLists(ctx, admin, { teamId: t.tenant.teamId })).some((l) => l._id === adminList._id));
      assert.ok(!(await listLists(ctx, member, {})).some((l) => l._id === adminList._id));
      // the owner is a member of Core only, but owns the company
      assert.deepEqual((await getBoardWithLists(ctx, owner, otherBoard._id, { companyId: t.tenant.companyId, teamId: otherTeamId }))._id, otherBoard._id);

      // a caller in no company reaches nothing: empty collections, not errors
      const nobody: Caller = { ...owner, companyRoles: new Map(), teamIds: new Set() };
      assert.deepEqual(await listBoards(ctx, nobody, {}), []);
      assert.deepEqual(await listLists(ctx, nobody, {}), []);
      await assert.rejects(listLists(ctx, nobody, { companyId: t.tenant.companyId }), NotFoundError);
    });

    it('renumbers the lists of a board when two neighbours leave no room, keeping their order', async () => {
      const board = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Tight' });
      const now = nowIso();
      const base = {
        company_id: t.tenant.companyId,
        team_id: t.tenant.teamId,
        board_id: board._id,
        creator_id: t.tenant.userId,
        created_at: now,
        updated_at: now,
        version: 0,
      };
      const [a, b, c] = [newId(), newId(), newId()];
      await ctx.db
        .insertInto('lists')
        .values([
          { ...base, id: a, name: 'a', position: 1 },
          { ...base, id: b, name: 'b', position: 1 + 1e-7 },
          { ...base, id: c, name: 'c', position: 5 },
        ])
        .execute();

      const between = await createList(ctx, owner, { board: board._id, name: 'between', position: 1 }, {});
      const lists = (await getBoardWithLists(ctx, owner, board._id, {})).lists;
      assert.deepEqual(
        lists.map((l) => l.name),
        ['a', 'between', 'b', 'c'],
      );
      assert.deepEqual(
        lists.map((l) => l.position),
        [1024, 2048, 3072, 4096],
      );
      assert.equal(between.position, 2048);
      assert.deepEqual(
        lists.filter((l) => l.name !== 'between').map((l) => l.__v),
        [1, 1, 1],
        'renumbered lists changed',
      );

      const moved = await updateList(ctx, owner, between._id, { position: 'bottom' }, {});
      assert.equal(moved.__v, 1);
      assert.deepEqual(
        (await getBoardWithLists(ctx, owner, board._id, {})).lists.map((l) => l.name),
        ['a', 'b', 'c', 'between'],
      );
    });

    it('gives concurrent list creations on one board distinct positions', async () => {
      const board = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Busy lists' });
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) => createList(ctx, owner, { board: board._id, name: `l${i}`, position: i % 2 ? 'top' : 'bottom' }, {})),
      );
      const positions = (await getBoardWithLists(ctx, owner, board._id, {})).lists.map((l) => l.position);
      assert.equal(new Set(positions).size, created.length);
    });

    it('answers lists without cards as empty and leaves archived cards out', async () => {
      const board = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Cards' });
      const empty = await createList(ctx, owner, { board: board._id, name: 'empty' }, {});
      const full = await createList(ctx, owner, { board: board._id, name: 'full' }, {});
      const list = { _id: full._id, board: board._id, company: board.company, team: board.team };
      const card = (name: string, position: number, archived: 0 | 1) => cardRow(list, t.tenant.userId, name, position, { archived });
      const rows = [card('z', 3, 0), card('x', 1, 0), card('hidden', 2, 1)];
      await ctx.db.insertInto('cards').values(rows).execute();
      const view = await getBoardWithListsAndCards(ctx, owner, board._id, { teamId: t.tenant.teamId });
      assert.deepEqual(
        view.lists.map((l) => [l._id, l.cards.map((c) => c.name)]),
        [
          [empty._id, []],
          [full._id, ['x', 'z']],
        ],
      );
    });

    it('deletes a label carried by more than a thousand cards, bumping each card once', async () => {
      const board = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Busy' });
      const list = await createList(ctx, owner, { board: board._id, name: 'L' }, {});
      const label = await createLabel(ctx, owner, board._id, { name: 'Everywhere', color: GREEN }, {});
      const keep = await createLabel(ctx, owner, board._id, { name: 'Stays', color: GREEN }, {});
      const old = '2020-01-01T00:00:00.000Z';
      const cardIds = Array.from({ length: 1205 }, () => newId());
      for (let i = 0; i < cardIds.length; i += 300) {
        const chunk = cardIds.slice(i, i + 300);
        await ctx.db
          .insertInto('cards')
          .values(
            chunk.map((id, j) => ({
              id,
              company_id: board.company,
              team_id: board.team,
              board_id: board._id,
              list_id: list._id,
              name: `c${i + j}`,
              creator_id: t.tenant.userId,
              position: i + j,
              start_date: null,
              due_date: null,
              complete_set_at: null,
              complete_updated_at: null,
              created_at: old,
              updated_at: old,
              version: 3,
            })),
          )
          .execute();
        await ctx.db
          .insertInto('card_labels')
          .values(chunk.map((card_id) => ({ card_id, label_id: label._id, created_at: old })))
          .execute();
      }
      await ctx.db
        .insertInto('card_labels')
        .values({ card_id: cardIds[0] as string, label_id: keep._id, created_at: old })
        .execute();

      const deleted = await deleteLabel(ctx, owner, label._id, { companyId: t.tenant.companyId, teamId: t.tenant.teamId });
      assert.equal(deleted._id, label._id);
      const links = await ctx.db.selectFrom('card_labels').select(['card_id', 'label_id']).where('card_id', 'in', cardIds.slice(0, 1)).execute();
      assert.deepEqual(links, [{ card_id: cardIds[0], label_id: keep._id }]);
      const left = await ctx.db
        .selectFrom('card_labels')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('label_id', '=', label._id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(left.n), 0);
      const versions = await ctx.db.selectFrom('cards').select(['version', 'updated_at']).where('board_id', '=', board._id).execute();
      assert.equal(versions.length, cardIds.length);
      assert.ok(
        versions.every((v) => v.version === 4 && v.updated_at > old),
        'every card that carried it changed once',
      );
      assert.deepEqual(
        (await listBoardLabels(ctx, owner, board._id, {})).map((l) => l._id),
        [keep._id],
      );
      await assert.rejects(deleteLabel(ctx, owner, label._id, {}), NotFoundError);

      // the board view shows the list's first page, and Get List Card the rest from its cursor: all
      // of them, in position order, with the new __v
      const view = await getBoardWithListsAndCards(ctx, owner, board._id, {});
      const first = view.lists[0];
      assert.equal(first?.cards.length, BOARD_CARDS_PER_LIST);
      const cards = [...(first?.cards ?? [])];
      for (let cursor = first?.nextCursor ?? null; cursor !== null; ) {
        const page = await listCardsOfList(ctx, owner, list._id, {}, { cursor, limit: 200 }, JSON.stringify);
        cards.push(...page.items.map((card) => JSON.parse(card.body) as (typeof cards)[number]));
        cursor = page.nextCursor;
      }
      assert.deepEqual(
        cards.map((c) => c._id),
        cardIds,
      );
      assert.ok(cards.every((c) => c.__v === 4));
      assert.deepEqual(
        cards[0]?.labels.map((l) => l._id),
        [keep._id],
      );
    });

    it('refuses a colour outside the palette as a bad field', async () => {
      const board = await createBoard(ctx, owner, { teamId: t.tenant.teamId, name: 'Colours' });
      await assert.rejects(createLabel(ctx, owner, board._id, { name: 'x', color: newId() }, {}), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.deepEqual(
          error.details?.map((d) => d.field),
          ['body.color'],
        );
        return true;
      });
      assert.deepEqual(await listBoardLabels(ctx, owner, board._id, {}), []);
    });
  });
}
