/**
 * Copying checklists and items: the row work that Copy Checklist, Copy Item and Copy Card share.
 * These functions write rows only; the calling service owns the transaction, the reach checks and
 * the `recordCardChange` of the cards involved (the target card's lock must already be held).
 * Copies keep name, order, date and completion; the copier becomes the creator of every new row,
 * created at `at`; item members come along only when they are members of the target card's team.
 * Attachments are not copied (a file belongs to one record, so the purge can remove it with that record).
 */
import type { Executor, NewRow } from '../../storage/database.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import { newId } from '../shared/ids.ts';
import { POSITION_STEP } from '../shared/positions.ts';

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

/** Copies items onto `targetCard` as `copies` say, with new ids. Answers the new ids, in the order of `copies`. */
export async function copyItemsInto(
  trx: Executor,
  copies: readonly ItemCopy[],
  targetCard: TargetCard,
  creatorId: string,
  at: string,
): Promise<string[]> {
  const newIds = new Map(copies.map(({ source }) => [source.id, newId()]));
  await items.insertItems(
    trx,
    copies.map(({ source, checklistId, position }) => ({
      id: newIds.get(source.id) as string,
      company_id: targetCard.company_id,
      team_id: targetCard.team_id,
      card_id: targetCard.id,
      checklist_id: checklistId,
      name: source.name,
      position,
      date: source.date,
      complete_status: source.complete_status,
      complete_set_at: source.complete_set_at,
      creator_id: creatorId,
      created_at: at,
      updated_at: at,
      version: 0,
    })),
  );
  const members = await items.itemMembersInTeam(trx, [...newIds.keys()], targetCard.team_id);
  await items.insertItemMembers(
    trx,
    members.map((m): NewRow<'checklist_item_members'> => ({ item_id: newIds.get(m.item_id) as string, user_id: m.user_id, created_at: m.created_at })),
  );
  return [...newIds.values()];
}

/**
 * Copies the checklists `sources` onto `targetCard`, the i-th at `positions[i]` (a position among
 * the target card's checklists), with new ids and the same names, and all their items in their
 * order with new ids, in one pass whatever the number of checklists. Answers the new checklist ids
 * in the order of `sources`.
 */
async function copyChecklistRows(
  trx: Executor,
  sources: readonly checklists.ChecklistRow[],
  targetCard: TargetCard,
  positions: readonly number[],
  creatorId: string,
  at: string,
): Promise<string[]> {
  const copyOf = new Map(sources.map((source) => [source.id, newId()]));
  for (const [i, source] of sources.entries()) {
    await checklists.insertChecklist(trx, {
      id: copyOf.get(source.id) as string,
      company_id: targetCard.company_id,
      team_id: targetCard.team_id,
      card_id: targetCard.id,
      name: source.name,
      position: positions[i] as number,
      creator_id: creatorId,
      created_at: at,
      updated_at: at,
      version: 0,
    });
  }
  // The items of all the sources, by checklist in display order: the n-th of each goes n-th in its copy.
  const placed = new Map<string, number>();
  const copies = (await items.itemsOfChecklists(trx, [...copyOf.keys()])).map((source): ItemCopy => {
    const n = (placed.get(source.checklist_id) ?? 0) + 1;
    placed.set(source.checklist_id, n);
    return { source, checklistId: copyOf.get(source.checklist_id) as string, position: n * POSITION_STEP };
  });
  await copyItemsInto(trx, copies, targetCard, creatorId, at);
  return [...copyOf.values()];
}

/**
 * Copies the checklist `source` (a row read under the lock of its card) onto `targetCard` at
 * `position` (e.g. from `place`), with all its items. Answers the new checklist's id.
 */
export async function copyChecklistInto(
  trx: Executor,
  source: checklists.ChecklistRow,
  targetCard: TargetCard,
  position: number,
  creatorId: string,
  at: string,
): Promise<string> {
  const [id] = await copyChecklistRows(trx, [source], targetCard, [position], creatorId, at);
  return id as string;
}

/**
 * Copies every checklist of the card `fromCardId`, in order, onto `targetCard` after the checklists
 * it already has, with their items. For Copy Card: call it inside the copy's transaction, after
 * inserting the new card. Answers the new checklist ids in order.
 */
export async function copyChecklistsOfCard(
  trx: Executor,
  fromCardId: string,
  targetCard: TargetCard,
  creatorId: string,
  at: string,
): Promise<string[]> {
  const sources = await checklists.checklistsOfCard(trx, fromCardId);
  const existing = await checklists.checklistPositionsOnCard(trx, targetCard.id);
  const start = existing.at(-1)?.position ?? 0;
  const positions = sources.map((_, i) => start + (i + 1) * POSITION_STEP);
  return copyChecklistRows(trx, sources, targetCard, positions, creatorId, at);
}
