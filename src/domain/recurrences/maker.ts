/**
 * The job that makes recurring cards: each occurrence exactly once, across instances and restarts.
 *
 * A recurrence row keeps the instant of the next occurrence it owes (`next_at`). A pass takes each
 * recurrence that owes one now in a transaction of its own that locks the row (skipping one another
 * instance holds, and re-reading that it still owes it), makes the card through the services of
 * the change path with its author's reach, writes the occurrence's row (its key, the recurrence
 * and the instant, refuses a second) and moves `next_at` to the following occurrence, all
 * committed together: a crash leaves the occurrence owed, never made twice.
 *
 * Occurrences missed while no server ran: with `missed: create` each is made, oldest first, one
 * transaction each; with `skip` only the latest one due is made and those before it are passed.
 */
import type { RecurringCard } from '../../schemas/recurrences.ts';
import { dueRecurrenceIds, insertOccurrence, lockDueRecurrence, type RecurrenceRow, updateRecurrence } from '../../storage/repositories/recurrences.ts';
import { requireAccess } from '../access/access.ts';
import { toggleLabels } from '../cards/labels.ts';
import { toggleMembers } from '../cards/members.ts';
import { createCard } from '../cards/service.ts';
import { createItem } from '../checklists/items.ts';
import { createChecklist } from '../checklists/service.ts';
import type { ServiceContext } from '../context.ts';
import { boardSubject, recordEvent } from '../events/record.ts';
import { callerOfAuthor } from '../rules/runner.ts';
import { ConflictError, DomainError, NotFoundError } from '../shared/errors.ts';
import { PeriodicJob } from '../shared/periodic.ts';
import { inTransaction } from '../shared/transaction.ts';
import { occurrencesAfter } from './schedule.ts';
import { scheduleOf } from './service.ts';

const BATCH = 100;
const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface RecurrencePass {
  made: number;
  paused: number;
}

type Outcome = 'made' | 'paused' | 'taken';

/** Which occurrence to make now, and the one owed after it. */
function occurrenceToMake(row: RecurrenceRow, now: number): { occurs: number; next: number | null } {
  const schedule = scheduleOf(row);
  let occurs = Date.parse(row.next_at as string);
  if (row.missed === 'skip') {
    // pass over the older missed ones: the latest due is made
    for (;;) {
      const [later] = occurrencesAfter(schedule, occurs, 1);
      if (later === undefined || later > now) break;
      occurs = later;
    }
  }
  return { occurs, next: occurrencesAfter(schedule, occurs, 1)[0] ?? null };
}

function pauseChange(row: RecurrenceRow, reason: string, at: string) {
  return { enabled: 0, paused_reason: reason.slice(0, 500), updated_at: at, version: Number(row.version) + 1 };
}

/** Makes the one occurrence a recurrence owes now, if it still does and no other instance is on it. */
export async function makeOccurrence(ctx: ServiceContext, id: string): Promise<Outcome> {
  const now = ctx.clock.now();
  try {
    return await inTransaction(ctx, async (trx): Promise<Outcome> => {
      const row = await lockDueRecurrence(trx, id, iso(now));
      if (!row) return 'taken';
      const at = iso(now);
      const { occurs, next } = occurrenceToMake(row, now);
      const caller = await callerOfAuthor(trx, row.author_id, `recurrence-${row.id}-${occurs}`);
      try {
        await requireAccess(trx, caller, { kind: 'board', id: row.board_id });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        const reason = "Paused: the recurrence's author no longer reaches the board";
        await updateRecurrence(trx, row.id, pauseChange(row, reason, at));
        recordEvent(
          trx,
          null,
          'recurrence.paused',
          boardSubject({ company_id: row.company_id, team_id: row.team_id, id: row.board_id }),
          { recurrence: row.id, reason },
          at,
        );
        return 'paused';
      }
      const template = JSON.parse(row.card) as RecurringCard;
      const joined: ServiceContext = { ...ctx, db: trx, transaction: trx };
      const due = template.dueOffset ? iso(occurs + template.dueOffset.amount * (template.dueOffset.unit === 'days' ? 24 : 1) * HOUR_MS) : undefined;
      const card = await createCard(
        joined,
        caller,
        {},
        {
          list: row.list_id,
          name: template.name,
          position: row.position,
          ...(template.description !== undefined ? { description: template.description } : {}),
          ...(due ? { dueDate: due } : {}),
        },
      );
      if (template.labels?.length) await toggleLabels(joined, caller, card._id, {}, template.labels);
      if (template.members?.length) await toggleMembers(joined, caller, card._id, {}, template.members);
      for (const checklist of template.checklists ?? []) {
        const made = await createChecklist(joined, caller, card._id, {}, { name: checklist.name });
        for (const name of checklist.items) await createItem(joined, caller, made._id, {}, { name });
      }
      await insertOccurrence(trx, { recurrence_id: row.id, occurs_at: iso(occurs), card_id: card._id, created_at: at });
      await updateRecurrence(trx, row.id, { next_at: next === null ? null : iso(next), made: Number(row.made) + 1 });
      return 'made';
    });
  } catch (error) {
    // the change path refused (a list deleted, a label gone, a member out of the team): paused with why
    // (a conflict with concurrent changes is no refusal: the occurrence is tried again)
    if (!(error instanceof DomainError) || error instanceof ConflictError) throw error;
    return inTransaction(ctx, async (trx): Promise<Outcome> => {
      const row = await lockDueRecurrence(trx, id, iso(now));
      if (!row) return 'taken';
      const at = iso(now);
      const reason = `Paused: the card could not be made: ${error.message}`;
      await updateRecurrence(trx, row.id, pauseChange(row, reason, at));
      recordEvent(
        trx,
        null,
        'recurrence.paused',
        boardSubject({ company_id: row.company_id, team_id: row.team_id, id: row.board_id }),
        { recurrence: row.id, reason },
        at,
      );
      return 'paused';
    });
  }
}

/** Makes every occurrence owed now (each missed one too, by each recurrence's choice). */
export async function makeDueOccurrences(ctx: ServiceContext, stopping?: AbortSignal): Promise<RecurrencePass> {
  const pass: RecurrencePass = { made: 0, paused: 0 };
  for (;;) {
    const ids = await dueRecurrenceIds(ctx.db, iso(ctx.clock.now()), BATCH);
    let acted = 0;
    for (const id of ids) {
      if (stopping?.aborted) return pass;
      const outcome = await makeOccurrence(ctx, id);
      if (outcome === 'taken') continue;
      pass[outcome]++;
      acted++;
    }
    if (ids.length === 0 || acted === 0) return pass;
  }
}

export function recurrenceJob(ctx: ServiceContext, everyMs: number, log: { error(detail: object, message: string): void }): PeriodicJob<RecurrencePass> {
  return new PeriodicJob<RecurrencePass>({ name: 'recurring cards', everyMs, pass: (stopping) => makeDueOccurrences(ctx, stopping) }, log);
}
