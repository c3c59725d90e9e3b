import type { Expression, ExpressionBuilder, QueryCreator, SqlBool } from 'kysely';
import type { Database, Executor } from '../database.ts';
import { type Dialect, dialectOf, executeCompiledOnce } from '../dialect.ts';
import { USERS_STAMP } from './card-views.ts';
import { type CardFieldValueRow, fieldValuesOfCards } from './custom-fields.ts';
import { LABEL_COLUMNS } from './labels.ts';

// SQLite's json_object needs the columns named one by one (no selectAll in a JSON subquery).
export const ATTACHMENT_COLUMNS = [
  'a.id',
  'a.company_id',
  'a.team_id',
  'a.card_id',
  'a.checklist_item_id',
  'a.kind',
  'a.name',
  'a.original_name',
  'a.link_url',
  'a.storage_key',
  'a.mime_type',
  'a.size_bytes',
  'a.creator_id',
  'a.is_deleted',
  'a.deleted_at',
  'a.created_at',
  'a.updated_at',
  'a.version',
] as const;

export const CHEER_COLUMNS = [
  'ch.id',
  'ch.company_id',
  'ch.team_id',
  'ch.content',
  'ch.creator_id',
  'ch.receiver_id',
  'ch.primary_type',
  'ch.primary_id',
  'ch.secondary_type',
  'ch.secondary_id',
  'ch.card_id',
  'ch.comment_id',
  'ch.feature_type',
  'ch.is_notified',
  'ch.notification',
  'ch.created_at',
  'ch.updated_at',
  'ch.version',
] as const;

/**
 * Loads cards with everything their API record shows (members, labels, attachments, cheers, seen,
 * checklist and comment ids, checklist counts) in one query, whatever the number of cards, and
 * their custom field values in one more (`fieldValuesOfCards`), read after it.
 * The parts come back as JSON arrays, read by the dialect's `fromJson`.
 */
export async function loadCardRows(db: Executor, cardIds: readonly string[]) {
  if (cardIds.length === 0) return [];
  const dialect = dialectOf(db);
  const rows = cardIds.length === 1 ? await loadOne(db, dialect, cardIds[0] as string) : await loadMany(db, dialect, cardIds);
  return toCardRows(
    dialect,
    rows,
    cardIds,
    await fieldValuesOfCards(
      db,
      rows.map((row) => row.id),
    ),
  );
}

type CardQueryRow = Awaited<ReturnType<ReturnType<typeof cardQuery>['execute']>>[number];

/**
 * Cards' record rows with the stamps a stored view of each is kept under (src/storage/repositories/card-views.ts),
 * read in the same statement, so that the stamps are those of what was read (one snapshot): a change
 * committed meanwhile moved a stamp, and a view stored from this never counts. The custom field
 * values are read after that statement, so they are never older than the stamps: every change of
 * what they show moves the card's `__v` in its own transaction, so values newer than the `__v` read
 * leave a view that never counts either. In the order of `cardIds`; a card that is gone is left out.
 */
export async function loadCardsForView(db: Executor, cardIds: readonly string[]) {
  if (cardIds.length === 0) return [];
  const dialect = dialectOf(db);
  const rows =
    cardIds.length === 1
      ? await executeCompiledOnce(db, 'card for view', (param) => withStamps(cardQuery(db, dialect, (eb) => eb('c.id', '=', param('cardId')))), {
          cardId: cardIds[0] as string,
        })
      : await executeCompiledOnce(db, 'cards for view', (param) => withStamps(cardQuery(db, dialect, () => dialect.inIdList('c.id', param('cardIds')))), {
          cardIds: dialect.idList(cardIds),
        });
  const values = await fieldValuesOfCards(
    db,
    rows.map((row) => row.id),
  );
  return toCardRows(dialect, rows, cardIds, values).map((row) => ({ ...row, labels_stamp: Number(row.labels_stamp), users_stamp: Number(row.users_stamp) }));
}

/** The card query with the stamps of the card's view. */
function withStamps(query: ReturnType<typeof cardQuery>) {
  return query.select((eb) => [
    eb.selectFrom('boards as b').select('b.labels_stamp').whereRef('b.id', '=', 'c.board_id').as('labels_stamp'),
    eb.selectFrom('card_view_stamps as s').select('s.stamp').where('s.name', '=', USERS_STAMP).as('users_stamp'),
  ]);
}

/** The one-card query is compiled once per dialect and reused with the card id as its parameter. */
function loadOne(db: Executor, dialect: Dialect, cardId: string): Promise<CardQueryRow[]> {
  return executeCompiledOnce(db, 'one card', (param) => cardQuery(db, dialect, (eb) => eb('c.id', '=', param('cardId'))), { cardId });
}

