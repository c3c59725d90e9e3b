import { type Expression, type QueryCreator, type SqlBool, sql } from 'kysely';
import type { Database, Executor, Flag, NewRow, Row, RowUpdate, Transaction } from '../database.ts';
import { dialectOf, executeCompiled, executeCompiledOnce, type Param } from '../dialect.ts';
import { viewBodyThatCounts, viewThatCounts } from './card-views.ts';
import { pastKey } from './order.ts';

export type CardTableRow = Row<'cards'>;

/**
 * Rows kept with a card (`column` names their card id) whose card is not marked deleted: what is
 * under a deleted list or board is hidden from the moment it is marked, before the sweep removes it.
 */
export function liveCard(column: string): Expression<SqlBool> {
  return sql<SqlBool>`not exists (select 1 from cards as dc where dc.id = ${sql.ref(column)} and dc.deleted_at is not null)`;
}

export async function findCard(db: Executor, id: string): Promise<CardTableRow | undefined> {
  return db.selectFrom('cards').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** The cards' rows by id, in one query; an unknown id has no entry. */
export async function findCardsById(db: Executor, ids: readonly string[]): Promise<Map<string, CardTableRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('cards').selectAll().where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export async function insertCard(db: Transaction, row: NewRow<'cards'>): Promise<void> {
  await db.insertInto('cards').values(row).execute();
}

/**
 * The card's row under its lock (step 2 of the lock rule in src/domain/access/access.ts): on
 * PostgreSQL a row lock held until the transaction ends, so concurrent changes of one card apply one
 * after another; SQLite runs one write transaction at a time already. Undefined when there is no
 * live card. The domain reaches it only through its access module and change recorder.
 */
export async function lockCard(db: Transaction, id: string): Promise<CardTableRow | undefined> {
  const { fragments } = dialectOf(db);
  const [row] = await executeCompiledOnce(
    db,
    'lock card',
    (param) => fragments.lockForChange(db.selectFrom('cards').selectAll().where('id', '=', param('id')).where('deleted_at', 'is', null)),
    { id },
  );
  return row;
}

/**
 * Records one change to a card: `__v` + 1 and `updatedAt`. The domain calls it only through its
 * card change recorder (src/domain/cards/recorder.ts), holding the card's lock.
 */
export async function recordCardChange(db: Transaction, id: string, at: string): Promise<void> {
  const dialect = dialectOf(db);
  const change = dialect.parameterizedOnce(
    'record card change',
    (param) =>
      db
        .updateTable('cards')
        .set((eb) => ({ version: eb('version', '+', 1), updated_at: param('at') }))
        .where('id', '=', param('id'))
        // a card marked deleted with its list or board is gone for every request
        .where('deleted_at', 'is', null),
    { id, at },
  );
  // nobody reads its answer: it goes out with what the transaction runs next
  await executeCompiled(db, dialect.sentWithNext(change));
}

/** Where a card is: what its events are filed under. */
export interface CardPlace {
  id: string;
  company_id: string;
  team_id: string;
  board_id: string;
  list_id: string;
}

/**
 * Serialises placements in one list: a no-op update takes the list's row lock on PostgreSQL until the
 * transaction ends (SQLite runs one write transaction at a time already), so two requests never give
 * two cards the same position. Taken before any card's lock (src/domain/access/access.ts).
 */
export async function lockList(db: Transaction, listId: string): Promise<boolean> {
  const result = await db
    .updateTable('lists')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', listId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  // false: the list was deleted after it was read (nothing may be placed in it any more)
  return result.numUpdatedRows > 0n;
}

/**
 * Takes the cards' row locks (`lockCard`) without counting a change (a copy reads its source whole,
 * and must not see it half changed), in id order so that two requests never wait on each other in a
 * circle. Answers the live cards' rows under their locks (a card gone, or marked deleted, while it
 * waited has none).
 */
export async function lockCards(db: Transaction, cardIds: readonly string[]): Promise<Map<string, CardTableRow>> {
  const locked = new Map<string, CardTableRow>();
  for (const id of [...new Set(cardIds)].sort()) {
    const card = await lockCard(db, id);
    if (card) locked.set(id, card);
  }
  return locked;
}

/** The position of the list's last card, archived or not, leaving out `except`; undefined when none. */
export async function lastCardPosition(db: Executor, listId: string, except: readonly string[] = []): Promise<number | undefined> {
  let query = db
    .selectFrom('cards')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('list_id', '=', listId);
  if (except.length > 0) query = query.where('id', 'not in', except);
  const row = await query.executeTakeFirst();
  return row?.last ?? undefined;
}

/**
 * Gives cards of the list new positions (a renumbering), each a change of that card (`__v` + 1,
 * `updatedAt`). A card that left the list meanwhile keeps the position its new list gave it.
 */
export async function renumberCards(db: Transaction, listId: string, moves: readonly { id: string; position: number }[], at: string): Promise<CardPlace[]> {
  const renumbered: CardPlace[] = [];
  for (const move of moves) {
    const place = await db
      .updateTable('cards')
      .set((eb) => ({ position: move.position, version: eb('version', '+', 1), updated_at: at }))
      .where('id', '=', move.id)
      .where('list_id', '=', listId)
      .returning(['id', 'company_id', 'team_id', 'board_id', 'list_id'])
      .executeTakeFirst();
    if (place) renumbered.push(place);
  }
  return renumbered;
}

/**
 * What Get Card Details reads of the card (see `findCardSeenBy`): what reach is decided on, no more
 * (a stored view answers the rest; each column more costs its parsing on every read).
 */
export type CardSeenRow = Pick<CardTableRow, 'id' | 'company_id' | 'team_id' | 'version'> & {
  /** 1 when the user has seen the card. */
  seen_by: number;
  /** The card's stored view while it counts (its stamps are the card's, board's and users' now), else null. */
  view_form: string | null;
  view_body: string | null;
};

/**
 * The card's reach columns (id, company, team) with whether `userId` has seen it and its stored view while that counts, in one
 * indexed query: what Get Card Details needs to decide reach, to record a first view and to answer
 * the stored view (src/storage/repositories/card-views.ts) without building the record.
 */
export async function findCardSeenBy(db: Executor, id: string, userId: string): Promise<CardSeenRow | undefined> {
  const [row] = await executeCompiledOnce(
    db,
    'card seen by',
    (param) =>
      db
        .selectFrom('cards')
        .leftJoin('card_views as v', (join) => join.on(viewThatCounts('cards')))
        .select(['cards.id', 'cards.company_id', 'cards.team_id', 'cards.version'])
        .select((eb) => [
          eb
            .exists(
              eb
                .selectFrom('card_seen')
                .select('card_seen.user_id')
                .whereRef('card_seen.card_id', '=', 'cards.id')
                .where('card_seen.user_id', '=', param('userId')),
            )
            .as('seen_by'),
          'v.form as view_form',
          'v.body as view_body',
        ])
        .where('cards.id', '=', param('id'))
        .where('cards.deleted_at', 'is', null),
    { id, userId },
  );
  return row && { ...row, seen_by: Number(row.seen_by) };
}

/** Adds the user to the card's `seen`; false when it was there already. */
export async function addSeen(db: Transaction, cardId: string, userId: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('card_seen')
    .values({ card_id: cardId, user_id: userId, seen_at: at })
    .onConflict((oc) => oc.columns(['card_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function cardLabelIds(db: Executor, cardId: string): Promise<string[]> {
  const rows = await db.selectFrom('card_labels').select('label_id').where('card_id', '=', cardId).execute();
  return rows.map((r) => r.label_id);
}

/**
 * Toggles on the card each of `labelIds` that is a label of its board (added if the card lacks it,
 * removed if it has it) and answers which of them are labels of the board, each with whether the
 * card had it before. Ids that are no label of the board are left alone, for the caller to refuse
 * (rolling the transaction back). Where WITH may write (PostgreSQL) it is one statement, so the
 * card's lock is held for one round trip fewer; elsewhere a read, then the writes.
 */
export async function toggleBoardLabels(
  db: Transaction,
  card: { id: string; board_id: string },
  labelIds: readonly string[],
  at: string,
): Promise<Map<string, boolean>> {
  if (labelIds.length === 0) return new Map();
  const dialect = dialectOf(db);
  const values = { boardId: card.board_id, cardId: card.id, labelIds: dialect.idList(labelIds), at };
  if (dialect.fragments.writesInWith) {
    const rows = await executeCompiledOnce(
      db,
      'toggle board labels',
      (param) => {
        type Asked = QueryCreator<Database & { asked: { id: string; on_card: boolean } }>;
        const asked = (qc: Asked, onCard: boolean) => qc.selectFrom('asked').where('asked.on_card', '=', onCard);
        return db
          .with('asked', () => boardLabelsOnCardQuery(db, param))
          .with('removed', (qc) =>
            qc
              .deleteFrom('card_labels')
              .where('card_id', '=', param('cardId'))
              .where('label_id', 'in', asked(qc, true).select('asked.id'))
              .returning('label_id'),
          )
          .with('added', (qc) =>
            qc
              .insertInto('card_labels')
              .columns(['card_id', 'label_id', 'created_at'])
              .expression(asked(qc, false).select([sql<string>`${param('cardId')}`.as('card_id'), 'asked.id', sql<string>`${param('at')}`.as('created_at')]))
              .returning('label_id'),
          )
          .selectFrom('asked')
          .select(['asked.id', 'asked.on_card']);
      },
      values,
    );
    return new Map(rows.map((row) => [row.id, Boolean(row.on_card)]));
  }
  const rows = await executeCompiledOnce(db, 'board labels on card', (param) => boardLabelsOnCardQuery(db, param), values);
  const onBoard = new Map(rows.map((row) => [row.id, Boolean(row.on_card)]));
  for (const labelId of labelIds) {
    if (onBoard.get(labelId) !== false) continue;
    await executeCompiledOnce(
      db,
      'add card label',
      (param) => db.insertInto('card_labels').values({ card_id: param('cardId'), label_id: param('labelId'), created_at: param('at') }),
      { cardId: card.id, labelId, at },
    );
  }
  await removeCardLabels(
    db,
    card.id,
    labelIds.filter((id) => onBoard.get(id)),
  );
  return onBoard;
}

/** Which of the ids are labels of the board, each with whether the card has it. */
function boardLabelsOnCardQuery(db: Executor, param: Param<{ boardId: string; cardId: string; labelIds: unknown; at: string }>) {
  return db
    .selectFrom('labels as l')
    .select((eb) => [
      'l.id',
      eb
        .exists(eb.selectFrom('card_labels as cl').select('cl.label_id').where('cl.card_id', '=', param('cardId')).whereRef('cl.label_id', '=', 'l.id'))
        .as('on_card'),
    ])
    .where('l.board_id', '=', param('boardId'))
    .where(dialectOf(db).inIdList('l.id', param('labelIds')));
}

/** Takes `labelIds` off the card, in one statement compiled once (whatever the number of ids). */
export async function removeCardLabels(db: Transaction, cardId: string, labelIds: readonly string[]): Promise<void> {
  if (labelIds.length === 0) return;
  const dialect = dialectOf(db);
  await executeCompiledOnce(
    db,
    'remove card labels',
    (param) =>
      db
        .deleteFrom('card_labels')
        .where('card_id', '=', param('cardId'))
        .where(dialect.inIdList('label_id', param('labelIds'))),
    { cardId, labelIds: dialect.idList(labelIds) },
  );
}

/** Writes card columns (Update Card, archive); the card's `__v` is recordCardChange's business. */
export async function setCardColumns(db: Transaction, id: string, change: RowUpdate<'cards'>): Promise<void> {
  await db.updateTable('cards').set(change).where('id', '=', id).execute();
}

/**
 * Positions of the list's archived (or unarchived) cards in order, optionally leaving out the card
 * being placed: an index in a request counts the cards the client sees together.
 */
export async function cardPositionsInListByState(
  db: Executor,
  listId: string,
  archived: boolean,
  except?: string,
): Promise<{ id: string; position: number }[]> {
  let query = db
    .selectFrom('cards')
    .select(['id', 'position'])
    .where('list_id', '=', listId)
    .where('archived', '=', archived ? 1 : 0);
  if (except) query = query.where('id', '!=', except);
  return query.orderBy('position').orderBy('id').execute();
}

/** Where a page of a list's cards starts: strictly after this card's place. */
export interface ListCardsAfter {
  position: number;
  cardId: string;
}

/** A card of a page: its id and place, and its stored view while that counts (else null). */
export interface CardRef {
  id: string;
  position: number;
  view_body: string | null;
}

/**
 * Ids and positions of the list's archived (or unarchived) cards in position order, after `after`,
 * each with its stored view of `form` that counts (src/storage/repositories/card-views.ts), in one query.
 */
export async function listCardRefs(
  db: Executor,
  listId: string,
  archived: boolean,
  after: ListCardsAfter | undefined,
  take: number,
  form: string,
): Promise<CardRef[]> {
  return executeCompiledOnce(
    db,
    after ? 'list card refs after' : 'list card refs',
    (param) => {
      let query = db
        .selectFrom('cards as c')
        .select(['c.id', 'c.position', viewBodyThatCounts('c', param('form')).as('view_body')])
        .where('c.list_id', '=', param('listId'))
        .where('c.archived', '=', param('archived'));
      if (after) {
        query = query.where(pastKey(['c.position', 'c.id'], [param('afterPosition'), param('afterId')]));
      }
      return query.orderBy('c.position').orderBy('c.id').limit(param('take'));
    },
    { listId, archived: (archived ? 1 : 0) as Flag, afterPosition: after?.position, afterId: after?.cardId, take, form },
  );
}
