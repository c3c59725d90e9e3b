/**
 * Board templates kept on a team (docs/decisions/0303-board-templates.md): made from a board as a
 * snapshot of its lists, labels, custom fields and rules, read by the team's members, and made into
 * new boards of the team, each in one transaction with the events of everything it creates.
 */
import type {
  BoardTemplate,
  BoardTemplateContent,
  CreateBoardFromTemplateBody,
  MakeBoardTemplateBody,
  UpdateBoardTemplateBody,
} from '../../schemas/board-templates.ts';
import type { Board } from '../../schemas/records.ts';
import type { RuleAction, RuleCondition, RuleTrigger } from '../../schemas/rules.ts';
import type { Executor } from '../../storage/database.ts';
import * as templates from '../../storage/repositories/board-templates.ts';
import { insertBoard } from '../../storage/repositories/boards.ts';
import * as fields from '../../storage/repositories/custom-fields.ts';
import { feedEnd } from '../../storage/repositories/events.ts';
import { findLabelsOfBoard, insertLabel } from '../../storage/repositories/labels.ts';
import { findListsOfBoard, insertList } from '../../storage/repositories/lists.ts';
import { insertRule, rulesOfBoard, startRuleFeed } from '../../storage/repositories/rules.ts';
import { lockTeam } from '../../storage/repositories/teams.ts';
import { requireAccess } from '../access/access.ts';
import { toBoard } from '../boards/records.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, changedFields, type EventSubject, recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import { newId, newOrderedId, nowIso } from '../shared/ids.ts';
import { POSITION_STEP } from '../shared/positions.ts';
import { LIVE, newMade, onBoard } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';

/** Board templates one team may keep. */
export const MAX_BOARD_TEMPLATES_PER_TEAM = 100;

type TemplateRule = BoardTemplateContent['rules'][number];

/** A rule of a board's template, or why it cannot be one. */
export interface LeftOutRule {
  name: string;
  why: 'list' | 'label' | 'unreached';
  reason: string;
}

const REASONS = {
  list: 'it names a list the board no longer shows',
  label: 'it names a label the board no longer has',
  unreached: 'it creates cards in a list you do not reach',
} as const;

export function toBoardTemplate(row: templates.BoardTemplateRow): BoardTemplate {
  return {
    _id: row.id,
    company: row.company_id,
    team: row.team_id,
    name: row.name,
    description: row.description,
    sourceBoard: row.source_board_id,
    content: JSON.parse(row.content) as BoardTemplateContent,
    creator: row.creator_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    __v: Number(row.version),
  };
}

const teamSubject = (row: { company_id: string; team_id: string }): EventSubject => ({ company: row.company_id, team: row.team_id });

/**
 * The rule with the lists and labels of its board named anew: `lists` and `labels` map each id the
 * rule may name to the id it becomes. A list a card is created in that `lists` does not hold is a
 * list elsewhere, kept as it is (`elsewhere` names them); any other id it does not hold leaves the
 * rule out, with what it named.
 */
export function relinkRule(
  rule: TemplateRule,
  lists: ReadonlyMap<string, string>,
  labels: ReadonlyMap<string, string>,
): { rule: TemplateRule; elsewhere: string[] } | { why: 'list' | 'label' } {
  let missing: 'list' | 'label' | undefined;
  const relinked = (ids: ReadonlyMap<string, string>, kind: 'list' | 'label') => (id: string) => {
    const mapped = ids.get(id);
    if (mapped === undefined) missing ??= kind;
    return mapped ?? id;
  };
  const list = relinked(lists, 'list');
  const label = relinked(labels, 'label');
  const elsewhere: string[] = [];
  const trigger = { ...rule.trigger } as RuleTrigger;
  if ('list' in trigger && trigger.list !== undefined) trigger.list = list(trigger.list);
  if ('label' in trigger && trigger.label !== undefined) trigger.label = label(trigger.label);
  const conditions = rule.conditions.map((condition): RuleCondition => {
    if (condition.type === 'list') return { ...condition, list: list(condition.list) };
    if (condition.type === 'label') return { ...condition, label: label(condition.label) };
    return condition;
  });
  const actions = rule.actions.map((action): RuleAction => {
    switch (action.type) {
      case 'move':
        return { ...action, list: list(action.list) };
      case 'labels.add':
      case 'labels.remove':
      case 'labels.toggle':
        return { ...action, labels: action.labels.map(label) };
      case 'card.create': {
        const mapped = lists.get(action.list);
        if (mapped === undefined) elsewhere.push(action.list);
        return { ...action, list: mapped ?? action.list };
      }
      default:
        return action;
    }
  });
  if (missing) return { why: missing };
  return { rule: { ...rule, trigger, conditions, actions }, elsewhere };
}

