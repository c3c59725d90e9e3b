/**
 * Checklist items: get, create, rename, date, complete, reorder (within and across the card's
 * checklists), toggle members, copy, delete. Every change takes the owning card's lock first in its
 * transaction (the change path, src/domain/cards/change.ts), then records a change of the item, of
 * the checklist(s) whose records embed it, and of the card.
 * Locks follow the rule of src/domain/access/access.ts: the card(s) first, in id order.
 */
import type { Checklist, ChecklistItem } from '../../schemas/checklists.ts';
import type { Executor, Transaction } from '../../storage/database.ts';
import { retireItemAttachments } from '../../storage/repositories/attachments.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import { requireAccess } from '../access/access.ts';
import { changeCardWorld } from '../cards/change.ts';
import { lockCardRows } from '../cards/locks.ts';
import { type CardChangeKind, type ChangeData, recordCardChange } from '../cards/recorder.ts';
import type { ServiceContext } from '../context.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { normaliseDate } from '../shared/dates.ts';
import { ConflictError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import type { Page } from '../shared/pagination.ts';
import { type PositionRequest, placeAmong } from '../shared/positions.ts';
import { isExpected } from '../shared/preconditions.ts';
import { newMade } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { loadChecklist, loadItem, type PageRequest, pageInPositionOrder } from './access.ts';
import { copyItemsInto } from './copy.ts';
import { MAX_ITEMS_PER_CHECKLIST } from './limits.ts';
import { toChecklistItems } from './records.ts';

/** Get Items: the checklist's items in order, one page of them. */
export async function getItems(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope, page: PageRequest): Promise<Page<ChecklistItem>> {
  await requireAccess(ctx.db, caller, { kind: 'checklist', id: checklistId, scope });
  const { nextCursor, ...shown } = await pageInPositionOrder(page, (after, limit) => items.loadItemRows(ctx.db, { checklistId, after, limit }));
  return { items: toChecklistItems(shown), nextCursor };
}

/** Get Item by ID: reach decided on the item's row, then the record loaded (as Get Card Details). */
export async function getItem(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope): Promise<ChecklistItem> {
  await requireAccess(ctx.db, caller, { kind: 'item', id: itemId, scope });
  return loadItem(ctx, itemId);
}

/** 409 when the checklist cannot take `adding` more items. */
function checkRoom(siblings: readonly unknown[], adding: number): void {
  if (siblings.length + adding > MAX_ITEMS_PER_CHECKLIST) {
    throw new ConflictError(`A checklist holds at most ${MAX_ITEMS_PER_CHECKLIST} items`, [
      { field: 'checklist', message: `has ${siblings.length} items; ${adding} more would exceed ${MAX_ITEMS_PER_CHECKLIST}` },
    ]);
  }
}

/** A position among the checklist's items, the item itself left out (renumbered ones count as changed). */
function placeInChecklist(
  trx: Transaction,
  siblings: readonly { id: string; position: number }[],
  request: PositionRequest | undefined,
  at: string,
): Promise<number> {
  return placeAmong(siblings, request, async (moves) => {
    for (const { id, position } of moves) await items.recordItemChange(trx, id, at, { position });
  });
}

/**
 * The users of a request that may be made members of an item on a card of `teamId`: no user twice
 * (400 naming the repeat), and each one added must be a member of the team (400 naming each other).
 */
async function checkMembers(trx: Executor, teamId: string, userIds: readonly string[], adding: (userId: string) => boolean): Promise<void> {
  rejectRepeatedIds(userIds, 'body.members');
  const inTeam = await teamMembersAmong(trx, teamId, userIds);
  const outsiders = userIds.flatMap((id, index) =>
    adding(id) && !inTeam.has(id) ? [{ field: `body.members[${index}]`, index, message: `user ${id} is not a member of the card's team` }] : [],
  );
  if (outsiders.length) throw new ValidationError(`Not members of the card's team: ${outsiders.map((o) => userIds[o.index]).join(', ')}`, outsiders);
}

export interface NewItem {
  name: string;
  date?: string | null | undefined;
  members?: string[] | undefined;
  position?: PositionRequest | undefined;
}

export async function createItem(ctx: ServiceContext, caller: Caller, checklistId: string, scope: Scope, input: NewItem): Promise<ChecklistItem> {
  const date = normaliseDate(input.date ?? null, 'date');
  return changeCardWorld(ctx, caller, { kind: 'checklist', id: checklistId, scope }, 'checklist.item.created', async (trx, { checklist }, at) => {
    const members = input.members ?? [];
    await checkMembers(trx, checklist.team_id, members, () => true);
    const siblings = await items.itemPositionsInChecklist(trx, checklistId);
    checkRoom(siblings, 1);
    const id = newId();
    await items.insertItems(trx, [
      {
        ...newMade(id, caller.userId, at),
        company_id: checklist.company_id,
        team_id: checklist.team_id,
        card_id: checklist.card_id,
        checklist_id: checklistId,
        name: input.name.trim(),
        position: await placeInChecklist(trx, siblings, input.position, at),
        date,
        complete_status: 0,
        complete_set_at: at,
      },
    ]);
    await items.insertItemMembers(
      trx,
      members.map((userId) => ({ item_id: id, user_id: userId, created_at: at })),
    );
    await checklists.recordChecklistChange(trx, checklistId, at);
    return { data: { checklistItem: id, name: input.name.trim(), members }, answer: (trx) => loadItem(ctx, id, trx) };
  });
}

/** What one item change writes, which other checklist (the one it moved from) changed too, and what else its event tells. */
interface ItemChange {
  fields?: Parameters<typeof items.recordItemChange>[3];
  alsoChanged?: string;
  data?: ChangeData;
  /** The kind of the change, where the change itself decides it (a flip of completion). */
  kind?: CardChangeKind;
}

/** The item's fields an event reports, by the name the item record shows. */
const ITEM_FIELDS = { name: 'name', date: 'date', complete_status: 'complete', position: 'position', checklist_id: 'checklist' } as const;

/** What the event of an item change tells: the changed fields, before and after (no query). */
function describeItemChange(item: items.ChecklistItemRow, fields: NonNullable<ItemChange['fields']>): ChangeData {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [column, field] of Object.entries(ITEM_FIELDS) as [keyof typeof ITEM_FIELDS, string][]) {
    if (!(column in fields)) continue;
    const flag = column === 'complete_status';
    const was = flag ? item[column] === 1 : (item[column] ?? null);
    const now = flag ? fields[column] === 1 : (fields[column] ?? null);
    if (was === now) continue;
    before[field] = was;
    after[field] = now;
  }
  return { fields: Object.keys(after), before, after };
}

