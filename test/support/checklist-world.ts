/**
 * The people and places the checklist suites work with: the tenant's team "Core" with a board, a
 * second team "Elsewhere" of the same company with a board, and another company with a board.
 */
import assert from 'node:assert/strict';
import type { Engine } from '../../src/storage/database-url.ts';
import { addMember, addTeam, type MemberFixture, seedBoard } from './fixtures.ts';
import { type Api, apiClient, buildTestApp, type OtherCompany, otherCompany, type TestApp } from './harness.ts';

export interface ChecklistWorld {
  /** A list of team Core. */
  listId: string;
  elsewhereTeam: string;
  /** A list of team Elsewhere. */
  elsewhereListId: string;
  /** In team Core only. */
  mate: MemberFixture;
  /** In teams Core and Elsewhere. */
  both: MemberFixture;
  /** In team Elsewhere only (a plain company member). */
  stranger: MemberFixture;
  /** In the company, in no team. */
  loner: MemberFixture;
  /** The owner of another company. */
  other: OtherCompany;
  /** A list of the other company. */
  otherListId: string;
}

export async function checklistWorld(t: TestApp): Promise<ChecklistWorld> {
  const { companyId, teamId } = t.tenant;
  const listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
  const mate = await addMember(t.services, { companyId, teamIds: [teamId], email: 'mate@acme.test', fullName: 'Mate' });
  const both = await addMember(t.services, { companyId, teamIds: [teamId], email: 'both@acme.test', fullName: 'Both' });
  const stranger = await addMember(t.services, { companyId, email: 'stranger@acme.test', fullName: 'Stranger' });
  const loner = await addMember(t.services, { companyId, email: 'loner@acme.test', fullName: 'Loner' });
  const elsewhereTeam = await addTeam(t.services, companyId, 'Elsewhere', [stranger.userId, both.userId]);
  const elsewhereListId = (await seedBoard(t.services, { companyId, teamId: elsewhereTeam, userId: stranger.userId }, { lists: 1 })).listIds[0] as string;
  const other = await otherCompany(t);
  const otherListId = (await seedBoard(t.services, other, { lists: 1 })).listIds[0] as string;
  return { listId, elsewhereTeam, elsewhereListId, mate, both, stranger, loner, other, otherListId };
}

/** The app over `engine` with the world built, and the tenant's client: the frame of the checklist HTTP suites. */
export async function buildChecklistApp(engine: Engine, options?: Parameters<typeof buildTestApp>[1]): Promise<{ t: TestApp; api: Api; w: ChecklistWorld }> {
  const t = await buildTestApp(engine, options);
  return { t, api: apiClient(t, t.tenant.apiKey), w: await checklistWorld(t) };
}

/** A card made through the API in `list` by the holder of `key`: its id. */
export async function cardIn(t: TestApp, list: string, key = t.tenant.apiKey): Promise<string> {
  const res = await apiClient(t, key)('POST', '/api/v1/cards', { list, name: 'Card' });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().card._id;
}

/** Everything the checklist operations could change on a card, read straight from the tables. */
export async function checklistRows(t: TestApp, cardId: string) {
  const db = t.services.db;
  const items = await db.selectFrom('checklist_items').selectAll().where('card_id', '=', cardId).orderBy('id').execute();
  return {
    card: await db.selectFrom('cards').select(['version', 'updated_at']).where('id', '=', cardId).executeTakeFirstOrThrow(),
    checklists: await db.selectFrom('checklists').selectAll().where('card_id', '=', cardId).orderBy('id').execute(),
    items,
    members: items.length
      ? await db
          .selectFrom('checklist_item_members')
          .select(['item_id', 'user_id'])
          .where(
            'item_id',
            'in',
            items.map((i) => i.id),
          )
          .orderBy('item_id')
          .orderBy('user_id')
          .execute()
      : [],
  };
}