/** What a template of the board holds, read as the board is now, and the rules it cannot hold. */
async function snapshotOf(db: Executor, boardId: string): Promise<{ content: BoardTemplateContent; leftOut: LeftOutRule[] }> {
  // one after another: inside a transaction they share its one connection
  const lists = await findListsOfBoard(db, boardId, false);
  const labels = await findLabelsOfBoard(db, boardId);
  const fieldRows = await fields.findCustomFieldsOfBoard(db, boardId);
  const rules = await rulesOfBoard(db, boardId);
  const options = await fields.findOptionsOfFields(
    db,
    fieldRows.map((row) => row.id),
  );
  const same = (ids: string[]) => new Map(ids.map((id) => [id, id]));
  const listKeys = same(lists.map((row) => row.id));
  const labelKeys = same(labels.map((row) => row.id));
  const leftOut: LeftOutRule[] = [];
  const kept: TemplateRule[] = [];
  for (const row of rules) {
    const rule: TemplateRule = {
      name: row.name,
      trigger: JSON.parse(row.trigger) as RuleTrigger,
      conditions: JSON.parse(row.conditions) as RuleCondition[],
      actions: JSON.parse(row.actions) as RuleAction[],
      enabled: Boolean(Number(row.enabled)),
    };
    const relinked = relinkRule(rule, listKeys, labelKeys);
    if ('why' in relinked) leftOut.push({ name: row.name, why: relinked.why, reason: REASONS[relinked.why] });
    else kept.push(relinked.rule);
  }
  return {
    content: {
      lists: lists.map((row) => ({ key: row.id, name: row.name })),
      labels: labels.map((row) => ({ key: row.id, name: row.name, color: row.color_id })),
      customFields: fieldRows.map((row) => ({
        name: row.name,
        type: row.type as BoardTemplateContent['customFields'][number]['type'],
        unit: row.unit,
        showOnCard: Boolean(Number(row.show_on_card)),
        options: options.filter((option) => option.field_id === row.id).map((option) => ({ name: option.name, color: option.color_id })),
      })),
      rules: kept,
    },
    leftOut,
  };
}

/**
 * Make a template from this board: a snapshot of its open lists, its labels, fields and rules, kept
 * on the board's team. A rule naming a list that is archived is left out (the template has no such
 * list); at most MAX_BOARD_TEMPLATES_PER_TEAM per team (409).
 */
export async function makeBoardTemplate(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  body: MakeBoardTemplateBody,
): Promise<{ template: BoardTemplate; leftOut: { rules: LeftOutRule[] } }> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  return inTransaction(ctx, async (trx) => {
    // one template made per team at a time, so that parallel ones cannot all pass the count
    await lockTeam(trx, board.team_id);
    if ((await templates.countBoardTemplatesOfTeam(trx, board.team_id)) >= MAX_BOARD_TEMPLATES_PER_TEAM) {
      throw new ConflictError(`A team keeps at most ${MAX_BOARD_TEMPLATES_PER_TEAM} board templates; delete one first`);
    }
    const { content, leftOut } = await snapshotOf(trx, board.id);
    const at = nowIso();
    const row: templates.BoardTemplateRow = {
      id: newId(),
      company_id: board.company_id,
      team_id: board.team_id,
      name: (body.name ?? board.name).trim(),
      description: body.description ?? '',
      content: JSON.stringify(content),
      source_board_id: board.id,
      creator_id: caller.userId,
      created_at: at,
      updated_at: at,
      version: 0,
    };
    await templates.insertBoardTemplate(trx, row);
    recordEvent(trx, caller, 'board_template.created', teamSubject(row), { boardTemplate: row.id, name: row.name, board: board.id }, at);
    return { template: toBoardTemplate(row), leftOut: { rules: leftOut } };
  });
}

/** The team's board templates, by name. */
export async function listBoardTemplates(ctx: ServiceContext, caller: Caller, teamId: string): Promise<BoardTemplate[]> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: teamId });
  return (await templates.boardTemplatesOfTeam(ctx.db, team.id)).map(toBoardTemplate);
}

export async function getBoardTemplate(ctx: ServiceContext, caller: Caller, templateId: string): Promise<BoardTemplate> {
  return toBoardTemplate(await requireAccess(ctx.db, caller, { kind: 'board-template', id: templateId }));
}

