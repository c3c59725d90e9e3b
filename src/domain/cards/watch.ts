/**
 * Watching a card (docs/decisions/0254-watching-cards.md): a person who reaches a card and is not its
 * member may watch it, and is then told of it as its members are (comments, reminders, the overdue
 * notice: src/domain/access/people.ts `cardAudience`). Watching is the person's own: it is no change
 * of the card (its `__v` stays), recorded as a `card.watched` or `card.unwatched` event addressed
 * to them.
 */
import * as watchers from '../../storage/repositories/watchers.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';

/** Get Card Watch: whether the caller watches the card. */
export async function getCardWatch(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope): Promise<{ watching: boolean }> {
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  return { watching: await watchers.isWatching(ctx.db, card.id, caller.userId) };
}

/** Watch Card or Unwatch Card: the caller's watch set as asked; again is no change (and no event). */
export function setCardWatch(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, watching: boolean): Promise<{ watching: boolean }> {
  return inTransaction(ctx, async (trx) => {
    const { card } = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true });
    const at = nowIso();
    const changed = watching ? await watchers.addWatcher(trx, card.id, caller.userId, at) : await watchers.removeWatcher(trx, card.id, caller.userId);
    if (changed) {
      const subject = { company: card.company_id, team: card.team_id, board: card.board_id, card: card.id, user: caller.userId };
      recordEvent(trx, caller, watching ? 'card.watched' : 'card.unwatched', subject, { card: card.id }, at);
    }
    return { watching };
  });
}
