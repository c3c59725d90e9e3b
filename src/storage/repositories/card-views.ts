/**
 * The card read model (migration 0009): a card's record as Get Card Details answers it, stored with
 * the stamps it was built from. A view counts only while its stamps are the card's `__v`, its
 * board's `labels_stamp` and the users' stamp; a change moves one of them in its own transaction,
 * so no view built before it is served again, whatever the interleaving.
 */
import { type InsertQueryBuilder, type InsertResult, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database, Executor, Transaction } from '../database.ts';
import { executeCompiledOnce } from '../dialect.ts';

/** A card's stored record and what it was built from. */
export interface CardView {
  cardId: string;
  /** How the record is written: a view of another form is not served. */
  form: string;
  cardVersion: number;
  labelsStamp: number;
  usersStamp: number;
  body: string;
}

/** The name of the stamp of what cards show of users (names, photos). */
export const USERS_STAMP = 'users';

/**
 * The join condition of the stored view `v` of the card `card` (a table alias) that counts: its
 * stamps are the card's `__v`, its board's labels stamp and the users' stamp now. Left-joined, the
 * view's columns are null where no view counts.
 */
export function viewThatCounts(card: string): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(`${card}.${name}`);
  return sql<SqlBool>`v.card_id = ${column('id')}
    and v.card_version = ${column('version')}
    and v.labels_stamp = (select b.labels_stamp from boards as b where b.id = ${column('board_id')})
    and v.users_stamp = (select s.stamp from card_view_stamps as s where s.name = ${sql.lit(USERS_STAMP)})`;
}

/**
 * The body of the stored view of the card `card` (a table alias) that counts, else null, of the form
 * `form` (a parameter of the statement): a scalar subquery, for a page's select list, in a statement
 * compiled once. There it is read only for the rows the page answers, and leaves the plan of the
 * page's walk (its index order, its stop at the page's end) as it was.
 */
export function viewBodyThatCounts(card: string, form: string): RawBuilder<string | null> {
  return sql<string | null>`(select v.body from card_views as v where ${viewThatCounts(card)} and v.form = ${form})`;
}

/**
 * Stores a view, unless the one stored was built later (stamps compared in order: the card's `__v`
 * first, then, for the same `__v` and so the same board, the labels' and users' stamps): readers that
 * raced keep the newest. A view of another form is replaced.
 */
export async function storeCardView(db: Executor, view: CardView): Promise<void> {
  await executeCompiledOnce(
    db,
    'store card view',
    (param) =>
      keepingTheNewest(
        db.insertInto('card_views').values({
          card_id: param('cardId'),
          form: param('form'),
          card_version: param('cardVersion'),
          labels_stamp: param('labelsStamp'),
          users_stamp: param('usersStamp'),
          body: param('body'),
        }),
      ),
    view,
  );
}

/**
 * `storeCardView` for the views of several cards (those a page built), in one statement: one write
 * (one commit outside a transaction) where one per card was as many.
 */
export async function storeCardViews(db: Executor, views: readonly CardView[]): Promise<void> {
  if (views.length <= 1) return views[0] && storeCardView(db, views[0]);
  await keepingTheNewest(
    db.insertInto('card_views').values(
      views.map((view) => ({
        card_id: view.cardId,
        form: view.form,
        card_version: view.cardVersion,
        labels_stamp: view.labelsStamp,
        users_stamp: view.usersStamp,
        body: view.body,
      })),
    ),
  ).execute();
}

/** The upsert of views: a stored view is replaced by one built later, or of another form. */
function keepingTheNewest(insert: InsertQueryBuilder<Database, 'card_views', InsertResult>) {
  return insert.onConflict((oc) =>
    oc
      .column('card_id')
      .doUpdateSet((eb) => ({
        form: eb.ref('excluded.form'),
        card_version: eb.ref('excluded.card_version'),
        labels_stamp: eb.ref('excluded.labels_stamp'),
        users_stamp: eb.ref('excluded.users_stamp'),
        body: eb.ref('excluded.body'),
      }))
      .where(
        sql<boolean>`(excluded.card_version, excluded.labels_stamp, excluded.users_stamp) > (card_views.card_version, card_views.labels_stamp, card_views.users_stamp)
          or excluded.form <> card_views.form`,
      ),
  );
}

/**
 * Moves the board's labels stamp (a label renamed or recoloured). Takes the board's row lock: the
 * board comes before its labels in the lock order (src/domain/access/access.ts). Called only
 * through the change recorder.
 */
export async function restampBoardLabels(trx: Transaction, boardId: string): Promise<void> {
  await trx
    .updateTable('boards')
    .set((eb) => ({ labels_stamp: eb('labels_stamp', '+', 1) }))
    .where('id', '=', boardId)
    .execute();
}

/** Moves the users' stamp (a name or photo changed). Called only through the change recorder. */
export async function restampUsers(trx: Transaction): Promise<void> {
  await trx
    .updateTable('card_view_stamps')
    .set((eb) => ({ stamp: eb('stamp', '+', 1) }))
    .where('name', '=', USERS_STAMP)
    .execute();
}