/** Renames the template or changes its description; what it holds stays as it was made. */
export async function updateBoardTemplate(ctx: ServiceContext, caller: Caller, templateId: string, body: UpdateBoardTemplateBody): Promise<BoardTemplate> {
  return inTransaction(ctx, async (trx) => {
    const row = await requireAccess(trx, caller, { kind: 'board-template', id: templateId });
    const change = {
      ...(body.name !== undefined ? { name: body.name.trim() } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
    };
    const { fields: changed, before, after } = changedFields({ name: row.name, description: row.description }, change);
    if (!changed.length) return toBoardTemplate(row);
    const next = await templates.updateBoardTemplate(trx, row.id, change, nowIso());
    if (!next) throw new NotFoundError('Board template');
    recordEvent(trx, caller, 'board_template.updated', teamSubject(row), { boardTemplate: row.id, fields: changed, before, after }, next.updated_at);
    return toBoardTemplate(next);
  });
}

/** Deletes the template; the boards made from it keep what they were made with. */
export async function deleteBoardTemplate(ctx: ServiceContext, caller: Caller, templateId: string): Promise<BoardTemplate> {
  return inTransaction(ctx, async (trx) => {
    const row = await requireAccess(trx, caller, { kind: 'board-template', id: templateId });
    await templates.deleteBoardTemplate(trx, row.id);
    recordEvent(trx, caller, 'board_template.deleted', teamSubject(row), { boardTemplate: row.id, name: row.name });
    return toBoardTemplate(row);
  });
}

/** Whether the caller reaches the list (a list a template's rule creates cards in). */
async function reachesList(db: Executor, caller: Caller, listId: string): Promise<boolean> {
  try {
    await requireAccess(db, caller, { kind: 'list', id: listId });
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * Create board from a template: a new board of the template's team with its lists, labels, fields
 * and rules, in one transaction with an event for each. The rules' author is the caller; a rule
 * that creates cards in a list elsewhere which the caller does not reach is left out, and said so.
 */
export async function createBoardFromTemplate(
  ctx: ServiceContext,
  caller: Caller,
  templateId: string,
  body: CreateBoardFromTemplateBody,
): Promise<{ board: Board; leftOut: { rules: LeftOutRule[] } }> {
  const template = await requireAccess(ctx.db, caller, { kind: 'board-template', id: templateId });
  const content = JSON.parse(template.content) as BoardTemplateContent;
  const lists = new Map(content.lists.map((list) => [list.key, newId()]));
  // labels list in id order: ids made in the template's order keep it
  const labels = new Map(content.labels.map((label) => [label.key, newOrderedId()]));
  const leftOut: LeftOutRule[] = [];
  const rules: TemplateRule[] = [];
  for (const rule of content.rules) {
    const relinked = relinkRule(rule, lists, labels);
    if ('why' in relinked) {
      leftOut.push({ name: rule.name, why: relinked.why, reason: REASONS[relinked.why] });
      continue;
    }
    const reached = await Promise.all(relinked.elsewhere.map((id) => reachesList(ctx.db, caller, id)));
    if (reached.includes(false)) leftOut.push({ name: rule.name, why: 'unreached', reason: REASONS.unreached });
    else rules.push(relinked.rule);
  }
  const board = await inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const row = {
      ...newMade(newId(), caller.userId, at),
      company_id: template.company_id,
      team_id: template.team_id,
      name: (body.name ?? template.name).trim(),
      description: '',
      ...LIVE,
      labels_stamp: 0,
    };
    await insertBoard(trx, row);
    const subject = boardSubject(row);
    recordEvent(trx, caller, 'board.created', subject, { board: row.id, name: row.name, boardTemplate: template.id }, at);
    for (const [index, list] of content.lists.entries()) {
      const id = lists.get(list.key) as string;
      const position = (index + 1) * POSITION_STEP;
      await insertList(trx, { ...newMade(id, caller.userId, at), ...onBoard(row), name: list.name, position, ...LIVE });
      recordEvent(trx, caller, 'list.created', subject, { list: id, name: list.name, position }, at);
    }
    for (const label of content.labels) {
      const id = labels.get(label.key) as string;
      await insertLabel(trx, { ...newMade(id, caller.userId, at), ...onBoard(row), name: label.name, color_id: label.color });
      recordEvent(trx, caller, 'label.created', subject, { label: id, name: label.name, color: label.color }, at);
    }
    for (const [position, field] of content.customFields.entries()) {
      const id = newId();
      await fields.insertCustomField(trx, {
        ...newMade(id, caller.userId, at),
        ...onBoard(row),
        name: field.name,
        type: field.type,
        unit: field.unit,
        position,
        show_on_card: field.showOnCard ? 1 : 0,
      });
      await fields.insertOptions(
        trx,
        field.options.map((option, index) => ({ id: newId(), field_id: id, name: option.name, color_id: option.color, position: index })),
      );
      recordEvent(trx, caller, 'custom_field.created', subject, { customField: id, name: field.name, type: field.type }, at);
    }
    for (const rule of rules) {
      const id = newId();
      await insertRule(trx, {
        id,
        ...onBoard(row),
        name: rule.name,
        trigger: JSON.stringify(rule.trigger),
        conditions: JSON.stringify(rule.conditions),
        actions: JSON.stringify(rule.actions),
        enabled: rule.enabled ? 1 : 0,
        paused_reason: null,
        author_id: caller.userId,
        created_at: at,
        updated_at: at,
        version: 0,
      });
      recordEvent(trx, caller, 'rule.created', subject, { rule: id, name: rule.name }, at);
    }
    // the rule worker reads the feed from here on, if no pass of it has started it yet
    if (rules.length) await startRuleFeed(trx, await feedEnd(trx));
    return row;
  });
  return { board: toBoard(board), leftOut: { rules: leftOut } };
}
