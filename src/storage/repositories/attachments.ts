import type { Executor, NewRow, Row } from '../database.ts';

export type AttachmentTableRow = Row<'attachments'>;

export async function insertAttachment(db: Executor, row: NewRow<'attachments'>): Promise<void> {
  await db.insertInto('attachments').values(row).execute();
}

/** A live (not deleted) attachment that sits directly on the card (not on a checklist item). */
export async function findCardAttachment(db: Executor, cardId: string, attachmentId: string): Promise<AttachmentTableRow | undefined> {
  return db
    .selectFrom('attachments')
    .selectAll()
    .where('id', '=', attachmentId)
    .where('card_id', '=', cardId)
    .where('checklist_item_id', 'is', null)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
}

export async function renameAttachment(db: Executor, id: string, name: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('attachments')
    .set((eb) => ({ name, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks an attachment deleted; its file stays until the record is purged. */
export async function markAttachmentDeleted(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('attachments')
    .set((eb) => ({ is_deleted: 1, deleted_at: at, updated_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
