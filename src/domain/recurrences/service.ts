/**
 * Recurring cards, as a board's editors manage them (docs/api.md, "Recurring cards"): a card
 * template, a schedule (./schedule.ts) and where the cards go. Changes apply to future occurrences
 * only: cards made before stay as they are. The job that makes the cards is ./maker.ts.
 */
import type { Recurrence, RecurrenceDefinition, RecurringCard, UpdateRecurrenceBody } from '../../schemas/recurrences.ts';
import type { Executor } from '../../storage/database.ts';
import { findLabelsOfBoard } from '../../storage/repositories/labels.ts';
import { findListsOfBoard } from '../../storage/repositories/lists.ts';
import * as recurrences from '../../storage/repositories/recurrences.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { occurrencesAfter, type Schedule, scheduleProblem } from './schedule.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export function scheduleOf(row: Pick<recurrences.RecurrenceRow, 'rule' | 'starts_at' | 'time_zone'>): Schedule {
  return { rule: row.rule, startsAt: row.starts_at, timeZone: row.time_zone };
}

export function toRecurrence(row: recurrences.RecurrenceRow): Recurrence {
  const next = row.next_at && Number(row.enabled) ? [Date.parse(row.next_at), ...occurrencesAfter(scheduleOf(row), Date.parse(row.next_at), 2)] : [];
  return {
    _id: row.id,
    company: row.company_id,
    team: row.team_id,
    board: row.board_id,
    name: row.name,
    card: JSON.parse(row.card) as RecurringCard,
    list: row.list_id,
    position: row.position,
    rule: row.rule,
    startsAt: row.starts_at,
    timeZone: row.time_zone,
    missed: row.missed,
    enabled: Boolean(Number(row.enabled)),
    pausedReason: row.paused_reason,
    author: row.author_id,
    nextOccurrences: next.map(iso),
    made: Number(row.made),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    __v: Number(row.version),
  };
}

/** A 400 for a schedule that is not one. */
function requireSchedule(schedule: Schedule): void {
  const problem = scheduleProblem(schedule);
  if (problem) throw new ValidationError(`${problem.field} ${problem.message}`, [{ field: `body.${problem.field}`, message: problem.message }]);
}

/** A 400 naming the list and labels that are not of the board. */
async function checkBoardReferences(db: Executor, boardId: string, list: string | undefined, card: RecurringCard | undefined): Promise<void> {
  const details: { field: string; message: string }[] = [];
  if (list !== undefined && !(await findListsOfBoard(db, boardId)).some((l) => l.id === list))
    details.push({ field: 'body.list', message: 'is no list of the board' });
  if (card?.labels?.length) {
    const labels = new Set((await findLabelsOfBoard(db, boardId)).map((l) => l.id));
    card.labels.forEach((label, i) => {
      if (!labels.has(label)) details.push({ field: `body.card.labels[${i}]`, message: 'is no label of the board' });
    });
  }
  if (details.length) throw new ValidationError(`The recurrence names what is not on its board: ${details.map((d) => d.field).join(', ')}`, details);
}

/** The first occurrence after `after`, as the row keeps it (null: none any more). */
function nextAfter(schedule: Schedule, after: number): string | null {
  const [next] = occurrencesAfter(schedule, after, 1);
  return next === undefined ? null : iso(next);
}

/** The next three occurrences of a schedule from now: what a person sees before saving. */
export function previewSchedule(ctx: ServiceContext, schedule: Schedule): string[] {
  requireSchedule(schedule);
  return occurrencesAfter(schedule, ctx.clock.now(), 3).map(iso);
}

export async function previewOnBoard(ctx: ServiceContext, caller: Caller, boardId: string, schedule: Schedule): Promise<string[]> {
  await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  return previewSchedule(ctx, schedule);
}

function subject(row: recurrences.RecurrenceRow) {
  return boardSubject({ company_id: row.company_id, team_id: row.team_id, id: row.board_id });
}

