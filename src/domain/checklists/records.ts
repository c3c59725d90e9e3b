import type { Checklist, ChecklistItem } from '../../schemas/checklists.ts';
import type { ChecklistItemRow, ItemRows } from '../../storage/repositories/checklist-items.ts';
import type { ChecklistRow } from '../../storage/repositories/checklists.ts';
import { type CheerRow, toAttachments, toCheer, toMember } from '../cards/records.ts';
import { madeInTeam } from '../shared/records.ts';

/** Row → API record mappings for checklists and their items. */

function toChecklistItem(
  row: ChecklistItemRow & { members: { id: string; full_name: string; photo_url: string }[]; attachments: unknown[] },
  extras: Omit<ItemRows, 'items'>,
): ChecklistItem {
  const attachments = toAttachments(row.attachments, extras.attachmentSeen, (id) =>
    (extras.cheers as CheerRow[]).filter((c) => c.primary_id === id).map(toCheer),
  );
  return {
    ...madeInTeam(row),
    name: row.name,
    checklist: row.checklist_id,
    card: row.card_id,
    position: row.position,
    date: row.date,
    complete: { status: Number(row.complete_status) === 1, setAt: row.complete_set_at ?? row.created_at },
    members: row.members.map(toMember),
    attachments,
  };
}

/** The item records of loaded rows, in the order loaded. */
export function toChecklistItems(rows: ItemRows): ChecklistItem[] {
  return rows.items.map((row) => toChecklistItem(row, rows));
}

/** The checklist record with its items (each item's `checklist` names the checklist it goes in). */
export function toChecklist(row: ChecklistRow, items: readonly ChecklistItem[]): Checklist {
  const own = items.filter((item) => item.checklist === row.id);
  return {
    ...madeInTeam(row),
    name: row.name,
    card: row.card_id,
    position: row.position,
    items: own,
    completedCount: own.filter((item) => item.complete.status).length,
  };
}
