/**
 * Board rules, as their editors manage them (docs/api.md, "Rules"): made, read, changed and deleted
 * by whoever reaches the board; their runs' history; a dry run against the board's open cards. The
 * runner that runs them is ./runner.ts.
 */
import type { DryRunBody, Rule, RuleAction, RuleCondition, RuleDefinition, RuleRun, RuleTrigger, UpdateRuleBody } from '../../schemas/rules.ts';
import type { Executor, Transaction } from '../../storage/database.ts';
import { lockBoard } from '../../storage/repositories/boards.ts';
import { feedEnd } from '../../storage/repositories/events.ts';
import { findLabelsOfBoard } from '../../storage/repositories/labels.ts';
import { findListsOfBoard } from '../../storage/repositories/lists.ts';
import * as rules from '../../storage/repositories/rules.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, changedFields, recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { isId, newId, nowIso } from '../shared/ids.ts';
import { decodeCursor, type Page, toPage } from '../shared/pagination.ts';
import { inTransaction } from '../shared/transaction.ts';
import { conditionsHold, toRule, wouldChange } from './definition.ts';

/** Rules one board may hold, enabled or not. */
export const MAX_RULES_PER_BOARD = 100;

/** The ids a rule names that must be of its board: lists and labels, with the request field each came from. */
function boardReferences(trigger: RuleTrigger | undefined, conditions: readonly RuleCondition[] | undefined, actions: readonly RuleAction[] | undefined) {
  const lists: [string, string][] = [];
  const labels: [string, string][] = [];
  if (trigger && 'list' in trigger && trigger.list) lists.push([trigger.list, 'body.trigger.list']);
  if (trigger && 'label' in trigger && trigger.label) labels.push([trigger.label, 'body.trigger.label']);
  (conditions ?? []).forEach((c, i) => {
    if (c.type === 'list') lists.push([c.list, `body.conditions[${i}].list`]);
    if (c.type === 'label') labels.push([c.label, `body.conditions[${i}].label`]);
  });
  (actions ?? []).forEach((a, i) => {
    if (a.type === 'move') lists.push([a.list, `body.actions[${i}].list`]);
    if (a.type === 'labels.add' || a.type === 'labels.remove' || a.type === 'labels.toggle') {
      a.labels.forEach((label, j) => labels.push([label, `body.actions[${i}].labels[${j}]`]));
    }
  });
  return { lists, labels };
}

/** A 400 naming every list or label of the rule that is not of the board, and every list to create cards in out of the caller's reach. */
async function checkReferences(db: Executor, caller: Caller, boardId: string, body: Partial<RuleDefinition>): Promise<void> {
  const { lists, labels } = boardReferences(body.trigger, body.conditions, body.actions);
  const boardLists = new Set((await findListsOfBoard(db, boardId)).map((l) => l.id));
  const boardLabels = new Set((await findLabelsOfBoard(db, boardId)).map((l) => l.id));
  const details = [
    ...lists.filter(([id]) => !boardLists.has(id)).map(([, field]) => ({ field, message: 'is no list of the board' })),
    ...labels.filter(([id]) => !boardLabels.has(id)).map(([, field]) => ({ field, message: 'is no label of the board' })),
  ];
  for (const [i, action] of (body.actions ?? []).entries()) {
    if (action.type !== 'card.create') continue;
    try {
      await requireAccess(db, caller, { kind: 'list', id: action.list });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      details.push({ field: `body.actions[${i}].list`, message: 'is no list you reach' });
    }
  }
  if (details.length) throw new ValidationError(`The rule names what is not on its board: ${details.map((d) => d.field).join(', ')}`, details);
}

function ruleSubject(row: rules.RuleRow) {
  return boardSubject({ company_id: row.company_id, team_id: row.team_id, id: row.board_id });
}

export async function createRule(ctx: ServiceContext, caller: Caller, boardId: string, body: RuleDefinition): Promise<Rule> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  await checkReferences(ctx.db, caller, board.id, body);
  const id = newId();
  return inTransaction(ctx, async (trx) => {
    // one create per board at a time, so that parallel creates cannot all pass the count
    if (!(await lockBoard(trx, board.id))) throw new NotFoundError('Board');
    if ((await rules.countRulesOfBoard(trx, board.id)) >= MAX_RULES_PER_BOARD) {
      throw new ConflictError(`A board holds at most ${MAX_RULES_PER_BOARD} rules; delete one first`);
    }
    const at = nowIso();
    const row: rules.RuleRow = {
      id,
      company_id: board.company_id,
      team_id: board.team_id,
      board_id: board.id,
      name: body.name.trim(),
      trigger: JSON.stringify(body.trigger),
      conditions: JSON.stringify(body.conditions ?? []),
      actions: JSON.stringify(body.actions),
      enabled: body.enabled === false ? 0 : 1,
      paused_reason: null,
      author_id: caller.userId,
      created_at: at,
      updated_at: at,
      version: 0,
    };
    await rules.insertRule(trx, row);
    // the rule worker reads the feed from here on, if no pass of it has started it yet
    await rules.startRuleFeed(trx, await feedEnd(trx));
    recordEvent(trx, caller, 'rule.created', ruleSubject(row), { rule: id, name: row.name }, at);
    return toRule(row);
  });
}

