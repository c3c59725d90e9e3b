import type { Executor, NewRow, Row, RowUpdate, Transaction } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import { ATTACHMENT_COLUMNS, CHEER_COLUMNS } from './card-records.ts';
import { liveCard } from './cards.ts';
import type { PositionKey } from './checklists.ts';
import { pastKey } from './order.ts';

export type ChecklistItemRow = Row<'checklist_items'>;

/** Rows per insert statement: well under the bound-parameter limits of both engines. */
const INSERT_CHUNK = 200;

export async function findItem(db: Executor, id: string): Promise<ChecklistItemRow | undefined> {
  return db.selectFrom('checklist_items').selectAll().where('id', '=', id).where(liveCard('checklist_items.card_id')).executeTakeFirst();
}

export async function insertItems(db: Transaction, rows: readonly NewRow<'checklist_items'>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('checklist_items')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

/** Positions of a checklist's items in order, optionally leaving one out (the one being placed). */
export async function itemPositionsInChecklist(db: Executor, checklistId: string, except?: string): Promise<{ id: string; position: number }[]> {
  let query = db.selectFrom('checklist_items').select(['id', 'position']).where('checklist_id', '=', checklistId);
  if (except) query = query.where('id', '!=', except);
  return query.orderBy('position').orderBy('id').execute();
}

/** The items of the checklists in display order, every column (what a copy starts from). */
export async function itemsOfChecklists(db: Executor, checklistIds: readonly string[]): Promise<ChecklistItemRow[]> {
  if (checklistIds.length === 0) return [];
  return db
    .selectFrom('checklist_items')
    .selectAll()
    .where('checklist_id', 'in', checklistIds)
    .orderBy('checklist_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

type ItemFields = Pick<RowUpdate<'checklist_items'>, 'name' | 'position' | 'checklist_id' | 'date' | 'complete_status' | 'complete_set_at'>;

/** One change to an item (its fields, members or attachments): `__v` + 1 and `updatedAt`. */
export async function recordItemChange(db: Transaction, id: string, at: string, fields: ItemFields = {}): Promise<boolean> {
  const result = await db
    .updateTable('checklist_items')
    .set((eb) => ({ ...fields, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteItems(db: Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('checklist_items').where('id', 'in', ids).execute();
}

export async function itemIdsOfChecklist(db: Executor, checklistId: string): Promise<string[]> {
  const rows = await db.selectFrom('checklist_items').select('id').where('checklist_id', '=', checklistId).execute();
  return rows.map((r) => r.id);
}

export async function itemMemberIds(db: Executor, itemId: string): Promise<string[]> {
  const rows = await db.selectFrom('checklist_item_members').select('user_id').where('item_id', '=', itemId).execute();
  return rows.map((r) => r.user_id);
}

/** Member rows of the items, for copying: only users who are members of `teamId`. */
export async function itemMembersInTeam(
  db: Executor,
  itemIds: readonly string[],
  teamId: string,
): Promise<{ item_id: string; user_id: string; created_at: string }[]> {
  if (itemIds.length === 0) return [];
  return db
    .selectFrom('checklist_item_members as m')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.user_id', '=', 'm.user_id').on('tm.team_id', '=', teamId))
    .select(['m.item_id', 'm.user_id', 'm.created_at'])
    .where('m.item_id', 'in', itemIds)
    .orderBy('m.item_id')
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
}

export async function insertItemMembers(db: Transaction, rows: readonly NewRow<'checklist_item_members'>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('checklist_item_members')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

export async function removeItemMembers(db: Transaction, itemId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('checklist_item_members').where('item_id', '=', itemId).where('user_id', 'in', userIds).execute();
}

/** Which items to load: some by id, or a checklist's (optionally one page of them), or several checklists'. */
export type ItemSelection =
  | { itemIds: readonly string[] }
  | { checklistIds: readonly string[] }
  | { checklistId: string; after?: PositionKey | undefined; limit: number };

/**
 * Loads items with everything their API record shows: members and live attachments (as JSON,
 * read by the dialect's `fromJson`), in display order (checklist, position, id); then the
 * seen lists and cheers of those attachments in one more query each.
 */
export async function loadItemRows(db: Executor, selection: ItemSelection) {
  const dialect = dialectOf(db);
  let query = db
    .selectFrom('checklist_items as i')
    .selectAll('i')
    .select((eb) => [
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('checklist_item_members as m')
            .innerJoin('users as u', 'u.id', 'm.user_id')
            .select(['u.id', 'u.full_name', 'u.photo_url'])
            .whereRef('m.item_id', '=', 'i.id')
            .orderBy('m.created_at')
            .orderBy('u.id'),
        )
        .as('members_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('attachments as a')
            .innerJoin('users as u', 'u.id', 'a.creator_id')
            .select([...ATTACHMENT_COLUMNS, 'u.full_name as creator_full_name', 'u.photo_url as creator_photo_url'])
            .whereRef('a.checklist_item_id', '=', 'i.id')
            .where('a.is_deleted', '=', 0)
            .orderBy('a.created_at')
            .orderBy('a.id'),
        )
        .as('attachments_json'),
    ]);
  if ('itemIds' in selection) {
    if (selection.itemIds.length === 0) return { items: [], attachmentSeen: [], cheers: [] };
    query = query.where('i.id', 'in', selection.itemIds);
  } else if ('checklistIds' in selection) {
    if (selection.checklistIds.length === 0) return { items: [], attachmentSeen: [], cheers: [] };
    query = query.where('i.checklist_id', 'in', selection.checklistIds);
  } else {
    query = query.where('i.checklist_id', '=', selection.checklistId);
    const after = selection.after;
    if (after) {
      query = query.where(pastKey(['i.position', 'i.id'], [after.position, after.id]));
    }
    query = query.limit(selection.limit);
  }
  const rows = await query.orderBy('i.checklist_id').orderBy('i.position').orderBy('i.id').execute();
  const items = rows.map((row) => ({
    ...row,
    members: dialect.fragments.fromJson(row.members_json),
    attachments: dialect.fragments.fromJson(row.attachments_json),
  }));
  const attachmentIds = items.flatMap((item) => item.attachments.map((a) => a.id));
  return { items, ...(await attachmentExtras(db, attachmentIds)) };
}

/** Who has seen each attachment, and the cheers on them. */
async function attachmentExtras(db: Executor, attachmentIds: readonly string[]) {
  if (attachmentIds.length === 0) return { attachmentSeen: [], cheers: [] };
  const attachmentSeen = await db
    .selectFrom('attachment_seen as s')
    .select(['s.attachment_id', 's.user_id'])
    .where('s.attachment_id', 'in', attachmentIds)
    .orderBy('s.seen_at')
    .orderBy('s.user_id')
    .execute();
  const cheers = await db
    .selectFrom('cheers as ch')
    .innerJoin('users as u', 'u.id', 'ch.creator_id')
    .select([...CHEER_COLUMNS, 'u.photo_url as creator_photo_url'])
    .where('ch.primary_type', '=', 'attachment')
    .where('ch.primary_id', 'in', attachmentIds)
    .orderBy('ch.created_at')
    .orderBy('ch.id')
    .execute();
  return { attachmentSeen, cheers };
}

export type ItemRows = Awaited<ReturnType<typeof loadItemRows>>;
