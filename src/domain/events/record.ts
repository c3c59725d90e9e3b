/**
 * The event record: every change is recorded as events in the transaction that makes it (a
 * transactional outbox), so a committed change always has its events and a refused or rolled-back
 * one never has any. Services call `recordEvent` inside `inTransaction`, once a change is done and
 * what it did is known (a card's change through src/domain/cards/change.ts); the events wait in the
 * transaction's log, and `inTransaction` writes them all in one statement just before it commits. Readers (activity, webhooks, live streams) read them back through the
 * storage's event feed (src/storage/event-feed.ts).
 */
import type { NewRow, Transaction } from '../../storage/database.ts';
import * as events from '../../storage/repositories/events.ts';
import { eventDetails, eventTarget, isAuditedEvent, recordAudit } from '../audit/log.ts';
import type { Caller, ClientMeta } from '../shared/caller.ts';
import { newOrderedId, nowIso } from '../shared/ids.ts';

/** Where an event belongs: what the reads and subscriptions filter on. */
export interface EventSubject {
  company: string | null;
  team?: string | null;
  board?: string | null;
  card?: string | null;
  /** The one user the event is addressed to (a notification). */
  user?: string | null;
}

/** The subject of an event of a board (or of a list or label on it): its company, team and board. */
export function boardSubject(row: { company_id: string; team_id: string; board_id?: string; id: string }): EventSubject {
  return { company: row.company_id, team: row.team_id, board: row.board_id ?? row.id };
}

/** The fields whose values differ, with their values before and after: the `data` of an `*.updated` event. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>) {
  const fields = Object.keys(after).filter((field) => before[field] !== after[field]);
  return {
    fields,
    before: Object.fromEntries(fields.map((field) => [field, before[field]])),
    after: Object.fromEntries(fields.map((field) => [field, after[field]])),
  };
}

/** An event recorded in a transaction that has not committed yet. */
export interface PendingEvent extends EventSubject {
  id: string;
  type: string;
  actor: { user: string; apiKey: string | null; rule?: { id: string; name: string } } | null;
  /** Where the actor's request came from (for the audit log; never written to the event record). */
  client?: ClientMeta | undefined;
  requestId: string | null;
  createdAt: string;
  data: Record<string, unknown>;
}

/**
 * What the events of a committed transaction concern, for the readers told of the commit
 * (src/events/bell.ts): the boards whose streams show them (a card's move is shown on the boards
 * its data names too, as `boardEventsAfter` reads it), and the users they are addressed to.
 */
export interface CommittedEvents {
  boards: ReadonlySet<string>;
  users: ReadonlySet<string>;
}

const logs = new WeakMap<Transaction, PendingEvent[]>();

/** Opens the event log of a transaction; `inTransaction` does, for every transaction it runs. */
export function openEventLog(trx: Transaction): void {
  logs.set(trx, []);
}

/**
 * Records an event of the change `trx` is making, done by `caller` (null: by the system, e.g. a
 * reminder), with what the change did (`data`). Answers the pending event.
 */
export function recordEvent(
  trx: Transaction,
  caller: Caller | null,
  type: string,
  subject: EventSubject,
  data: Record<string, unknown> = {},
  at: string = nowIso(),
): PendingEvent {
  const log = logs.get(trx);
  if (!log) throw new Error(`event ${type} recorded outside inTransaction: it would never be written`);
  const event: PendingEvent = {
    // made at `at`: the id's first characters are then the event's creation second, which the
    // retention prune reads by the id's index (migration 0010); ordered, so that index grows at one end
    id: newOrderedId(Date.parse(at)),
    type,
    company: subject.company,
    team: subject.team ?? null,
    board: subject.board ?? null,
    card: subject.card ?? null,
    user: subject.user ?? null,
    actor: caller ? { user: caller.userId, apiKey: caller.apiKeyId, ...(caller.rule ? { rule: caller.rule } : {}) } : null,
    client: caller?.client,
    requestId: caller?.requestId ?? null,
    createdAt: at,
    data,
  };
  log.push(event);
  return event;
}

/**
 * Closes the transaction's event log and answers its events, for `writeEvents`
 * to write in the same transaction; unwritten, they are dropped (`ServiceContext.recordEvents` false:
 * the bench only).
 */
export function takeEventLog(trx: Transaction): readonly PendingEvent[] {
  const log = logs.get(trx) ?? [];
  logs.delete(trx);
  return log;
}

/**
 * Writes the events `takeEventLog` took; answers what they concern, undefined when there were none
 * (nothing to tell). The app's event bell announces the commit to the other instances once told
 * (src/events/bell.ts).
 */
export async function writeEvents(trx: Transaction, log: readonly PendingEvent[]): Promise<CommittedEvents | undefined> {
  await events.insertEvents(trx, log.map(eventRow));
  for (const event of log) {
    const kind = event.type;
    if (!isAuditedEvent(kind)) continue;
    await recordAudit(
      trx,
      { userId: event.actor?.user ?? null, apiKeyId: event.actor?.apiKey, client: event.client },
      {
        kind,
        company: event.company ?? (event.user ? { ofUser: event.user } : null),
        target: eventTarget(event),
        details: eventDetails(event),
      },
      event.createdAt,
    );
  }
  return concerned(log);
}

function concerned(log: readonly PendingEvent[]): CommittedEvents | undefined {
  if (!log.length) return undefined;
  const boards = new Set<string>();
  const users = new Set<string>();
  for (const event of log) {
    if (event.board) boards.add(event.board);
    if (event.user) users.add(event.user);
    if (event.type === 'card.moved') {
      for (const place of [event.data.from, event.data.to]) {
        const board = (place as { board?: unknown } | undefined)?.board;
        if (typeof board === 'string') boards.add(board);
      }
    }
  }
  return { boards, users };
}

function eventRow(event: PendingEvent): NewRow<'events'> {
  return {
    id: event.id,
    type: event.type,
    company_id: event.company,
    team_id: event.team ?? null,
    board_id: event.board ?? null,
    card_id: event.card ?? null,
    user_id: event.user ?? null,
    actor_user_id: event.actor?.user ?? null,
    actor_api_key_id: event.actor?.apiKey ?? null,
    actor_rule_id: event.actor?.rule?.id ?? null,
    actor_rule_name: event.actor?.rule?.name ?? null,
    request_id: event.requestId,
    created_at: event.createdAt,
    data: JSON.stringify(event.data),
  };
}
