/**
 * Card faces (docs/decisions/0094): what a board page shows of each card, read without building
 * the full Card records. The same reach as the full reads (the access module), the same order and
 * the same cursors as Get Board with Lists and Cards and Get List Card.
 */
import type { BoardWithCardFaces, CardFace } from '../../schemas/card-faces.ts';
import { boardCardFaces, type CardFaceRow, type DatesWindow, listCardFaces, loadCardFaces } from '../../storage/repositories/card-faces.ts';
import type { ListCardsAfter } from '../../storage/repositories/cards.ts';
import { findListsOfBoard } from '../../storage/repositories/lists.ts';
import { requireAccess } from '../access/access.ts';
import { toBoard, toList } from '../boards/records.ts';
import type { ServiceContext } from '../context.ts';
import { toCustomFieldValues } from '../fields/records.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { DEFAULT_PAGE_SIZE, type Page, toPage } from '../shared/pagination.ts';
import { listCardsStart } from './listing.ts';
import { toMember } from './records.ts';

export function toCardFace(row: CardFaceRow): CardFace {
  return {
    _id: row.id,
    name: row.name,
    position: row.position,
    cover: row.cover,
    startDate: row.start_date,
    dueDate: row.due_date,
    complete: { status: Boolean(Number(row.complete_status)) },
    archived: { status: Boolean(Number(row.archived)) },
    isTemplate: Boolean(Number(row.is_template)),
    labels: row.labels,
    members: row.members.map(toMember),
    allChecklistItemsCount: { completed: row.items_completed, total: row.items_total },
    commentsCount: row.comments_count,
    attachmentsCount: row.attachments_count,
    hasDescription: row.has_description,
    customFields: toCustomFieldValues(row.field_values),
    board: row.board_id,
    list: row.list_id,
    __v: Number(row.version),
  };
}

/** A page of the list's card faces after `after`, with the cursor the next page (of either listing) starts from. */
async function facesPage(
  ctx: ServiceContext,
  listId: string,
  archived: boolean,
  after: ListCardsAfter | undefined,
  limit: number,
  window: DatesWindow | undefined,
): Promise<Page<CardFace>> {
  return toFacesPage(await listCardFaces(ctx.db, listId, archived, after, limit + 1, window), limit);
}

export interface DatesWindowQuery {
  from?: string | undefined;
  to?: string | undefined;
  by?: DatesWindow['by'] | undefined;
}

/**
 * The window a query asks for (docs/decisions/0295), in the stored dates' form; undefined when it
 * asks for none. `from` and `to` come together, and `to` is after `from`.
 */
export function datesWindowOf(query: DatesWindowQuery): DatesWindow | undefined {
  if (query.from === undefined && query.to === undefined) {
    if (query.by !== undefined) throw new ValidationError('by needs a window', [{ field: 'querystring.by', message: 'give from and to with by' }]);
    return undefined;
  }
  if (query.from === undefined || query.to === undefined) {
    const missing = query.from === undefined ? 'from' : 'to';
    throw new ValidationError(`${missing} is missing`, [{ field: `querystring.${missing}`, message: 'a window needs both from and to' }]);
  }
  const from = new Date(query.from);
  const to = new Date(query.to);
  if (!(from < to)) throw new ValidationError('to is not after from', [{ field: 'querystring.to', message: 'must be after from' }]);
  return { from: from.toISOString(), to: to.toISOString(), by: query.by ?? 'due' };
}

/** A page of faces from up to `limit` + 1 rows: the cursor (Get List Card's) when there are more. */
function toFacesPage(rows: CardFaceRow[], limit: number): Page<CardFace> {
  const page = toPage(rows, limit, (row): ListCardsAfter => ({ position: row.position, cardId: row.id }));
  return { items: page.items.map(toCardFace), nextCursor: page.nextCursor };
}

/**
 * Get Board Card Faces: the board, its lists in position order, each with the faces of its first
 * `limit` unarchived cards and the `nextCursor` the rest are read from: bounded by the lists.
 */
export async function getBoardCardFaces(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  query: { archived?: boolean | undefined; limit?: number | undefined },
  window?: DatesWindow,
): Promise<BoardWithCardFaces> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const lists = await findListsOfBoard(ctx.db, board.id, query.archived ?? false);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const byList = new Map<string, CardFaceRow[]>();
  for (const row of await boardCardFaces(ctx.db, board.id, limit + 1, window)) {
    const rows = byList.get(row.list_id);
    if (rows) rows.push(row);
    else byList.set(row.list_id, [row]);
  }
  return {
    ...toBoard(board),
    lists: lists.map((list) => {
      const page = toFacesPage(byList.get(list.id) ?? [], limit);
      return { ...toList(list), cards: page.items, nextCursor: page.nextCursor };
    }),
  };
}

/**
 * Get Board Card Faces by Dates (docs/decisions/0295): Get Board Card Faces with each list holding
 * only its cards in the dates window, `limit` of them, and the cursor Get List Card Faces (given the
 * same window) continues from. What a calendar or timeline shows of a board, without the rest.
 */
export async function getBoardDatedCardFaces(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  query: DatesWindowQuery & { limit?: number | undefined },
): Promise<BoardWithCardFaces> {
  const window = datesWindowOf(query);
  // the schema requires both ends
  if (!window) throw new ValidationError('from and to are missing', [{ field: 'querystring.from', message: 'is required' }]);
  return getBoardCardFaces(ctx, caller, boardId, scope, { limit: query.limit }, window);
}

/** Get List Card Faces: Get List Card's pages (the same cursors), as faces; with a dates window, only the cards in it. */
export async function listCardFacesOfList(
  ctx: ServiceContext,
  caller: Caller,
  listId: string,
  scope: Scope,
  query: DatesWindowQuery & { archived?: boolean | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<CardFace>> {
  const window = datesWindowOf(query);
  const list = await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope });
  const archived = query.archived ?? false;
  const after = await listCardsStart(ctx, list.id, archived, query.cursor);
  return facesPage(ctx, list.id, archived, after, query.limit ?? DEFAULT_PAGE_SIZE, window);
}

/** Get Card Face: one card's face (what a board page re-reads when the card changed). */
export async function getCardFace(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope): Promise<CardFace> {
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  const [row] = await loadCardFaces(ctx.db, [card.id]);
  // deleted between the two reads
  if (!row) throw new NotFoundError('Card');
  return toCardFace(row);
}
