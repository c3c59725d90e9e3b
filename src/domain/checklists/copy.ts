/**
 * Copying checklists and items: the row work that Copy Checklist, Copy Item and Copy Card share.
 * These functions write rows only; the calling service owns the transaction, the reach checks and
 * the `recordCardChange` of the cards involved (the target card's lock must already be held).
 * Copies keep name, order, date and completion; the copier becomes the creator of every new row,
 * created at `at`; item members come along only when they are members of the target card's team.
 * Attachments are not copied (a file belongs to one record, so the purge can remove it with that record).
 */
import type { NewRow, Transaction } from '../../storage/database.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import { newId } from '../shared/ids.ts';
import { POSITION_STEP } from '../shared/positions.ts';
import { newMade, onCard } from '../shared/records.ts';

/** The card a copy goes to: its id and the company and team the copied rows then belong to. */
export interface TargetCard {
  id: string;
  company_id: string;
  team_id: string;
}

/** One item to copy: its row, the checklist (of the target card) its copy goes in, and the copy's position there. */
export interface ItemCopy {
  source: items.ChecklistItemRow;
  checklistId: string;
  position: number;
}

/** Which item each copied item became: source item id → copy's id, in the order of the copies. */
export type ItemCopies = Map<string, string>;

/** Copies items onto `targetCard` as `copies` say, with new ids. Answers which copy each source item became. */
export async function copyItemsInto(trx: Transaction, copies: readonly ItemCopy[], targetCard: TargetCard, creatorId: string, at: string): Promise<ItemCopies> {
  const newIds = new Map(copies.map(({ source }) => [source.id, newId()]));
  await items.insertItems(
    trx,
    copies.map(({ source, checklistId, position }) => ({
      ...newMade(newIds.get(source.id) as string, creatorId, at),
      ...onCard(targetCard),
      checklist_id: checklistId,
      name: source.name,
      position,
      date: source.date,
      complete_status: source.complete_status,
      complete_set_at: source.complete_set_at,
    })),
  );
  const members = await items.itemMembersInTeam(trx, [...newIds.keys()], targetCard.team_id);
  await items.insertItemMembers(
    trx,
    members.map((m): NewRow<'checklist_item_members'> => ({ item_id: newIds.get(m.item_id) as string, user_id: m.user_id, created_at: m.created_at })),
  );
  return newIds;
}

/** What a copy of checklists made: the new checklist ids, in the order of their sources, and the item copies. */
export interface ChecklistCopies {
  checklists: string[];
  items: ItemCopies;
}

/**
 * Copies the checklists `sources` onto `targetCard`, the i-th at `positions[i]` (a position among
 * the target card's checklists), with new ids and the same names, and all their items in their
 * order with new ids, in one pass whatever the number of checklists. Answers the new checklist ids
 * in the order of `sources`, and the item copies in display order (by checklist, then by item).
 */
async function copyChecklistRows(
  trx: Transaction,
  sources: readonly checklists.ChecklistRow[],
  targetCard: TargetCard,
  positions: readonly number[],
  creatorId: string,
  at: string,
): Promise<ChecklistCopies> {
  const copyOf = new Map(sources.map((source) => [source.id, newId()]));
  for (const [i, source] of sources.entries()) {
    await checklists.insertChecklist(trx, {
      ...newMade(copyOf.get(source.id) as string, creatorId, at),
      ...onCard(targetCard),
      name: source.name,
      position: positions[i] as number,
    });
  }
  // The items of all the sources in one query; the n-th of each checklist goes n-th in its copy.
  const itemsOf = new Map(sources.map((source): [string, items.ChecklistItemRow[]] => [source.id, []]));
  for (const item of await items.itemsOfChecklists(trx, [...copyOf.keys()])) itemsOf.get(item.checklist_id)?.push(item);
  const copies = sources.flatMap((checklist) => {
    const checklistId = copyOf.get(checklist.id) as string;
    return (itemsOf.get(checklist.id) ?? []).map((source, n): ItemCopy => ({ source, checklistId, position: (n + 1) * POSITION_STEP }));
  });
  return { checklists: [...copyOf.values()], items: await copyItemsInto(trx, copies, targetCard, creatorId, at) };
}

/**
 * Copies the checklist `source` (a row read under the lock of its card) onto `targetCard` at
 * `position` (e.g. from `place`), with all its items. Answers the new checklist's id.
 */
export async function copyChecklistInto(
  trx: Transaction,
  source: checklists.ChecklistRow,
  targetCard: TargetCard,
  position: number,
  creatorId: string,
  at: string,
): Promise<string> {
  const {
    checklists: [id],
  } = await copyChecklistRows(trx, [source], targetCard, [position], creatorId, at);
  return id as string;
}

/**
 * Copies every checklist of the card `fromCardId`, in order, onto `targetCard` after the checklists
 * it already has, with their items. For Copy Card: call it inside the copy's transaction, after
 * inserting the new card. Answers the new checklist ids in order, and which copy each source item
 * became, in display order.
 */
export async function copyChecklistsOfCard(
  trx: Transaction,
  fromCardId: string,
  targetCard: TargetCard,
  creatorId: string,
  at: string,
): Promise<ChecklistCopies> {
  const sources = await checklists.checklistsOfCard(trx, fromCardId);
  const existing = await checklists.checklistPositionsOnCard(trx, targetCard.id);
  const start = existing.at(-1)?.position ?? 0;
  const positions = sources.map((_, i) => start + (i + 1) * POSITION_STEP);
  return copyChecklistRows(trx, sources, targetCard, positions, creatorId, at);
}
