/**
 * Move Cards Multi Team: moves cards of any teams the caller reaches to the bottom of one list, in
 * request order, all or nothing. A card that changes board loses the labels of its old board; one
 * that changes team loses the members (of the card and of its checklist items) who are not in the
 * new team, and everything that belongs to it (checklists, items, comments, discussions, cheers,
 * attachments) follows it into the new company and team. The answer names what each card lost.
 */

import type { Row, Transaction } from '../../storage/database.ts';
import * as copies from '../../storage/repositories/card-copies.ts';
import { cardLabelIds, lastCardPosition, removeCardLabels, setCardColumns } from '../../storage/repositories/cards.ts';
import { removeItemMembers } from '../../storage/repositories/checklist-items.ts';
import type { ListRow } from '../../storage/repositories/lists.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import { requireAccessToEach } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { carryFieldValues } from '../fields/carry.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import * as bulk from './bulk-targets.ts';
import { lockCardRows, lockList } from './locks.ts';
import { recordCardChange } from './recorder.ts';
import { loadCards } from './service.ts';

export async function moveCardsMultiTeam(ctx: ServiceContext, caller: Caller, input: bulk.MultiTeamCards): Promise<bulk.BulkCardsResult> {
  const cardIds = input.cards.map((c) => c.cardId);
  rejectRepeatedIds(cardIds, 'body.cards');
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const list = await bulk.multiTeamTargetList(trx, caller, input.target);
    // The lock rule (access/access.ts): the target list, then every card in id order; the cards are checked
    // under their locks. A request that then fails rolls the recorded changes back with the rest.
    if (!(await lockList(trx, list.id))) throw new NotFoundError('List');
    const rows = await lockCardRows(trx, cardIds, 'skip');
    const cards = await requireAccessToEach(trx, caller, { items: input.cards, field: 'body.cards', refOf: bulk.multiTeamRef, rows });

    // below the list's cards that stay; a moved card already in the list goes below them too
    const positions = bulk.bottomPositions(await lastCardPosition(trx, list.id, cardIds), cards.length);
    const dropped: bulk.DroppedParts[] = [];
    for (const [i, card] of cards.entries()) {
      const lost = await moveCard(trx, card, list, positions[i] as number);
      dropped.push(lost);
      // filed under where the card now is; `from` names where it was
      const place = { id: card.id, company_id: list.company_id, team_id: list.team_id, board_id: list.board_id, list_id: list.id };
      await recordCardChange(trx, place, {
        caller,
        kind: 'card.moved',
        at,
        data: {
          from: { company: card.company_id, team: card.team_id, board: card.board_id, list: card.list_id, position: card.position },
          to: { company: list.company_id, team: list.team_id, board: list.board_id, list: list.id, position: positions[i] },
          dropped: { labels: lost.labels, members: lost.members, checklistItemMembers: lost.checklistItemMembers, customFields: lost.customFields },
        },
      });
    }
    // read inside the transaction, so the answer shows what the request did
    return { cards: await loadCards(ctx, cardIds, trx), dropped: dropped.filter(bulk.lostAnything) };
  });
}

/** Moves one (locked) card to `position` in `list`; answers what it lost on the way. */
async function moveCard(trx: Transaction, card: Row<'cards'>, list: ListRow, position: number): Promise<bulk.DroppedParts> {
  const dropped: bulk.DroppedParts = { cardId: card.id, labels: [], members: [], checklistItemMembers: [], customFields: [] };
  if (card.board_id !== list.board_id) {
    // Labels belong to a board: none of the old board's means anything on the new one.
    dropped.labels = (await cardLabelIds(trx, card.id)).sort();
    await removeCardLabels(trx, card.id, dropped.labels);
    // values go to the fields of the same name and type there (docs/decisions/0134)
    dropped.customFields = await carryFieldValues(trx, card.id, card.board_id, { cardId: card.id, boardId: list.board_id, teamId: list.team_id });
  }
  if (card.team_id !== list.team_id) {
    const owner = { company_id: list.company_id, team_id: list.team_id };
    const members = await copies.cardMemberIds(trx, card.id);
    const itemMembers = await copies.checklistItemMembersOfCard(trx, card.id);
    const inTeam = await teamMembersAmong(trx, list.team_id, [...new Set([...members, ...itemMembers.map((m) => m.user_id)])]);
    dropped.members = members.filter((id) => !inTeam.has(id));
    await copies.removeCardMembers(trx, card.id, dropped.members);
    dropped.checklistItemMembers = bulk.groupByItem(itemMembers.filter((m) => !inTeam.has(m.user_id)));
    for (const item of dropped.checklistItemMembers) await removeItemMembers(trx, item.checklistItem, item.members);
    await copies.moveCardChildren(trx, card.id, owner);
  }
  await setCardColumns(trx, card.id, { company_id: list.company_id, team_id: list.team_id, board_id: list.board_id, list_id: list.id, position });
  return dropped;
}
