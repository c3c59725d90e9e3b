/**
 * A rule's actions, applied to one card through the services every request uses (the one change
 * path: access with the rule author's reach, the card's lock, its `__v` and its events), all joined
 * into the run's transaction (ServiceContext.transaction), so they commit together with the run's
 * end or not at all.
 */
import type { RuleAction } from '../../schemas/rules.ts';
import type { Transaction } from '../../storage/database.ts';
import { cardMemberIds } from '../../storage/repositories/card-copies.ts';
import { findCard } from '../../storage/repositories/cards.ts';
import { cardState } from '../../storage/repositories/rules.ts';
import { setCardArchived } from '../cards/archive.ts';
import { toggleLabels } from '../cards/labels.ts';
import { toggleMembers } from '../cards/members.ts';
import { reorderCard } from '../cards/position.ts';
import { createCard } from '../cards/service.ts';
import { updateCard } from '../cards/update.ts';
import { createItem } from '../checklists/items.ts';
import { createChecklist } from '../checklists/service.ts';
import { createComment } from '../comments/service.ts';
import type { ServiceContext } from '../context.ts';
import { notify } from '../notifications/notify.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { shiftedDue, toFlip } from './definition.ts';

/** What one action did, for the run's history. */
export type ActionChange = { action: RuleAction['type'] } & Record<string, unknown>;

/**
 * Applies the actions in order to the card, in `trx`, as `caller` (the rule's author, marked with the
 * rule); answers what each action that changed something did.
 */
export async function applyActions(
  ctx: ServiceContext,
  trx: Transaction,
  caller: Caller,
  cardId: string,
  actions: readonly RuleAction[],
): Promise<ActionChange[]> {
  const joined: ServiceContext = { ...ctx, db: trx, transaction: trx };
  const changes: ActionChange[] = [];
  for (const action of actions) {
    const card = await cardState(trx, cardId);
    if (!card) throw new NotFoundError('Card');
    switch (action.type) {
      case 'move': {
        if (card.list_id === action.list) break;
        const moved = await reorderCard(joined, caller, cardId, {}, { list: action.list, position: action.position });
        changes.push({ action: action.type, from: card.list_id, to: moved.list });
        break;
      }
      case 'labels.add':
      case 'labels.remove':
      case 'labels.toggle': {
        const flip = toFlip(action.type.slice(7) as 'add' | 'remove' | 'toggle', action.labels, card.labels);
        if (!flip.length) break;
        await toggleLabels(joined, caller, cardId, {}, flip);
        changes.push({ action: action.type, labels: flip });
        break;
      }
      case 'members.add':
      case 'members.remove':
      case 'members.toggle': {
        const flip = toFlip(action.type.slice(8) as 'add' | 'remove' | 'toggle', action.users, card.members);
        if (!flip.length) break;
        await toggleMembers(joined, caller, cardId, {}, flip);
        changes.push({ action: action.type, users: flip });
        break;
      }
      case 'due.set':
      case 'due.shift': {
        const due = action.type === 'due.set' ? action.date : shiftedDue(action, card.due_date, ctx.clock.now());
        if (due === card.due_date) break;
        await updateCard(joined, caller, cardId, {}, { dueDate: due });
        changes.push({ action: action.type, before: card.due_date, after: due });
        break;
      }
      case 'complete':
        if (Boolean(Number(card.complete_status)) === action.status) break;
        await updateCard(joined, caller, cardId, {}, { complete: { status: action.status } });
        changes.push({ action: action.type, status: action.status });
        break;
      case 'checklist.add': {
        const checklist = await createChecklist(joined, caller, cardId, {}, { name: action.name });
        for (const name of action.items) await createItem(joined, caller, checklist._id, {}, { name });
        changes.push({ action: action.type, checklist: checklist._id });
        break;
      }
      case 'comment': {
        const comment = await createComment(joined, caller, cardId, {}, action.text);
        changes.push({ action: action.type, comment: comment._id });
        break;
      }
      case 'archive':
        if (Number(card.archived)) break;
        await setCardArchived(joined, caller, cardId, {}, true);
        changes.push({ action: action.type });
        break;
      case 'card.create': {
        const created = await createCard(joined, caller, {}, { list: action.list, name: action.name, position: action.position });
        changes.push({ action: action.type, card: created._id });
        break;
      }
      case 'notify': {
        const row = await findCard(trx, cardId);
        const members = await cardMemberIds(trx, cardId);
        if (!row || !members.length) break;
        // the rule tells them, not its author: the author is told too, and the notification has no actor
        await notify(trx, null, 'rule.notified', members, { card: row }, nowIso());
        changes.push({ action: action.type, users: members });
        break;
      }
    }
  }
  return changes;
}
