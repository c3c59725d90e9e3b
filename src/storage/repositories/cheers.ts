import type { CheerParentType, Executor, NewRow, Row, Transaction } from '../database.ts';

export type CheerTableRow = Row<'cheers'>;
/** A cheer with its creator's photo: the shape `toCheer` maps. */
export type CheerWithCreatorRow = CheerTableRow & { creator_photo_url: string };

function selectCheers(db: Executor) {
  return db.selectFrom('cheers as ch').innerJoin('users as u', 'u.id', 'ch.creator_id').selectAll('ch').select('u.photo_url as creator_photo_url');
}

export async function insertCheer(db: Transaction, row: NewRow<'cheers'>): Promise<void> {
  await db.insertInto('cheers').values(row).execute();
}

export async function findCheer(db: Executor, id: string): Promise<CheerWithCreatorRow | undefined> {
  return selectCheers(db).where('ch.id', '=', id).executeTakeFirst();
}

/** The caller's cheer with this very content on this very thing, if any. */
export async function findSameCheer(
  db: Executor,
  primary: { type: CheerParentType; id: string },
  creatorId: string,
  content: string,
): Promise<CheerTableRow | undefined> {
  return db
    .selectFrom('cheers')
    .selectAll()
    .where('primary_type', '=', primary.type)
    .where('primary_id', '=', primary.id)
    .where('creator_id', '=', creatorId)
    .where('content', '=', content)
    .executeTakeFirst();
}

export async function deleteCheer(db: Transaction, id: string): Promise<boolean> {
  const result = await db.deleteFrom('cheers').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Cheers on the given comments and on their replies (both carry the comment id), oldest first. */
export async function cheersOfComments(db: Executor, commentIds: readonly string[]): Promise<CheerWithCreatorRow[]> {
  if (commentIds.length === 0) return [];
  return selectCheers(db).where('ch.comment_id', 'in', commentIds).orderBy('ch.created_at').orderBy('ch.id').execute();
}
