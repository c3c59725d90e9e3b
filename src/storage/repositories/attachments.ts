import type { Executor, NewRow, Row, RowUpdate, Transaction } from '../database.ts';

export type AttachmentTableRow = Row<'attachments'>;

export async function insertAttachment(db: Transaction, row: NewRow<'attachments'>): Promise<void> {
  await db.insertInto('attachments').values(row).execute();
}

/**
 * One change to a live attachment (its name, or its cheers, which its record shows): `__v` + 1 and
 * `updatedAt`; false when it is deleted or gone.
 */
export async function recordAttachmentChange(db: Transaction, id: string, at: string, fields: Pick<RowUpdate<'attachments'>, 'name'> = {}): Promise<boolean> {
  const result = await db
    .updateTable('attachments')
    .set((eb) => ({ ...fields, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * One guarded change of a live attachment of this very owner (the card itself when
 * `checklist_item_id` is null, else that item): its fields, `__v` + 1 and `updatedAt`. False when no
 * such row changed (deleted, gone, or another owner's).
 */
export async function changeOwnedAttachment(
  db: Transaction,
  owner: { card_id: string; checklist_item_id: string | null },
  id: string,
  at: string,
  fields: Pick<RowUpdate<'attachments'>, 'name' | 'is_deleted' | 'deleted_at'>,
): Promise<boolean> {
  let query = db
    .updateTable('attachments')
    .set((eb) => ({ ...fields, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('card_id', '=', owner.card_id)
    .where('is_deleted', '=', 0);
  query = owner.checklist_item_id === null ? query.where('checklist_item_id', 'is', null) : query.where('checklist_item_id', '=', owner.checklist_item_id);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A live attachment of this very owner (as `changeOwnedAttachment` finds it), or undefined. */
export async function findOwnedAttachment(
  db: Executor,
  owner: { card_id: string; checklist_item_id: string | null },
  id: string,
): Promise<AttachmentTableRow | undefined> {
  let query = db.selectFrom('attachments').selectAll().where('id', '=', id).where('card_id', '=', owner.card_id).where('is_deleted', '=', 0);
  query = owner.checklist_item_id === null ? query.where('checklist_item_id', 'is', null) : query.where('checklist_item_id', '=', owner.checklist_item_id);
  return query.executeTakeFirst();
}

/** A live (not deleted) attachment, on a card or on a checklist item: what may be cheered. */
export async function findLiveAttachment(db: Executor, id: string): Promise<AttachmentTableRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('id', '=', id).where('is_deleted', '=', 0).executeTakeFirst();
}

/** A live attachment of the card or of one of its checklist items (what the download path serves). */
export async function findLiveAttachmentOfCard(db: Executor, cardId: string, attachmentId: string): Promise<AttachmentTableRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('id', '=', attachmentId).where('card_id', '=', cardId).where('is_deleted', '=', 0).executeTakeFirst();
}

/**
 * Before checklist items are deleted: their live attachments are marked deleted, and every
 * attachment of theirs is detached from them (the item row goes; the record stays, as a deleted
 * attachment of the card, until the purge removes it and its file).
 */
export async function retireItemAttachments(db: Transaction, itemIds: readonly string[], at: string): Promise<void> {
  if (itemIds.length === 0) return;
  await db
    .updateTable('attachments')
    .set((eb) => ({ is_deleted: 1, deleted_at: at, updated_at: at, version: eb('version', '+', 1) }))
    .where('checklist_item_id', 'in', itemIds)
    .where('is_deleted', '=', 0)
    .execute();
  await db.updateTable('attachments').set({ checklist_item_id: null }).where('checklist_item_id', 'in', itemIds).execute();
}

/** Up to `limit` attachments deleted before `before` (oldest deletions first). */
export async function deletedBefore(db: Executor, before: string, limit: number): Promise<Pick<AttachmentTableRow, 'id' | 'storage_key'>[]> {
  return db
    .selectFrom('attachments')
    .select(['id', 'storage_key'])
    .where('is_deleted', '=', 1)
    .where('deleted_at', '<', before)
    .orderBy('deleted_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Which of the storage keys a record other than `exceptIds` still points to. */
export async function storageKeysInUse(db: Executor, keys: readonly string[], exceptIds: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  let query = db.selectFrom('attachments').select('storage_key').where('storage_key', 'in', keys);
  if (exceptIds.length) query = query.where('id', 'not in', exceptIds);
  const rows = await query.execute();
  return new Set(rows.map((r) => r.storage_key as string));
}

/** Removes deleted attachment records for good, with the cheers on them; answers how many went. */
export async function removeDeletedAttachments(db: Transaction, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  await db.deleteFrom('cheers').where('primary_type', '=', 'attachment').where('primary_id', 'in', ids).execute();
  const result = await db.deleteFrom('attachments').where('id', 'in', ids).where('is_deleted', '=', 1).executeTakeFirst();
  return Number(result.numDeletedRows);
}