/**
 * One change to a reachable item, through the change path (src/domain/cards/change.ts): the card's
 * lock, the item read again under it, changed; the item's and its checklist's `__v` + 1, then the
 * card's. Answers the item as the change left it. Exported for the attachment service, whose
 * changes to an item's attachments take this same path.
 */
export function changeItem(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  kind: CardChangeKind,
  change: (trx: Transaction, item: items.ChecklistItemRow, at: string) => Promise<ItemChange>,
): Promise<ChecklistItem> {
  return changeCardWorld(ctx, caller, { kind: 'item', id: itemId, scope }, kind, async (trx, { item }, at) => {
    const { fields, alsoChanged, data, kind: decided } = await change(trx, item, at);
    await items.recordItemChange(trx, itemId, at, fields);
    await checklists.recordChecklistChange(trx, fields?.checklist_id ?? item.checklist_id, at);
    if (alsoChanged) await checklists.recordChecklistChange(trx, alsoChanged, at);
    return { kind: decided, data: { ...data, ...(fields ? describeItemChange(item, fields) : {}) }, answer: (trx) => loadItem(ctx, itemId, trx) };
  });
}

export function renameItem(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope, name: string): Promise<ChecklistItem> {
  return changeItem(ctx, caller, itemId, scope, 'checklist.item.updated', async () => ({ fields: { name: name.trim() } }));
}

/** Update Item Date: a date, or null to clear it. */
export function setItemDate(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope, date: string | null): Promise<ChecklistItem> {
  const normalised = normaliseDate(date, 'date');
  return changeItem(ctx, caller, itemId, scope, 'checklist.item.updated', async () => ({ fields: { date: normalised } }));
}

/**
 * Toggle Item Complete Status: `status` sets it; absent, it flips. Setting the status the item
 * already has changes nothing and answers the item as it is.
 */
export async function toggleItemComplete(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope, status?: boolean): Promise<ChecklistItem> {
  // a conditional request is compared with the item's revision even when it would change nothing
  if (status !== undefined && !isExpected(caller, 'item', itemId)) {
    const item = await requireAccess(ctx.db, caller, { kind: 'item', id: itemId, scope });
    if ((item.complete_status === 1) === status) return loadItem(ctx, itemId);
  }
  return changeItem(ctx, caller, itemId, scope, 'checklist.item.completed', async (_trx, item, at) => {
    const next = status ?? item.complete_status !== 1;
    // a flip learns which way it goes only here
    return { fields: { complete_status: next ? 1 : 0, complete_set_at: at }, kind: next ? 'checklist.item.completed' : 'checklist.item.uncompleted' };
  });
}