/** The rule, once the access module says the caller reaches its board; else a 404. */
async function ruleFor(db: Executor, caller: Caller, ruleId: string): Promise<rules.RuleRow> {
  const row = await rules.findRule(db, ruleId);
  if (!row) throw new NotFoundError('Rule');
  await requireAccess(db, caller, { kind: 'board', id: row.board_id, what: 'Rule' });
  return row;
}

export async function listRules(ctx: ServiceContext, caller: Caller, boardId: string): Promise<Rule[]> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  return (await rules.rulesOfBoard(ctx.db, board.id)).map(toRule);
}

export async function getRule(ctx: ServiceContext, caller: Caller, ruleId: string): Promise<Rule> {
  return toRule(await ruleFor(ctx.db, caller, ruleId));
}

/**
 * Changes a rule; whoever saves it becomes its author (the rule acts with the reach of the last
 * person who vouched for it). Enabling clears the reason of a pause. Past runs keep what they did.
 */
export async function updateRule(ctx: ServiceContext, caller: Caller, ruleId: string, body: UpdateRuleBody): Promise<Rule> {
  const before = await ruleFor(ctx.db, caller, ruleId);
  await checkReferences(ctx.db, caller, before.board_id, body);
  return inTransaction(ctx, async (trx: Transaction) => {
    const row = await ruleFor(trx, caller, ruleId);
    const at = nowIso();
    const next: rules.RuleRow = {
      ...row,
      name: body.name?.trim() ?? row.name,
      trigger: body.trigger ? JSON.stringify(body.trigger) : row.trigger,
      conditions: body.conditions ? JSON.stringify(body.conditions) : row.conditions,
      actions: body.actions ? JSON.stringify(body.actions) : row.actions,
      enabled: body.enabled === undefined ? row.enabled : body.enabled ? 1 : 0,
      paused_reason: body.enabled === true ? null : row.paused_reason,
      author_id: caller.userId,
      updated_at: at,
      version: Number(row.version) + 1,
    };
    await rules.updateRule(trx, row.id, next);
    const { fields } = changedFields(toRule(row) as unknown as Record<string, unknown>, {
      name: next.name,
      enabled: Boolean(next.enabled),
      pausedReason: next.paused_reason,
      author: next.author_id,
    });
    const changed = [...fields, ...(['trigger', 'conditions', 'actions'] as const).filter((key) => body[key] !== undefined)];
    recordEvent(trx, caller, 'rule.updated', ruleSubject(row), { rule: row.id, name: next.name, fields: changed }, at);
    return toRule(next);
  });
}

export async function deleteRule(ctx: ServiceContext, caller: Caller, ruleId: string): Promise<Rule> {
  return inTransaction(ctx, async (trx) => {
    const row = await ruleFor(trx, caller, ruleId);
    await rules.deleteRule(trx, row.id);
    recordEvent(trx, caller, 'rule.deleted', ruleSubject(row), { rule: row.id, name: row.name });
    return toRule(row);
  });
}

function toRun(row: rules.RuleRunRow): RuleRun {
  return {
    _id: row.id,
    rule: row.rule_id,
    board: row.board_id,
    event: row.event_id,
    card: row.card_id,
    depth: Number(row.depth),
    status: row.status,
    reason: row.reason,
    actionsTaken: Number(row.actions_taken),
    changes: JSON.parse(row.changes) as Record<string, unknown>[],
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** A rule's runs, newest first. */
export async function listRuns(
  ctx: ServiceContext,
  caller: Caller,
  ruleId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Page<RuleRun>> {
  const rule = await ruleFor(ctx.db, caller, ruleId);
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor, isId);
  const rows = await rules.runsOfRule(ctx.db, rule.id, before, page.limit + 1);
  const { items, nextCursor } = toPage(rows, page.limit, (row) => row.id);
  return { items: items.map(toRun), nextCursor };
}

/**
 * What the conditions and actions would do to each open card of the board, now, without doing it.
 * The trigger is not asked (no change is happening): every card whose conditions hold is shown.
 */
export async function dryRun(ctx: ServiceContext, caller: Caller, boardId: string, body: DryRunBody) {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  await checkReferences(ctx.db, caller, board.id, body);
  const [cards, lists, labels] = await Promise.all([
    rules.openCardStates(ctx.db, board.id),
    findListsOfBoard(ctx.db, board.id),
    findLabelsOfBoard(ctx.db, board.id),
  ]);
  const userIds = [...new Set([...cards.flatMap((c) => [...c.members]), ...body.actions.flatMap((a) => ('users' in a ? a.users : []))])];
  const users = await rules.userNames(ctx.db, userIds);
  const listNames = new Map(lists.map((l) => [l.id, l.name]));
  const labelNames = new Map(labels.map((l) => [l.id, l.name]));
  const names = {
    list: (id: string) => `“${listNames.get(id) ?? 'another list'}”`,
    label: (id: string) => `“${labelNames.get(id) ?? id}”`,
    user: (id: string) => users.get(id) ?? id,
  };
  const now = ctx.clock.now();
  const matching = cards.filter((card) => conditionsHold(body.conditions ?? [], card));
  return {
    cards: matching.map((card) => ({ card: card.id, name: card.name, changes: wouldChange(body.actions, card, names, now) })),
    unchanged: cards.length - matching.length,
  };
}
