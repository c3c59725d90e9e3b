/** What checklist and item services share: reach, locking the cards, loading records, cursors. */
import type { Checklist, ChecklistItem } from '../../schemas/checklists.ts';
import type { Executor } from '../../storage/database.ts';
import * as items from '../../storage/repositories/checklist-items.ts';
import * as checklists from '../../storage/repositories/checklists.ts';
import { lockCardInReach } from '../cards/locks.ts';
import type { ServiceContext } from '../context.ts';
import { type Caller, requireReach, type Scope, type TeamOwned } from '../shared/caller.ts';
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
 * A row kept with a card (a checklist, an item), its card's change recorded first and reach decided
 * by the card as it is under that lock (`lockCardInReach`); then read again under the lock, so the
 * row is what this transaction works on (e.g. its team, had the card moved meanwhile). A row gone
 * meanwhile, or out of reach, is a 404 named `what`. The card a checklist or item sits on never changes.
 */
async function lockKeptWithCard<T extends TeamOwned & { card_id: string }>(
  trx: Executor,
  caller: Caller,
  find: (db: Executor) => Promise<T | undefined>,
  what: string,
  scope: Scope,
  at: string,
): Promise<T> {
  await lockCardInReach(trx, caller, (await find(trx))?.card_id, what, scope, at);
  return requireReach(caller, await find(trx), what, scope);
}

/** The reachable checklist, its card locked (`lockKeptWithCard`). */
export function lockChecklist(trx: Executor, caller: Caller, checklistId: string, scope: Scope, at: string): Promise<checklists.ChecklistRow> {
  return lockKeptWithCard(trx, caller, (db) => checklists.findChecklist(db, checklistId), 'Checklist', scope, at);
}

/** The reachable item, its card locked (`lockKeptWithCard`). */
export function lockItem(trx: Executor, caller: Caller, itemId: string, scope: Scope, at: string): Promise<items.ChecklistItemRow> {
  return lockKeptWithCard(trx, caller, (db) => items.findItem(db, itemId), 'Checklist item', scope, at);
}

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

/** The position key a cursor carries (400 for one this API did not hand out), and the page size. */
export function pageStart(page: PageRequest): { after: checklists.PositionKey | undefined; limit: number } {
  return {
    after: page.cursor === undefined ? undefined : decodeCursor(page.cursor, isPositionKey),
    limit: page.limit ?? DEFAULT_PAGE_SIZE,
  };
}

/** The cursor key of a checklist or item row. */
export const positionKeyOf = (row: { id: string; position: number }): checklists.PositionKey => ({ position: row.position, id: row.id });