/**
 * Reorder Item: `position` is an index among the target checklist's items; `checklist`, when given,
 * moves the item to another checklist of the same card (400 for a checklist of another card).
 */
export function moveItem(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  input: { position: PositionRequest; checklist?: string | undefined },
): Promise<ChecklistItem> {
  return changeItem(ctx, caller, itemId, scope, 'checklist.item.moved', async (trx, item, at) => {
    let targetId = item.checklist_id;
    if (input.checklist !== undefined && input.checklist !== item.checklist_id) {
      const target = await requireAccess(trx, caller, { kind: 'checklist', id: input.checklist });
      if (target.card_id !== item.card_id) {
        throw new ValidationError('An item moves only between checklists of its card', [
          { field: 'body.checklist', message: "must be a checklist of the item's card (use Copy Item for another card)" },
        ]);
      }
      targetId = target.id;
    }
    const siblings = await items.itemPositionsInChecklist(trx, targetId, item.id);
    if (targetId !== item.checklist_id) checkRoom(siblings, 1);
    const position = await placeInChecklist(trx, siblings, input.position, at);
    return {
      fields: { position, checklist_id: targetId },
      ...(targetId !== item.checklist_id ? { alsoChanged: item.checklist_id } : {}),
    };
  });
}

/**
 * Toggle Item Members: each user is added if absent, removed if present, all or none. Users added
 * must be members of the card's team; a user who left the team can still be removed. No user twice.
 */
export function toggleItemMembers(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope, userIds: readonly string[]): Promise<ChecklistItem> {
  return changeItem(ctx, caller, itemId, scope, 'checklist.item.members.toggled', async (trx, item, at) => {
    const present = new Set(await items.itemMemberIds(trx, itemId));
    await checkMembers(trx, item.team_id, userIds, (id) => !present.has(id));
    await items.removeItemMembers(
      trx,
      itemId,
      userIds.filter((id) => present.has(id)),
    );
    await items.insertItemMembers(
      trx,
      userIds.filter((id) => !present.has(id)).map((userId) => ({ item_id: itemId, user_id: userId, created_at: at })),
    );
    return { data: { added: userIds.filter((id) => !present.has(id)), removed: userIds.filter((id) => present.has(id)) } };
  });
}

/**
 * Copy Item: a copy (new id; name, date and completion kept) at the bottom of `checklist`, any
 * checklist the caller reaches; members not in that checklist's team are left out. Both cards
 * record a change.
 */
export async function copyItem(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope, input: { checklist: string }): Promise<ChecklistItem> {
  return inTransaction(ctx, async (trx) => {
    const seen = await requireAccess(trx, caller, { kind: 'item', id: itemId, scope });
    const targetSeen = await requireAccess(trx, caller, { kind: 'checklist', id: input.checklist });
    const at = nowIso();
    const locked = await lockCardRows(trx, [seen.card_id, targetSeen.card_id]);
    // Read again under the cards' locks: either card may have moved to another team meanwhile.
    const source = await requireAccess(trx, caller, { kind: 'item', id: itemId, scope });
    const target = await requireAccess(trx, caller, { kind: 'checklist', id: input.checklist });
    const siblings = await items.itemPositionsInChecklist(trx, target.id);
    checkRoom(siblings, 1);
    const position = await placeInChecklist(trx, siblings, 'bottom', at);
    const targetCard = { id: target.card_id, company_id: target.company_id, team_id: target.team_id };
    const copies = await copyItemsInto(trx, [{ source, checklistId: target.id, position }], targetCard, caller.userId, at);
    await checklists.recordChecklistChange(trx, target.id, at);
    const copy = copies.get(source.id) as string;
    const data = { checklistItem: source.id, checklist: target.id, card: target.card_id, copy };
    for (const card of locked.values()) await recordCardChange(trx, card, { caller, kind: 'checklist.item.copied', at, data });
    return loadItem(ctx, copy, trx);
  });
}

/** Delete Item: its attachments are marked deleted (files stay until the purge). Answers the checklist. */
export function deleteItem(ctx: ServiceContext, caller: Caller, itemId: string, scope: Scope): Promise<Checklist> {
  return changeCardWorld(ctx, caller, { kind: 'item', id: itemId, scope }, 'checklist.item.deleted', async (trx, { item }, at) => {
    await retireItemAttachments(trx, [itemId], at);
    await items.deleteItems(trx, [itemId]);
    await checklists.recordChecklistChange(trx, item.checklist_id, at);
    return { answer: (trx) => loadChecklist(ctx, item.checklist_id, trx) };
  });
}
