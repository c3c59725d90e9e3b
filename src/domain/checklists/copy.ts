/**
 * Copying checklists and items: the row work that Copy Checklist, Copy Item and Copy Card share.
 * These functions write rows only; the calling service owns the transaction, the reach checks and
 * the `recordCardChange` of the cards involved.
 */
import type { Executor, NewRow } from '../../storage/database.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import { NotFoundError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { POSITION_STEP } from '../shared/positions.ts';

/** The card a copy goes to: its id and the company and team the copied rows then belong to. */
export interface TargetCard {
  id: string;
  company_id: string;
  team_id: string;
}

/**
 * Copies items (rows of `checklist_items`, in the order given) into the checklist `target` of
 * `targetCard`, at `positions[i]`, with new ids: each keeps its name, date and completion (status and
 * when it was set); the copier becomes the creator and `at` the creation time; its members come
 * along only when they belong to the team `keepMembersOfTeam`. Attachments are not copied (a file
 * belongs to one record, so the purge can remove it with that record). Answers the new ids, in order.
 */
export async function copyItemsInto(
  trx: Executor,
  sourceItems: readonly items.ChecklistItemRow[],
  target: { checklistId: string; card: TargetCard },
  positions: readonly number[],
  creatorId: string,
  keepMembersOfTeam: string,
  at: string,
): Promise<string[]> {
  const newIds = new Map(sourceItems.map((item) => [item.id, newId()]));
  await items.insertItems(
    trx,
    sourceItems.map((item, i) => ({
      id: newIds.get(item.id) as string,
      company_id: target.card.company_id,
      team_id: target.card.team_id,
      card_id: target.card.id,
      checklist_id: target.checklistId,
      name: item.name,
      position: positions[i] as number,
      date: item.date,
      complete_status: item.complete_status,
      complete_set_at: item.complete_set_at,
      creator_id: creatorId,
      created_at: at,
      updated_at: at,
      version: 0,
    })),
  );
  const members = await items.itemMembersInTeam(trx, [...newIds.keys()], keepMembersOfTeam);
  await items.insertItemMembers(
    trx,
    members.map((m): NewRow<'checklist_item_members'> => ({ item_id: newIds.get(m.item_id) as string, user_id: m.user_id, created_at: m.created_at })),
  );
  return [...newIds.values()];
}

/**
 * Copies the checklist `checklistId` onto `targetCard` at `position` (a position number among the
 * target card's checklists, e.g. from `place`), with a new id and the same name, and all its items
 * in their order with new ids: items keep name, order, date and completion; item members are kept
 * only when they are members of the team `keepMembersOfTeam` (normally the target card's team);
 * item attachments are not copied. The copier `creatorId` becomes the creator of every new row,
 * created at `at`. Runs inside the caller's transaction (`trx`), which must already hold the target
 * card's lock (`recordCardChange` first). Answers the new checklist's id; 404 when the source
 * checklist does not exist.
 */
export async function copyChecklistInto(
  trx: Executor,
  checklistId: string,
  targetCard: TargetCard,
  position: number,
  creatorId: string,
  keepMembersOfTeam: string,
  at: string,
): Promise<string> {
  const source = await checklists.findChecklist(trx, checklistId);
  if (!source) throw new NotFoundError('Checklist');
  const id = newId();
  await checklists.insertChecklist(trx, {
    id,
    company_id: targetCard.company_id,
    team_id: targetCard.team_id,
    card_id: targetCard.id,
    name: source.name,
    position,
    creator_id: creatorId,
    created_at: at,
    updated_at: at,
    version: 0,
  });
  const sourceItems = await items.itemsOfChecklists(trx, [checklistId]);
  await copyItemsInto(
    trx,
    sourceItems,
    { checklistId: id, card: targetCard },
    sourceItems.map((_, i) => (i + 1) * POSITION_STEP),
    creatorId,
    keepMembersOfTeam,
    at,
  );
  return id;
}

/**
 * Copies every checklist of the card `fromCardId`, in order, onto `targetCard` after the checklists
 * it already has, each through `copyChecklistInto` (items, order, dates and completion kept; item
 * members kept only when they are members of the target card's team). For Copy Card: call it inside
 * the copy's transaction, after inserting the new card; the new rows belong to the target card's
 * company and team, are created by `creatorId` at `at`. Answers the new checklist ids in order.
 */
export async function copyChecklistsOfCard(
  trx: Executor,
  fromCardId: string,
  targetCard: TargetCard,
  creatorId: string,
  at: string,
): Promise<string[]> {
  const sources = await checklists.checklistPositionsOnCard(trx, fromCardId);
  const existing = await checklists.checklistPositionsOnCard(trx, targetCard.id);
  const start = existing.at(-1)?.position ?? 0;
  const copies: string[] = [];
  for (const [i, source] of sources.entries()) {
    copies.push(await copyChecklistInto(trx, source.id, targetCard, start + (i + 1) * POSITION_STEP, creatorId, targetCard.team_id, at));
  }
  return copies;
}
