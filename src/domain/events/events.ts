/**
 * The event record read back: the public shape of an event (`toEvent`, which the activity reads,
 * webhooks and live streams all answer with), the activity reads of a card, board or team, and the
 * retention prune.
 */
import type { Event } from '../../schemas/events.ts';
import type { Executor, Row } from '../../storage/database.ts';
import * as events from '../../storage/repositories/events.ts';
import { deleteFinishedDeliveriesBefore } from '../../storage/repositories/webhooks.ts';
import { requireAccess } from '../access/access.ts';
import type { KeepEvents, ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { firstIdAt } from '../shared/ids.ts';
import { decodeCursor, type Page, toPage } from '../shared/pagination.ts';

export type { Event };

/** A stored event (any read of the table: the activity reads, the event feed). */
export type StoredEvent = Omit<Row<'events'>, 'tx' | 'seq'>;

/** The one mapping from a stored event to its public shape. */
export function toEvent(row: StoredEvent): Event {
  return {
    _id: row.id,
    type: row.type,
    company: row.company_id,
    team: row.team_id,
    board: row.board_id,
    card: row.card_id,
    actor: row.actor_user_id
      ? {
          user: row.actor_user_id,
          apiKey: row.actor_api_key_id,
          ...(row.actor_rule_id ? { rule: { _id: row.actor_rule_id, name: row.actor_rule_name ?? '' } } : {}),
        }
      : null,
    createdAt: row.created_at,
    requestId: row.request_id,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/**
 * The types a filter keeps: `card.` every type starting so; `card.labels` that type and those below
 * it (`card.labels.toggled`), not `card.labelsx`.
 */
function typeFilter(type: string | undefined): { exact?: string; prefix: string } | undefined {
  if (type === undefined) return undefined;
  return type.endsWith('.') ? { prefix: type } : { exact: type, prefix: `${type}.` };
}

function isSeqCursor(key: unknown): key is { seq: number } {
  return typeof key === 'object' && key !== null && Number.isSafeInteger((key as { seq?: unknown }).seq) && (key as { seq: number }).seq > 0;
}

export interface ActivityRequest {
  limit: number;
  cursor?: string | undefined;
  type?: string | undefined;
}

/** What an activity read is of: the kind of thing, and its id. */
export type ActivityOf = events.ActivitySubject;

/**
 * The events filed under a card, board or team the caller reaches (else a 404), newest first, paged
 * by a cursor that carries the last event's `seq`: events recorded meanwhile are newer, so a page
 * never repeats or skips what an earlier page showed.
 */
export async function readActivity(ctx: ServiceContext, caller: Caller, of: ActivityOf, scope: Scope, request: ActivityRequest): Promise<Page<Event>> {
  const beforeSeq = request.cursor === undefined ? undefined : decodeCursor(request.cursor, isSeqCursor).seq;
  await requireAccess(ctx.db, caller, { kind: of.kind, id: of.id, scope });
  const rows = await events.findActivity(ctx.db, of, { limit: request.limit + 1, beforeSeq, types: typeFilter(request.type) });
  const page = toPage(rows, request.limit, (last) => ({ seq: last.seq }));
  return { items: page.items.map(toEvent), nextCursor: page.nextCursor };
}

/** Rows one prune statement deletes at most, so a large backlog never holds one long lock. */
const PRUNE_BATCH = 5000;

/**
 * Deletes the events recorded before `before` (an ISO timestamp), except those `keep` selects.
 * Answers how many went.
 */
export function pruneEvents(db: Executor, before: string, keep?: KeepEvents): Promise<number> {
  // every event created before `before` has an id below the first id of the second after it (`recordEvent`)
  return events.deleteEventsBefore(db, { before, idBelow: firstIdAt(Date.parse(before) + 1000) }, PRUNE_BATCH, keep);
}

/**
 * Prunes the events older than `retentionDays` as of the context's clock, keeping those `ctx.keepEvents` selects,
 * and with them the webhook deliveries (copies of events) that ended before the same cut-off;
 * deliveries still pending are kept, however old. Answers the cut-off and how many of each went.
 */
export async function pruneExpiredEvents(ctx: ServiceContext, retentionDays: number): Promise<{ before: string; events: number; deliveries: number }> {
  const before = new Date(ctx.clock.now() - retentionDays * 86_400_000).toISOString();
  const pruned = await pruneEvents(ctx.db, before, ctx.keepEvents);
  return { before, events: pruned, deliveries: await deleteFinishedDeliveriesBefore(ctx.db, before, PRUNE_BATCH) };
}
