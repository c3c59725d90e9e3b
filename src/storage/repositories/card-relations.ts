/**
 * Card relations (docs/decisions/0291): rows of `from` kind `to` between cards of one company, the
 * company's relation graph lock, and the walk along "blocks" that keeps that graph free of cycles.
 */
import { sql } from 'kysely';
import type { Executor, NewRow, Row, Transaction } from '../database.ts';
import { dialectOf } from '../dialect.ts';

export type CardRelationRow = Row<'card_relations'>;
export type RelationKind = CardRelationRow['kind'];

/** What a relation shows of a card at its other end: enough to name it and say whether it is open. */
export interface RelatedCardRow {
  id: string;
  name: string;
  company_id: string;
  team_id: string;
  board_id: string;
  board_name: string;
  list_id: string;
  list_name: string;
  complete_status: number;
  archived: number;
}

/**
 * Serialises, until the transaction ends, every writer of the company's relations that could close a
 * cycle of "blocks": two requests that each add one edge of the same cycle queue here, and the second
 * sees the first's edge. PostgreSQL: an advisory lock; SQLite: one transaction at a time already.
 */
export async function lockRelationGraph(trx: Transaction, companyId: string): Promise<void> {
  await dialectOf(trx).locks.lockInTransaction(trx, `card-relations:${companyId}`);
}

export async function insertRelation(trx: Transaction, row: NewRow<'card_relations'>): Promise<void> {
  await trx.insertInto('card_relations').values(row).execute();
}

export async function deleteRelation(trx: Transaction, id: string): Promise<void> {
  await trx.deleteFrom('card_relations').where('id', '=', id).execute();
}

export function findRelation(db: Executor, id: string): Promise<CardRelationRow | undefined> {
  return db.selectFrom('card_relations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findRelationBetween(db: Executor, from: string, kind: RelationKind, to: string): Promise<CardRelationRow | undefined> {
  return db.selectFrom('card_relations').selectAll().where('from_card_id', '=', from).where('kind', '=', kind).where('to_card_id', '=', to).executeTakeFirst();
}

/** Whether `to` can be reached from `from` along "blocks" (so a new `to` blocks `from` would close a cycle). */
export async function blocksPathExists(db: Executor, from: string, to: string): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`
    with recursive ahead(id) as (
      select to_card_id from card_relations where from_card_id = ${from} and kind = 'blocks'
      union
      select r.to_card_id from card_relations r join ahead a on r.from_card_id = a.id where r.kind = 'blocks'
    )
    select 1 as found from ahead where id = ${to} limit 1`.execute(db);
  return rows.length > 0;
}

/** Every relation with the card at either end. */
export function relationsOfCard(db: Executor, cardId: string): Promise<CardRelationRow[]> {
  return db
    .selectFrom('card_relations')
    .selectAll()
    .where((eb) => eb.or([eb('from_card_id', '=', cardId), eb('to_card_id', '=', cardId)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Every relation with a card of the board at either end. */
export function relationsOfBoard(db: Executor, boardId: string): Promise<CardRelationRow[]> {
  return db
    .selectFrom('card_relations as r')
    .selectAll('r')
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('cards as c').select('c.id').whereRef('c.id', '=', 'r.from_card_id').where('c.board_id', '=', boardId)),
        eb.exists(eb.selectFrom('cards as c').select('c.id').whereRef('c.id', '=', 'r.to_card_id').where('c.board_id', '=', boardId)),
      ]),
    )
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
}

/** The cards (not marked deleted) by id, with their board's and list's names. */
export async function relatedCards(db: Executor, ids: readonly string[]): Promise<Map<string, RelatedCardRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .innerJoin('lists as l', 'l.id', 'c.list_id')
    .select([
      'c.id',
      'c.name',
      'c.company_id',
      'c.team_id',
      'c.board_id',
      'b.name as board_name',
      'c.list_id',
      'l.name as list_name',
      'c.complete_status',
      'c.archived',
    ])
    .where('c.id', 'in', [...new Set(ids)])
    .where('c.deleted_at', 'is', null)
    .execute();
  return new Map(rows.map((row) => [row.id, { ...row, complete_status: Number(row.complete_status), archived: Number(row.archived) }]));
}

/** The relations of the cards, with the card at the other end: what deleting the cards takes away from those. */
export function relationsTouching(db: Executor, cardIds: readonly string[]): Promise<CardRelationRow[]> {
  if (cardIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('card_relations')
    .selectAll()
    .where((eb) => eb.or([eb('from_card_id', 'in', cardIds), eb('to_card_id', 'in', cardIds)]))
    .execute();
}
