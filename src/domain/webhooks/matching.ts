/** Which events a webhook receives, and the body it receives them in. */
import type { EventRow, WebhookRow } from '../../storage/repositories/webhooks.ts';
import { toEvent } from '../events/events.ts';

/** A type pattern: an exact type (`card.updated`), a family (`card.*`: `card.` and anything after), or `*`. */
export function typeMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** The filters of a webhook, parsed once per fan-out. */
export interface WebhookFilter {
  row: WebhookRow;
  teams: ReadonlySet<string>;
  boards: ReadonlySet<string>;
  types: readonly string[];
}

export function filterOf(row: WebhookRow): WebhookFilter {
  return {
    row,
    teams: new Set(JSON.parse(row.team_ids) as string[]),
    boards: new Set(JSON.parse(row.board_ids) as string[]),
    types: JSON.parse(row.event_types) as string[],
  };
}

/**
 * Whether the webhook receives the event: its company, within the teams and boards it names (none
 * named: all), of a type it names, and recorded since it receives (created, or last enabled again).
 */
export function receives(filter: WebhookFilter, event: EventRow): boolean {
  const { row } = filter;
  return (
    event.company_id === row.company_id &&
    event.created_at >= row.receiving_since &&
    (filter.teams.size === 0 || (event.team_id !== null && filter.teams.has(event.team_id))) &&
    (filter.boards.size === 0 || (event.board_id !== null && filter.boards.has(event.board_id))) &&
    filter.types.some((pattern) => typeMatches(pattern, event.type))
  );
}

/**
 * The body of a delivery: the Standard Webhooks envelope (`type`, `timestamp`, `data`) around the
 * event as the activity reads show it (ids, actor, request id, and the change's `data`).
 */
export function deliveryBody(event: EventRow): string {
  return JSON.stringify({ type: event.type, timestamp: event.created_at, data: toEvent(event) });
}
