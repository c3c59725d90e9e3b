/**
 * What the multi-team and bulk forms of Copy and Move share: their items and answers, the target
 * list check, and the places at the bottom of the target list.
 */
import type { Static } from 'typebox';
import type { BulkCardsAnswer, DroppedParts as DroppedPartsSchema } from '../../schemas/card-copies.ts';
import type { Executor } from '../../storage/database.ts';
import type { ListRow } from '../../storage/repositories/lists.ts';
import { requireAccess } from '../access/access.ts';
import type { Caller } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { place } from '../shared/positions.ts';

export type DroppedParts = Static<typeof DroppedPartsSchema>;
export type BulkCardsResult = Omit<Static<typeof BulkCardsAnswer>, 'message'>;

/** A bulk item of the multi-team forms: a card and the company and team it is in. */
export interface MultiTeamCard {
  cardId: string;
  companyId: string;
  teamId: string;
}

export interface MultiTeamCards {
  cards: readonly MultiTeamCard[];
  target: { companyId: string; teamId: string; list: string };
}

/**
 * The target of a multi-team request: a list the caller reaches, in the company and team the
 * target names. Another team's list (or a team out of reach) rejects the request, naming `body.target`.
 */
export async function multiTeamTargetList(db: Executor, caller: Caller, target: MultiTeamCards['target']): Promise<ListRow> {
  const list = await requireAccess(db, caller, { kind: 'list', id: target.list, field: 'body.target.list' });
  if (list.company_id !== target.companyId || list.team_id !== target.teamId) {
    // The caller reaches the list, so saying where it is leaks nothing.
    const field = list.company_id !== target.companyId ? 'body.target.companyId' : 'body.target.teamId';
    throw new ValidationError('The target list is not in the target company and team', [
      { field, message: `list ${list.id} is in company ${list.company_id}, team ${list.team_id}` },
    ]);
  }
  return list;
}

/** A multi-team item as the access module checks it: its card, in the company and team the item names. */
export const multiTeamRef = (item: MultiTeamCard) => ({ cardId: item.cardId, scope: item });

/** Positions for `count` cards, in order, below the list's last card (at `last`; undefined: none). */
export function bottomPositions(last: number | undefined, count: number): number[] {
  let above = last === undefined ? [] : [last];
  return Array.from({ length: count }, () => {
    const { position } = place(above, 'bottom');
    above = [position];
    return position;
  });
}

/** `[{item_id, user_id}]` → `[{checklistItem, members}]`, items in first-seen order. */
export function groupByItem(rows: readonly { item_id: string; user_id: string }[]): DroppedParts['checklistItemMembers'] {
  const byItem = new Map<string, string[]>();
  for (const row of rows) byItem.set(row.item_id, [...(byItem.get(row.item_id) ?? []), row.user_id]);
  return [...byItem].map(([checklistItem, members]) => ({ checklistItem, members }));
}

export function lostAnything(dropped: DroppedParts): boolean {
  return dropped.labels.length > 0 || dropped.members.length > 0 || dropped.checklistItemMembers.length > 0 || dropped.customFields.length > 0;
}
