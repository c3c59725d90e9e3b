import type { Card } from '../../schemas/records.ts';
import { addCardMembers, cardMemberIds, removeCardMembers } from '../../storage/repositories/card-copies.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import type { ServiceContext } from '../context.ts';
import { notify } from '../notifications/notify.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { changeCard } from './change.ts';

/**
 * Toggle Multiple Members: every user of the request is removed from the card when on it, else
 * added, all or none. Only members of the card's team can be added; a user who is on the card can
 * always be removed, even after leaving the team (so a card never keeps a member nobody can take off).
 * An id that can be neither rejects the whole request, naming it. One request is one change.
 */
export function toggleMembers(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, userIds: readonly string[]): Promise<Card> {
  rejectRepeatedIds(userIds, 'body.members');
  return changeCard(ctx, caller, cardId, scope, 'card.members.toggled', async (trx, card, at) => {
    const onCard = new Set(await cardMemberIds(trx, cardId));
    const toAdd = userIds.filter((id) => !onCard.has(id));
    const inTeam = await teamMembersAmong(trx, card.team_id, toAdd);
    const refused = userIds.flatMap((id, index) =>
      onCard.has(id) || inTeam.has(id) ? [] : [{ field: `body.members[${index}]`, index, message: `user ${id} is not a member of the card's team` }],
    );
    if (refused.length) {
      throw new ValidationError(`Not members of the card's team: ${refused.map((r) => userIds[r.index]).join(', ')}`, refused);
    }
    const removed = userIds.filter((id) => onCard.has(id));
    await removeCardMembers(trx, cardId, removed);
    await addCardMembers(trx, cardId, toAdd, at);
    await notify(trx, caller, 'card.assigned', toAdd, { card }, at);
    return { added: toAdd, removed };
  });
}
