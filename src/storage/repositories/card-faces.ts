/**
 * What a card's face on a board shows (docs/decisions/0094): the card's own columns, its label and
 * member ids, its checklist progress and its comment and attachment counts, in one statement per
 * page; a fraction of what the full card query (./card-records.ts) reads and writes out.
 */
import { type QueryCreator, sql } from 'kysely';
import type { Database, Executor } from '../database.ts';
import { type Dialect, dialectOf } from '../dialect.ts';
import type { ListCardsAfter } from './cards.ts';
import { type CardFieldValueRow, fieldValuesOfCards } from './custom-fields.ts';
import { pastKey } from './order.ts';

function faceQuery(db: QueryCreator<Database>, dialect: Dialect) {
  return db
    .selectFrom('cards as c')
    .select([
      'c.id',
      'c.version',
      'c.board_id',
      'c.list_id',
      'c.position',
      'c.name',
      'c.cover',
      'c.start_date',
      'c.due_date',
      'c.complete_status',
      'c.is_template',
      'c.archived',
    ])
    .select((eb) => [
      eb('c.description', '!=', '').as('has_description'),
      // in the order the full record lists them (./card-records.ts)
      dialect
        .jsonArrayFrom(
          eb.selectFrom('card_labels as cl').select('cl.label_id').whereRef('cl.card_id', '=', 'c.id').orderBy('cl.created_at').orderBy('cl.label_id'),
        )
        .as('labels_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('card_members as m')
            .innerJoin('users as u', 'u.id', 'm.user_id')
            .select(['u.id', 'u.full_name', 'u.photo_url'])
            .whereRef('m.card_id', '=', 'c.id')
            .orderBy('m.created_at')
            .orderBy('m.user_id'),
        )
        .as('members_json'),
      eb
        .selectFrom('checklist_items as i')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('i.card_id', '=', 'c.id')
        .as('items_total'),
      eb
        .selectFrom('checklist_items as i')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('i.card_id', '=', 'c.id')
        .where('i.complete_status', '=', 1)
        .as('items_completed'),
      eb
        .selectFrom('comments as m')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('m.card_id', '=', 'c.id')
        .as('comments_count'),
      // the attachments the card's record lists: its own (not its checklist items'), not deleted
      eb
        .selectFrom('attachments as a')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('a.card_id', '=', 'c.id')
        .where('a.checklist_item_id', 'is', null)
        .where('a.is_deleted', '=', 0)
        .as('attachments_count'),
    ]);
}

type FaceQueryRow = Awaited<ReturnType<ReturnType<typeof faceQuery>['execute']>>[number];

/** The rows of faces, each with its custom field values (read after the faces, in one statement). */
async function toFaceRows(db: Executor, dialect: Dialect, rows: FaceQueryRow[]) {
  const fieldValues = await fieldValuesOfCards(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...row,
    has_description: Boolean(Number(row.has_description)),
    labels: dialect.fromJson(row.labels_json).map((label) => label.label_id),
    members: dialect.fromJson(row.members_json),
    field_values: fieldValues.get(row.id) ?? NO_VALUES,
    items_total: Number(row.items_total ?? 0),
    items_completed: Number(row.items_completed ?? 0),
    comments_count: Number(row.comments_count ?? 0),
    attachments_count: Number(row.attachments_count ?? 0),
  }));
}

export type CardFaceRow = Awaited<ReturnType<typeof toFaceRows>>[number];

const NO_VALUES: readonly CardFieldValueRow[] = [];

/** A dates window (docs/decisions/0295): ISO timestamps, `to` exclusive; `span` is from the start date to the due date. */
export interface DatesWindow {
  from: string;
  to: string;
  by: 'due' | 'start' | 'span';
}

/**
 * The cards (of `alias`) in the window. Dates are stored as ISO 8601 UTC text of one form, so they
 * compare as text on both engines; a card with one date spans that day.
 */
function inWindow(alias: 'c' | 'r', window: DatesWindow) {
  const due = sql.ref(`${alias}.due_date`);
  const start = sql.ref(`${alias}.start_date`);
  if (window.by === 'due') return sql<boolean>`${due} >= ${window.from} and ${due} < ${window.to}`;
  if (window.by === 'start') return sql<boolean>`${start} >= ${window.from} and ${start} < ${window.to}`;
  return sql<boolean>`coalesce(${start}, ${due}) < ${window.to} and coalesce(${due}, ${start}) >= ${window.from}`;
}

/** The faces of the list's archived (or unarchived) cards in position order, after `after`, at most `take`. */
export async function listCardFaces(
  db: Executor,
  listId: string,
  archived: boolean,
  after: ListCardsAfter | undefined,
  take: number,
  window?: DatesWindow,
): Promise<CardFaceRow[]> {
  const dialect = dialectOf(db);
  let query = faceQuery(db, dialect)
    .where('c.list_id', '=', listId)
    .where('c.archived', '=', archived ? 1 : 0);
  if (window) query = query.where(inWindow('c', window));
  if (after) query = query.where(pastKey(['c.position', 'c.id'], [after.position, after.cardId]));
  const rows = await query.orderBy('c.position').orderBy('c.id').limit(take).execute();
  return toFaceRows(db, dialect, rows);
}

/** The faces of `cardIds` (those still there), in their order. */
export async function loadCardFaces(db: Executor, cardIds: readonly string[]): Promise<CardFaceRow[]> {
  if (cardIds.length === 0) return [];
  const dialect = dialectOf(db);
  const rows = await faceQuery(db, dialect).where('c.id', 'in', cardIds).execute();
  const byId = new Map((await toFaceRows(db, dialect, rows)).map((row) => [row.id, row]));
  return cardIds.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The faces of the first `take` unarchived cards (those in `window`, if given) of every list of the
 * board, by list, in position order: one statement, so a board read holds one connection however many lists it has (one query
 * per list took every connection of the pool at once, and under load made other requests wait
 * past the pool's bound).
 */
export async function boardCardFaces(db: Executor, boardId: string, take: number, window?: DatesWindow): Promise<CardFaceRow[]> {
  const dialect = dialectOf(db);
  const rows = await faceQuery(db, dialect)
    .innerJoin(
      (eb) => {
        const ranked = eb
          .selectFrom('cards as r')
          .select(['r.id', sql<number>`row_number() over (partition by r.list_id order by r.position, r.id)`.as('place')])
          .where('r.board_id', '=', boardId)
          .where('r.archived', '=', 0);
        return (window ? ranked.where(inWindow('r', window)) : ranked).as('ranked');
      },
      (join) => join.onRef('ranked.id', '=', 'c.id'),
    )
    .where('ranked.place', '<=', take)
    .orderBy('c.list_id')
    .orderBy('c.position')
    .orderBy('c.id')
    .execute();
  return toFaceRows(db, dialect, rows);
}
