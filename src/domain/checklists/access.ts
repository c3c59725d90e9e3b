/** What checklist and item services share: reach, locking the cards, loading records, cursors. */
import type { Checklist, ChecklistItem } from '../../schemas/checklists.ts';
import type { Executor } from '../../storage/database.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import { recordCardChanges } from '../cards/locks.ts';
import type { ServiceContext } from '../context.ts';
import { type Caller, requireReach, type Scope } from '../shared/caller.ts';
import { NotFoundError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE } from '../shared/pagination.ts';
import { toChecklist, toChecklistItems } from './records.ts';

export async function reachableChecklist(db: Executor, caller: Caller, checklistId: string, scope: Scope = {}) {
  return requireReach(caller, await checklists.findChecklist(db, checklistId), 'Checklist', scope);
}

export async function reachableItem(db: Executor, caller: Caller, itemId: string, scope: Scope = {}) {
  return requireReach(caller, await items.findItem(db, itemId), 'Checklist item', scope);
}

/**
 * The reachable checklist, read again once its card's change is recorded: the card's lock is then
 * held, so the row is what this transaction works on (a concurrent request may have changed it, e.g.
 * moved its card to another team), and the reach is checked again on it.
 */
export async function lockChecklist(trx: Executor, caller: Caller, checklistId: string, scope: Scope, at: string): Promise<checklists.ChecklistRow> {
  const seen = await reachableChecklist(trx, caller, checklistId, scope);
  await recordCardChanges(trx, [seen.card_id], at);
  return reachableChecklist(trx, caller, checklistId, scope);
}

/** The reachable item, read again once its card's change is recorded (as `lockChecklist`). */
export async function lockItem(trx: Executor, caller: Caller, itemId: string, scope: Scope, at: string): Promise<items.ChecklistItemRow> {
  const seen = await reachableItem(trx, caller, itemId, scope);
  await recordCardChanges(trx, [seen.card_id], at);
  return reachableItem(trx, caller, itemId, scope);
}

export async function loadItem(ctx: ServiceContext, itemId: string, db: Executor = ctx.db): Promise<ChecklistItem> {
  const [item] = toChecklistItems(await items.loadItemRows(db, ctx.engine, { itemIds: [itemId] }));
  if (!item) throw new NotFoundError('Checklist item');
  return item;
}

/** Checklist records, with their items, in the order of `rows`. */
export async function toChecklists(ctx: ServiceContext, rows: readonly checklists.ChecklistRow[], db: Executor = ctx.db): Promise<Checklist[]> {
  const loaded = toChecklistItems(await items.loadItemRows(db, ctx.engine, { checklistIds: rows.map((r) => r.id) }));
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

/** The position key a cursor carries (400 for one this API did not hand out), and the page size. */
export function pageStart(page: PageRequest): { after: checklists.PositionKey | undefined; limit: number } {
  return {
    after: page.cursor === undefined ? undefined : decodeCursor(page.cursor, isPositionKey),
    limit: page.limit ?? DEFAULT_PAGE_SIZE,
  };
}

/** The cursor key of a checklist or item row. */
export const positionKeyOf = (row: { id: string; position: number }): checklists.PositionKey => ({ position: row.position, id: row.id });
