/**
 * Board rules, their runs, the rule worker's cursor in the event feed and a board's hourly count of
 * rule actions (migration 0065; src/domain/rules).
 */
import type { Executor, NewRow, Row, RowUpdate, Transaction } from '../database.ts';
import { dialectOf } from '../dialect.ts';
import type { FeedPosition } from '../event-feed.ts';

export type RuleRow = Row<'rules'>;
export type RuleRunRow = Row<'rule_runs'>;

const FEED_ID = 'rules';

export async function insertRule(db: Executor, row: NewRow<'rules'>): Promise<void> {
  await db.insertInto('rules').values(row).execute();
}

export async function findRule(db: Executor, id: string): Promise<RuleRow | undefined> {
  return db.selectFrom('rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateRule(db: Executor, id: string, change: RowUpdate<'rules'>): Promise<void> {
  await db.updateTable('rules').set(change).where('id', '=', id).execute();
}

export async function deleteRule(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('rules').where('id', '=', id).execute();
}

export async function rulesOfBoard(db: Executor, boardId: string): Promise<RuleRow[]> {
  return db.selectFrom('rules').selectAll().where('board_id', '=', boardId).orderBy('created_at').orderBy('id').execute();
}

export async function countRulesOfBoard(db: Executor, boardId: string): Promise<number> {
  const row = await db
    .selectFrom('rules')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('board_id', '=', boardId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The enabled rules of these boards (the boards a page of the feed touched). */
export async function enabledRulesOfBoards(db: Executor, boardIds: readonly string[]): Promise<RuleRow[]> {
  if (!boardIds.length) return [];
  return db.selectFrom('rules').selectAll().where('board_id', 'in', boardIds).where('enabled', '=', 1).orderBy('id').execute();
}

/** The enabled rules whose trigger is a due date. */
export async function enabledDueRules(db: Executor): Promise<RuleRow[]> {
  return db
    .selectFrom('rules')
    .selectAll()
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('trigger', 'like', '{"type":"due.soon"%'), eb('trigger', 'like', '{"type":"due.passed"%')]))
    .execute();
}

/** Open cards of the board whose due date is in [from, to): what a due-date trigger fires for. */
export async function cardsDueBetween(db: Executor, boardId: string, from: string, to: string): Promise<{ id: string; due_date: string }[]> {
  const rows = await db
    .selectFrom('cards')
    .select(['id', 'due_date'])
    .where('board_id', '=', boardId)
    .where('archived', '=', 0)
    .where('deleted_at', 'is', null)
    .where('due_date', '>=', from)
    .where('due_date', '<', to)
    .execute();
  return rows as { id: string; due_date: string }[];
}

/** The rule worker's cursor, locked for the pass (skipped by another instance on PostgreSQL). */
export async function lockRuleFeed(trx: Transaction): Promise<{ position: FeedPosition | null } | undefined> {
  const query = trx.selectFrom('rule_feed').select('position').where('id', '=', FEED_ID);
  return dialectOf(trx).fragments.skipLocked(query).executeTakeFirst();
}

export async function moveRuleFeed(trx: Transaction, position: FeedPosition): Promise<void> {
  await trx.updateTable('rule_feed').set({ position }).where('id', '=', FEED_ID).execute();
}

/** Starts the cursor at `position` if it has not started (the first rule ever is being made). */
export async function startRuleFeed(trx: Transaction, position: FeedPosition): Promise<void> {
  await trx.updateTable('rule_feed').set({ position }).where('id', '=', FEED_ID).where('position', 'is', null).execute();
}

