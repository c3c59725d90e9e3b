/**
 * Calendar feeds (docs/decisions/0212-calendar-feeds.md): a person's secret iCalendar URL (RFC 5545)
 * of the dated cards they reach, of their My Tasks or of one board, which a calendar app polls. The
 * URL's token is the only credential: shown once, kept as its SHA-256, revocable. Each read acts
 * with the person's reach at that moment, so a feed shows nothing they have lost.
 */
import type { Transaction } from '../../storage/database.ts';
import * as feeds from '../../storage/repositories/calendar-feeds.ts';
import { requireAccess } from '../access/access.ts';
import { hashToken, newToken, tokenPrefix } from '../account/tokens.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { callerOfAuthor } from '../rules/runner.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';

/** The most cards a feed carries (the soonest due first): a calendar app reads the whole feed on every poll. */
export const CALENDAR_FEED_CARDS = 2000;
/** How long a calendar app may keep a feed before asking again (its REFRESH-INTERVAL and X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;
/** What a card's description brings into its event: enough to recognise it. */
const DESCRIPTION_CHARACTERS = 1000;

export interface CalendarFeed {
  _id: string;
  board: string | null;
  boardName: string | null;
  tokenPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

function toCalendarFeed(row: feeds.ListedCalendarFeed): CalendarFeed {
  return {
    _id: row.id,
    board: row.board_id,
    boardName: row.board_name,
    tokenPrefix: row.token_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Create Calendar Feed: a new secret URL's token (shown this once) for the caller's My Tasks or one board it reaches. */
export async function createCalendarFeed(
  ctx: ServiceContext,
  caller: Caller,
  input: { board?: string | undefined },
  scope: Scope,
): Promise<{ calendarFeed: CalendarFeed; token: string }> {
  const board = input.board === undefined ? null : await requireAccess(ctx.db, caller, { kind: 'board', id: input.board, scope });
  const token = newToken();
  const row = {
    id: newId(),
    user_id: caller.userId,
    board_id: board?.id ?? null,
    token_hash: hashToken(token),
    token_prefix: tokenPrefix(token),
    created_at: nowIso(),
    last_used_at: null,
  };
  await inTransaction(ctx, async (trx) => {
    await feeds.insertCalendarFeed(trx, row);
    recordFeedEvent(trx, caller, 'calendarfeed.created', row);
  });
  return { calendarFeed: toCalendarFeed({ ...row, board_name: board?.name ?? null }), token };
}

/** List Calendar Feeds: the caller's own feeds (never their tokens). */
export async function listCalendarFeeds(ctx: ServiceContext, caller: Caller): Promise<CalendarFeed[]> {
  return (await feeds.listCalendarFeeds(ctx.db, caller.userId)).map(toCalendarFeed);
}

/** Revoke Calendar Feed: its URL stops working at once; another person's feed is a 404. */
export function revokeCalendarFeed(ctx: ServiceContext, caller: Caller, feedId: string): Promise<void> {
  return inTransaction(ctx, async (trx) => {
    const feed = await feeds.deleteCalendarFeed(trx, caller.userId, feedId);
    if (!feed) throw new NotFoundError('Calendar feed');
    recordFeedEvent(trx, caller, 'calendarfeed.revoked', feed);
  });
}

/** A feed made or revoked: the person's own event, and the audit log's (a credential that reads cards); never its token. */
function recordFeedEvent(trx: Transaction, caller: Caller, type: string, feed: { id: string; board_id: string | null }): void {
  recordEvent(trx, caller, type, { company: null, user: caller.userId }, { calendarFeed: feed.id, board: feed.board_id });
}

/**
 * The feed of `token` as iCalendar text: the dated cards its person reaches now (one event each,
 * from the start date, or at the due date, to the due date; completed ones marked ✓), with links
 * into the web app at `appUrl`. An unknown or revoked token, or a board its person no longer
 * reaches, is a 404 like any other.
 */
export async function renderCalendarFeed(ctx: ServiceContext, token: string, appUrl: string, requestId: string): Promise<string> {
  const feed = await feeds.findCalendarFeedByTokenHash(ctx.db, hashToken(token));
  if (!feed) throw new NotFoundError('Calendar feed');
  const caller = await callerOfAuthor(ctx.db, feed.user_id, requestId);
  const board = feed.board_id === null ? null : await requireAccess(ctx.db, caller, { kind: 'board', id: feed.board_id, what: 'Calendar feed' });
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope: {} });
  const cards = await feeds.findDatedCards(ctx.db, {
    reach,
    limit: CALENDAR_FEED_CARDS,
    ...(board ? { boardId: board.id } : { memberId: feed.user_id }),
  });
  await feeds.markCalendarFeedUsed(ctx.db, feed.id, nowIso());

  const base = appUrl.replace(/\/$/, '');
  // loaded on first use (docs/decisions/0042): only calendar apps read feeds
  const { default: ical } = await import('ical-generator');
  const calendar = ical({
    name: board ? `Taskboard: ${board.name}` : 'Taskboard: My Tasks',
    prodId: { company: 'Taskboard', product: 'Taskboard', language: 'EN' },
    ttl: REFRESH_SECONDS,
  });
  for (const card of cards) {
    const due = new Date(card.due_date);
    const start = card.start_date !== null && card.start_date < card.due_date ? new Date(card.start_date) : due;
    const description = card.description.length > DESCRIPTION_CHARACTERS ? `${card.description.slice(0, DESCRIPTION_CHARACTERS)}…` : card.description;
    calendar.createEvent({
      id: `${card.id}@taskboard`,
      start,
      end: due,
      summary: card.complete_status ? `✓ ${card.name}` : card.name,
      description: [`${card.board_name} › ${card.list_name}`, description].filter(Boolean).join('\n\n'),
      url: `${base}/boards/${card.board_id}?card=${card.id}`,
      stamp: new Date(card.updated_at),
      lastModified: new Date(card.updated_at),
    });
  }
  return calendar.toString();
}