/**
 * Any number of cards in one statement whose text does not depend on the number (the ids are one
 * list parameter): prepared once, and on PostgreSQL planned once, where planning this query costs
 * more than running it for a page of cards.
 */
function loadMany(db: Executor, dialect: Dialect, cardIds: readonly string[]): Promise<CardQueryRow[]> {
  return executeCompiledOnce(db, 'cards', (param) => cardQuery(db, dialect, () => dialect.inIdList('c.id', param('cardIds'))), {
    cardIds: dialect.idList(cardIds),
  });
}

function cardQuery(
  db: QueryCreator<Database>,
  dialect: Dialect,
  which: (eb: ExpressionBuilder<Database & { c: Database['cards'] }, 'c'>) => Expression<SqlBool>,
) {
  return db
    .selectFrom('cards as c')
    .selectAll('c')
    .select((eb) => [
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('card_members as m')
            .innerJoin('users as u', 'u.id', 'm.user_id')
            .select(['u.id', 'u.full_name', 'u.photo_url'])
            .whereRef('m.card_id', '=', 'c.id')
            // the card's columns (the user's id is the member row's): its index walks them in order
            .orderBy('m.created_at')
            .orderBy('m.user_id'),
        )
        .as('members_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('card_labels as cl')
            .innerJoin('labels as l', 'l.id', 'cl.label_id')
            .innerJoin('label_colors as lc', 'lc.id', 'l.color_id')
            .select(LABEL_COLUMNS)
            .whereRef('cl.card_id', '=', 'c.id')
            .orderBy('cl.created_at')
            .orderBy('cl.label_id'),
        )
        .as('labels_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('attachments as a')
            .innerJoin('users as u', 'u.id', 'a.creator_id')
            .select([...ATTACHMENT_COLUMNS, 'u.full_name as creator_full_name', 'u.photo_url as creator_photo_url'])
            .whereRef('a.card_id', '=', 'c.id')
            .where('a.checklist_item_id', 'is', null)
            .where('a.is_deleted', '=', 0)
            .orderBy('a.created_at')
            .orderBy('a.id'),
        )
        .as('attachments_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('cheers as ch')
            .innerJoin('users as u', 'u.id', 'ch.creator_id')
            .select([...CHEER_COLUMNS, 'u.photo_url as creator_photo_url'])
            .whereRef('ch.card_id', '=', 'c.id')
            .where('ch.primary_type', 'in', ['card', 'attachment'])
            .orderBy('ch.created_at')
            .orderBy('ch.id'),
        )
        .as('cheers_json'),
      dialect
        .jsonArrayFrom(eb.selectFrom('card_seen as s').select('s.user_id').whereRef('s.card_id', '=', 'c.id').orderBy('s.seen_at').orderBy('s.user_id'))
        .as('seen_json'),
      dialect
        .jsonArrayFrom(
          eb
            .selectFrom('attachment_seen as s')
            .innerJoin('attachments as a', 'a.id', 's.attachment_id')
            .select(['s.attachment_id', 's.user_id'])
            .whereRef('a.card_id', '=', 'c.id')
            .where('a.is_deleted', '=', 0)
            .orderBy('s.seen_at')
            .orderBy('s.user_id'),
        )
        .as('attachment_seen_json'),
      dialect
        .jsonArrayFrom(eb.selectFrom('checklists as k').select('k.id').whereRef('k.card_id', '=', 'c.id').orderBy('k.position').orderBy('k.id'))
        .as('checklists_json'),
      dialect
        .jsonArrayFrom(eb.selectFrom('comments as m').select('m.id').whereRef('m.card_id', '=', 'c.id').orderBy('m.created_at').orderBy('m.id'))
        .as('comments_json'),
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
    ])
    .where(which);
}

function toCardRows<R extends CardQueryRow>(dialect: Dialect, rows: R[], cardIds: readonly string[], fieldValues: ReadonlyMap<string, CardFieldValueRow[]>) {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return cardIds.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        ...row,
        members: dialect.fromJson(row.members_json),
        labels: dialect.fromJson(row.labels_json),
        attachments: dialect.fromJson(row.attachments_json),
        cheers: dialect.fromJson(row.cheers_json),
        seen: dialect.fromJson(row.seen_json).map((s) => s.user_id),
        attachmentSeen: dialect.fromJson(row.attachment_seen_json),
        checklistIds: dialect.fromJson(row.checklists_json).map((k) => k.id),
        commentIds: dialect.fromJson(row.comments_json).map((m) => m.id),
        itemsTotal: Number(row.items_total ?? 0),
        itemsCompleted: Number(row.items_completed ?? 0),
        fieldValues: fieldValues.get(id) ?? [],
      },
    ];
  });
}

export type CardRow = ReturnType<typeof toCardRows<CardQueryRow>>[number];