/** Files runs; a run of the same rule and trigger filed before is kept as it is. Answers how many were new. */
export async function fileRuns(trx: Transaction, rows: readonly NewRow<'rule_runs'>[]): Promise<number> {
  if (!rows.length) return 0;
  const result = await trx
    .insertInto('rule_runs')
    .values([...rows])
    .onConflict((oc) => oc.columns(['rule_id', 'trigger_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** The depth of a run (the run whose actions recorded an event carry its id as their request id). */
export async function runDepth(db: Executor, runIds: readonly string[]): Promise<Map<string, number>> {
  if (!runIds.length) return new Map();
  const rows = await db.selectFrom('rule_runs').select(['id', 'depth']).where('id', 'in', runIds).execute();
  return new Map(rows.map((row) => [row.id, Number(row.depth)]));
}

/** Pending runs, oldest first. */
export async function pendingRunIds(db: Executor, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('rule_runs').select('id').where('status', '=', 'pending').orderBy('id').limit(limit).execute();
  return rows.map((row) => row.id);
}

/**
 * The run, locked for this transaction, when it is still pending; another instance's transaction
 * holding it (PostgreSQL) is skipped, not waited for.
 */
export async function lockPendingRun(trx: Transaction, id: string): Promise<RuleRunRow | undefined> {
  const query = trx.selectFrom('rule_runs').selectAll().where('id', '=', id).where('status', '=', 'pending');
  return dialectOf(trx).fragments.skipLocked(query).executeTakeFirst();
}

/** Ends a run that is still pending; answers whether it was. */
export async function finishRun(
  db: Executor,
  id: string,
  end: Pick<RuleRunRow, 'status' | 'reason' | 'actions_taken' | 'changes' | 'finished_at'>,
): Promise<boolean> {
  const result = await db.updateTable('rule_runs').set(end).where('id', '=', id).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A rule's runs, newest first, after the run `before` (exclusive). */
export async function runsOfRule(db: Executor, ruleId: string, before: string | undefined, limit: number): Promise<RuleRunRow[]> {
  let query = db.selectFrom('rule_runs').selectAll().where('rule_id', '=', ruleId);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** Adds `actions` to the board's count of the hour; answers the count with them. */
export async function countBoardActions(trx: Transaction, boardId: string, hour: string, actions: number): Promise<number> {
  await trx
    .insertInto('rule_board_hours')
    .values({ board_id: boardId, hour, actions })
    .onConflict((oc) => oc.columns(['board_id', 'hour']).doUpdateSet((eb) => ({ actions: eb('rule_board_hours.actions', '+', actions) })))
    .execute();
  const row = await trx.selectFrom('rule_board_hours').select('actions').where('board_id', '=', boardId).where('hour', '=', hour).executeTakeFirst();
  return Number(row?.actions ?? actions);
}

export async function pruneBoardHours(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('rule_board_hours').where('hour', '<', before).execute();
}

/** What the conditions of a rule read of a card: its row, labels and members. */
export async function cardState(db: Executor, cardId: string) {
  const card = await db
    .selectFrom('cards')
    .select(['id', 'name', 'list_id', 'board_id', 'due_date', 'archived', 'complete_status', 'position'])
    .where('id', '=', cardId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!card) return undefined;
  const [labels, members] = await Promise.all([
    db.selectFrom('card_labels').select('label_id').where('card_id', '=', cardId).execute(),
    db.selectFrom('card_members').select('user_id').where('card_id', '=', cardId).execute(),
  ]);
  return { ...card, labels: new Set(labels.map((l) => l.label_id)), members: new Set(members.map((m) => m.user_id)) };
}
export type CardState = NonNullable<Awaited<ReturnType<typeof cardState>>>;

/** The open cards of a board with their labels and members, in board order (a dry run). */
export async function openCardStates(db: Executor, boardId: string): Promise<CardState[]> {
  const cards = await db
    .selectFrom('cards')
    .innerJoin('lists', 'lists.id', 'cards.list_id')
    .select(['cards.id', 'cards.name', 'cards.list_id', 'cards.board_id', 'cards.due_date', 'cards.archived', 'cards.complete_status', 'cards.position'])
    .where('cards.board_id', '=', boardId)
    .where('cards.archived', '=', 0)
    .where('cards.deleted_at', 'is', null)
    .orderBy('lists.position')
    .orderBy('cards.position')
    .execute();
  const ids = cards.map((c) => c.id);
  const [labels, members] = ids.length
    ? await Promise.all([
        db.selectFrom('card_labels').select(['card_id', 'label_id']).where('card_id', 'in', ids).execute(),
        db.selectFrom('card_members').select(['card_id', 'user_id']).where('card_id', 'in', ids).execute(),
      ])
    : [[], []];
  return cards.map((card) => ({
    ...card,
    labels: new Set(labels.filter((l) => l.card_id === card.id).map((l) => l.label_id)),
    members: new Set(members.filter((m) => m.card_id === card.id).map((m) => m.user_id)),
  }));
}

/** Whether every item of the checklist is complete (and it has one). */
export async function checklistAllDone(db: Executor, checklistId: string): Promise<boolean> {
  const row = await db
    .selectFrom('checklist_items')
    .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.sum<number | string>('complete_status').as('done')])
    .where('checklist_id', '=', checklistId)
    .executeTakeFirst();
  return Number(row?.total ?? 0) > 0 && Number(row?.done ?? 0) === Number(row?.total);
}

export async function commentContents(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('comments').select(['id', 'content']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.content]));
}

/** The caller of a rule's author as it is now: the roles and teams that give its reach. */
export async function authorReach(db: Executor, userId: string) {
  const [companies, teams] = await Promise.all([
    db.selectFrom('company_members').select(['company_id', 'role']).where('user_id', '=', userId).execute(),
    db.selectFrom('team_members').select('team_id').where('user_id', '=', userId).execute(),
  ]);
  return { companies, teams: teams.map((t) => t.team_id) };
}

/** The names of these users (a dry run's words). */
export async function userNames(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'full_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.full_name]));
}
