/**
 * Checklists of a card: get, create, rename, reorder, copy, delete. Every change records a change
 * of the owning card first in its transaction (its `__v`, `updatedAt` and row lock) and of the
 * checklist itself; answers are read inside the transaction, so they show what the request did.
 * Locks follow the rule of src/domain/access/access.ts: the card(s) first, in id order, then the
 * checklists and items, which the card's lock guards.
 */

import type { Checklist } from '../../schemas/checklists.ts';
import type { Card } from '../../schemas/records.ts';
import type { Transaction } from '../../storage/database.ts';
import { retireItemAttachments } from '../../storage/repositories/attachments.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import { requireAccess } from '../access/access.ts';
import { type CardChangeKind, cardEventOf, recordCardChanges } from '../cards/recorder.ts';
import { loadCard } from '../cards/service.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { newId, nowIso } from '../shared/ids.ts';
import type { Page } from '../shared/pagination.ts';
import { type PositionRequest, placeAmong } from '../shared/positions.ts';
import { newMade, onCard } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { loadChecklist, type PageRequest, pageInPositionOrder, toChecklists } from './access.ts';
import { copyChecklistInto } from './copy.ts';

/** Get Checklists: the card's checklists in order, each with all its items; one page of them. */
export async function getChecklists(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope, page: PageRequest): Promise<Page<Checklist>> {
  await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  const { items: rows, nextCursor } = await pageInPositionOrder(page, async (after, limit) => ({
    items: await checklists.checklistsOfCard(ctx.db, cardId, { ...(after ? { after } : {}), limit }),
  }));
  return { items: await toChecklists(ctx, rows), nextCursor };
}

/** A position for a new or moved checklist among the card's others (renumbered ones count as changed). */
async function placeOnCard(trx: Transaction, cardId: string, request: PositionRequest | undefined, at: string, except?: string): Promise<number> {
  return placeAmong(await checklists.checklistPositionsOnCard(trx, cardId, except), request, async (moves) => {
    for (const { id, position } of moves) await checklists.recordChecklistChange(trx, id, at, { position });
  });
}

export async function createChecklist(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  input: { name: string; position?: PositionRequest | undefined },
): Promise<Checklist> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    // the new checklist is stamped with the card's team as it is under the card's lock
    const card = await requireAccess(trx, caller, { kind: 'card', id: cardId, scope, lock: true, at, change: 'checklist.created' });
    const id = newId();
    await checklists.insertChecklist(trx, {
      ...newMade(id, caller.userId, at),
      ...onCard(card),
      name: input.name.trim(),
      position: await placeOnCard(trx, cardId, input.position, at),
    });
    Object.assign(cardEventOf(trx, cardId).data, { checklist: id, name: input.name.trim() });
    return loadChecklist(ctx, id, trx);
  });
}

/**
 * One change to a reachable checklist: the card's change first (its lock), then the checklist read
 * again under that lock, changed, its `__v` + 1; answers the checklist as the change left it.
 */
async function changeChecklist(
  ctx: ServiceContext,
  caller: Caller,
  checklistId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: Transaction, checklist: checklists.ChecklistRow, at: string) => Promise<{ name?: string; position?: number }>,
): Promise<Checklist> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const checklist = await requireAccess(trx, caller, { kind: 'checklist', id: checklistId, scope, lock: true, at, change: kind });
    await checklists.recordChecklistChange(trx, checklistId, at, await change(trx, checklist, at));
    return loadChecklist(ctx, checklistId, trx);
  });
}

export function renameChecklist(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope, name: string): Promise<Checklist> {
  return changeChecklist(ctx, caller, checklistId, scope, 'checklist.updated', async () => ({ name: name.trim() }));
}

/** Reorder Checklist Position: `position` is an index among the card's checklists, or top/bottom. */
export function moveChecklist(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope, position: PositionRequest): Promise<Checklist> {
  return changeChecklist(ctx, caller, checklistId, scope, 'checklist.moved', async (trx, checklist, at) => ({
    position: await placeOnCard(trx, checklist.card_id, position, at, checklist.id),
  }));
}

/**
 * Copy Checklist: a copy (new ids, same name, items with their order, dates and completion) at the
 * bottom of `card`'s checklists; `card` is any card the caller reaches, in any of its teams. Item
 * members not in the target card's team are left out. Both cards record a change.
 */
export async function copyChecklist(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope, input: { card: string }): Promise<Checklist> {
  return inTransaction(ctx, async (trx) => {
    const seen = await requireAccess(trx, caller, { kind: 'checklist', id: checklistId, scope });
    await requireAccess(trx, caller, { kind: 'card', id: input.card });
    const at = nowIso();
    const events = await recordCardChanges(trx, [seen.card_id, input.card], { caller, kind: 'checklist.copied', at });
    // Read again under the cards' locks: either card may have moved to another team meanwhile.
    const source = await requireAccess(trx, caller, { kind: 'checklist', id: checklistId, scope });
    const target = await requireAccess(trx, caller, { kind: 'card', id: input.card });
    const copy = await copyChecklistInto(trx, source, target, await placeOnCard(trx, target.id, 'bottom', at), caller.userId, at);
    // both cards' events tell the same copy: from which checklist, to which card, as which checklist
    for (const event of events.values()) Object.assign(event.data, { checklist: source.id, card: target.id, copy });
    return loadChecklist(ctx, copy, trx);
  });
}

/**
 * Delete Checklist: removes it and its items; their attachments are marked deleted (their files
 * stay until the purge). Answers the card.
 */
export async function deleteChecklist(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope): Promise<Card> {
  return inTransaction(ctx, async (trx) => {
    const at = nowIso();
    const checklist = await requireAccess(trx, caller, { kind: 'checklist', id: checklistId, scope, lock: true, at, change: 'checklist.deleted' });
    await retireItemAttachments(trx, await items.itemIdsOfChecklist(trx, checklistId), at);
    await checklists.deleteChecklist(trx, checklistId);
    return loadCard(ctx, checklist.card_id, trx);
  });
}
