/** What checklist and item services share: loading records, cursors. (Reach and locks: src/domain/access/access.ts.) */
import type { Checklist, ChecklistItem } from '../../schemas/checklists.ts';
import type { Executor } from '../../storage/database.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import type { ServiceContext } from '../context.ts';
import { NotFoundError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, type Page, toPage } from '../shared/pagination.ts';
import { toChecklist, toChecklistItems } from './records.ts';

export async function loadItem(ctx: ServiceContext, itemId: string, db: Executor = ctx.db): Promise<ChecklistItem> {
  const [item] = toChecklistItems(await items.loadItemRows(db, { itemIds: [itemId] }));
  if (!item) throw new NotFoundError('Checklist item');
  return item;
}

/** Checklist records, with their items, in the order of `rows`. */
export async function toChecklists(ctx: ServiceContext, rows: readonly checklists.ChecklistRow[], db: Executor = ctx.db): Promise<Checklist[]> {
  const loaded = toChecklistItems(await items.loadItemRows(db, { checklistIds: rows.map((r) => r.id) }));
  return rows.map((row) => toChecklist(row, loaded));
}

export async function loadChecklist(ctx: ServiceContext, checklistId: string, db: Executor = ctx.db): Promise<Checklist> {
  const row = await checklists.findChecklist(db, checklistId);
  if (!row) throw new NotFoundError('Checklist');
  return (await toChecklists(ctx, [row], db))[0] as Checklist;
}

/** A page request as the routes pass it. */
export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

function isPositionKey(key: unknown): key is checklists.PositionKey {
  const k = key as { position?: unknown; id?: unknown } | null;
  return typeof k === 'object' && k !== null && typeof k.position === 'number' && Number.isFinite(k.position) && isId(k.id) && Object.keys(k).length === 2;
}

/**
 * One page of checklists or items in position order: `load` reads from just after the cursor's key
 * (400 for a cursor this API did not hand out) one row more than the page, which only tells whether
 * another page follows; answers what `load` answered with `items` cut to the page, and the cursor.
 */
export async function pageInPositionOrder<L extends { items: readonly { id: string; position: number }[] }>(
  page: PageRequest,
  load: (after: checklists.PositionKey | undefined, limit: number) => Promise<L>,
): Promise<Omit<L, 'items'> & Page<L['items'][number]>> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, isPositionKey);
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const loaded = await load(after, limit + 1);
  return { ...loaded, ...toPage(loaded.items, limit, (row): checklists.PositionKey => ({ position: row.position, id: row.id })) };
}
