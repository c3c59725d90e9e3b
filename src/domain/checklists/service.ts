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
import { changeCardWorld } from '../cards/change.ts';
import { lockCardRows } from '../cards/locks.ts';
import { type CardChangeKind, recordCardChange } from '../cards/recorder.ts';
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

export function createChecklist(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  input: { name: string; position?: PositionRequest | undefined },
): Promise<Checklist> {
  return changeCardWorld(ctx, caller, { kind: 'card', id: cardId, scope }, 'checklist.created', async (trx, { card }, at) => {
    const id = newId();
    // the new checklist is stamped with the card's team as it is under the card's lock
    await checklists.insertChecklist(trx, {
      ...newMade(id, caller.userId, at),
      ...onCard(card),
      name: input.name.trim(),
      position: await placeOnCard(trx, cardId, input.position, at),
    });
    return { data: { checklist: id, name: input.name.trim() }, answer: (trx) => loadChecklist(ctx, id, trx) };
  });
}

/**
 * One change to a reachable checklist, through the change path (src/domain/cards/change.ts): the
 * card's lock, then the checklist read again under it, changed, its `__v` + 1; answers the checklist
 * as the change left it.
 */
function changeChecklist(
  ctx: ServiceContext,
  caller: Caller,
  checklistId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: Transaction, checklist: checklists.ChecklistRow, at: string) => Promise<{ name?: string; position?: number }>,
): Promise<Checklist> {
  return changeCardWorld(ctx, caller, { kind: 'checklist', id: checklistId, scope }, kind, async (trx, { checklist }, at) => {
    await checklists.recordChecklistChange(trx, checklistId, at, await change(trx, checklist, at));
    return { answer: (trx) => loadChecklist(ctx, checklistId, trx) };
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
    const locked = await lockCardRows(trx, [seen.card_id, input.card]);
    // Read again under the cards' locks: either card may have moved to another team meanwhile.
    const source = await requireAccess(trx, caller, { kind: 'checklist', id: checklistId, scope });
    const target = await requireAccess(trx, caller, { kind: 'card', id: input.card });
    const copy = await copyChecklistInto(trx, source, target, await placeOnCard(trx, target.id, 'bottom', at), caller.userId, at);
    // both cards' events tell the same copy: from which checklist, to which card, as which checklist
    const data = { checklist: source.id, card: target.id, copy };
    for (const card of locked.values()) await recordCardChange(trx, card, { caller, kind: 'checklist.copied', at, data });
    return loadChecklist(ctx, copy, trx);
  });
}

/**
 * Delete Checklist: removes it and its items; their attachments are marked deleted (their files
 * stay until the purge). Answers the card.
 */
export function deleteChecklist(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope): Promise<Card> {
  return changeCardWorld(ctx, caller, { kind: 'checklist', id: checklistId, scope }, 'checklist.deleted', async (trx, { checklist }, at) => {
    await retireItemAttachments(trx, await items.itemIdsOfChecklist(trx, checklistId), at);
    await checklists.deleteChecklist(trx, checklistId);
    return { answer: (trx) => loadCard(ctx, checklist.card_id, trx) };
  });
}