export async function createRecurrence(ctx: ServiceContext, caller: Caller, boardId: string, body: RecurrenceDefinition): Promise<Recurrence> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  const schedule = { rule: body.rule, startsAt: body.startsAt, timeZone: body.timeZone };
  requireSchedule(schedule);
  await checkBoardReferences(ctx.db, board.id, body.list, body.card);
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const enabled = body.enabled !== false;
    const row: recurrences.RecurrenceRow = {
      id: newId(),
      company_id: board.company_id,
      team_id: board.team_id,
      board_id: board.id,
      list_id: body.list,
      position: body.position ?? 'bottom',
      name: body.name.trim(),
      card: JSON.stringify(body.card),
      rule: body.rule.replace(/^RRULE:/i, ''),
      starts_at: body.startsAt,
      time_zone: body.timeZone,
      missed: body.missed ?? 'create',
      enabled: enabled ? 1 : 0,
      paused_reason: null,
      author_id: caller.userId,
      // occurrences before the recurrence was made are not owed
      next_at: nextAfter(schedule, ctx.clock.now() - 1),
      made: 0,
      created_at: at,
      updated_at: at,
      version: 0,
    };
    await recurrences.insertRecurrence(trx, row);
    recordEvent(trx, caller, 'recurrence.created', subject(row), { recurrence: row.id, name: row.name }, at);
    return toRecurrence(row);
  });
}

/** The recurrence, once the access module says the caller reaches its board; else a 404. */
async function recurrenceFor(db: Executor, caller: Caller, id: string): Promise<recurrences.RecurrenceRow> {
  const row = await recurrences.findRecurrence(db, id);
  if (!row) throw new NotFoundError('Recurrence');
  await requireAccess(db, caller, { kind: 'board', id: row.board_id, what: 'Recurrence' });
  return row;
}

export async function listRecurrences(ctx: ServiceContext, caller: Caller, boardId: string): Promise<Recurrence[]> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId });
  return (await recurrences.recurrencesOfBoard(ctx.db, board.id)).map(toRecurrence);
}

export async function getRecurrence(ctx: ServiceContext, caller: Caller, id: string): Promise<Recurrence> {
  return toRecurrence(await recurrenceFor(ctx.db, caller, id));
}

/**
 * Changes a recurrence for its future occurrences: the next one owed is found again from now (or
 * from the last one made, if that is later); cards made stay. Whoever saves it becomes its author.
 * Pausing keeps nothing owed; resuming owes the occurrences from now on.
 */
export async function updateRecurrence(ctx: ServiceContext, caller: Caller, id: string, body: UpdateRecurrenceBody): Promise<Recurrence> {
  const before = await recurrenceFor(ctx.db, caller, id);
  const schedule: Schedule = { rule: body.rule ?? before.rule, startsAt: body.startsAt ?? before.starts_at, timeZone: body.timeZone ?? before.time_zone };
  requireSchedule(schedule);
  await checkBoardReferences(ctx.db, before.board_id, body.list, body.card);
  return inTransaction(ctx, async (trx) => {
    const row = await recurrenceFor(trx, caller, id);
    const at = nowIso();
    const last = await recurrences.lastOccurrence(trx, row.id);
    const from = Math.max(ctx.clock.now() - 1, last ? Date.parse(last) : Number.NEGATIVE_INFINITY);
    const enabled = body.enabled ?? Boolean(Number(row.enabled));
    const next: recurrences.RecurrenceRow = {
      ...row,
      name: body.name?.trim() ?? row.name,
      card: body.card ? JSON.stringify(body.card) : row.card,
      list_id: body.list ?? row.list_id,
      position: body.position ?? row.position,
      rule: schedule.rule.replace(/^RRULE:/i, ''),
      starts_at: schedule.startsAt,
      time_zone: schedule.timeZone,
      missed: body.missed ?? row.missed,
      enabled: enabled ? 1 : 0,
      paused_reason: body.enabled === true ? null : row.paused_reason,
      author_id: caller.userId,
      next_at: nextAfter(schedule, from),
      updated_at: at,
      version: Number(row.version) + 1,
    };
    await recurrences.updateRecurrence(trx, row.id, next);
    recordEvent(trx, caller, 'recurrence.updated', subject(row), { recurrence: row.id, name: next.name, fields: Object.keys(body) }, at);
    return toRecurrence(next);
  });
}

export async function deleteRecurrence(ctx: ServiceContext, caller: Caller, id: string): Promise<Recurrence> {
  return inTransaction(ctx, async (trx) => {
    const row = await recurrenceFor(trx, caller, id);
    await recurrences.deleteRecurrence(trx, row.id);
    recordEvent(trx, caller, 'recurrence.deleted', subject(row), { recurrence: row.id, name: row.name });
    return toRecurrence(row);
  });
}
