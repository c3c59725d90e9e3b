import { findCard, type ListCardsAfter, listCardRefs } from '../../storage/repositories/cards.ts';
import { findCompanyById } from '../../storage/repositories/companies.ts';
import { findTeamById } from '../../storage/repositories/teams.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import type { TaggedBody } from '../shared/entity-tags.ts';
import { NotFoundError } from '../shared/errors.ts';
import { isId } from '../shared/ids.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, type Page, toPage } from '../shared/pagination.ts';
import { type CardRenderer, cardViewForm, cardViews } from './view.ts';

/** A Get List Card cursor carries the place of the last card a page showed. */
function isListCardsKey(key: unknown): key is ListCardsAfter {
  const k = key as Partial<ListCardsAfter> | null;
  return typeof k === 'object' && k !== null && typeof k.position === 'number' && Number.isFinite(k.position) && isId(k.cardId);
}

export interface ListCardsQuery {
  archived?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Get List Card: the list's unarchived cards (or, with `archived`, its archived ones) in position
 * order, a page at a time. A page starts strictly after the card the previous page ended on, at
 * that card's current position: a card placed by index can make the whole list renumbered (same
 * order, new numbers), and the card's own place is what keeps the walk from repeating or skipping
 * cards. Should that card have left the list meanwhile, the position the cursor recorded serves.
 * Cards added behind the walk (before the cursor) are not shown by later pages; those added ahead are.
 * Each card comes rendered by `render`, from its stored view where that counts (./view.ts).
 */
export async function listCardsOfList(
  ctx: ServiceContext,
  caller: Caller,
  listId: string,
  scope: Scope,
  query: ListCardsQuery,
  render: CardRenderer,
): Promise<Page<TaggedBody>> {
  const list = await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope });
  const archived = query.archived ?? false;
  const after = await listCardsStart(ctx, list.id, archived, query.cursor);
  const page = await cardRefsPage(ctx, list.id, archived, after, query.limit ?? DEFAULT_PAGE_SIZE);
  return { items: await cardViews(ctx, page.items, render), nextCursor: page.nextCursor };
}

/**
 * Where a page of the list's cards starts (Get List Card and Get List Card Faces share their
 * cursors): after the card the cursor names, at its current place while it is still in the list,
 * else at the place the cursor recorded. Undefined: the first page.
 */
export async function listCardsStart(ctx: ServiceContext, listId: string, archived: boolean, cursor: string | undefined): Promise<ListCardsAfter | undefined> {
  if (cursor === undefined) return undefined;
  const key = decodeCursor(cursor, isListCardsKey);
  const anchor = await findCard(ctx.db, key.cardId);
  const stillHere = anchor && anchor.list_id === listId && Boolean(Number(anchor.archived)) === archived;
  return stillHere ? { position: anchor.position, cardId: anchor.id } : key;
}

function cardRefsPage(ctx: ServiceContext, listId: string, archived: boolean, after: ListCardsAfter | undefined, limit: number) {
  return listCardRefs(ctx.db, listId, archived, after, limit + 1, cardViewForm()).then((refs) =>
    toPage(refs, limit, (ref): ListCardsAfter => ({ position: ref.position, cardId: ref.id })),
  );
}

/** The first page of a list's unarchived cards (ids), with the cursor Get List Card continues from. */
export function firstCardsOfList(ctx: ServiceContext, listId: string, limit: number) {
  return cardRefsPage(ctx, listId, false, undefined, limit);
}

/** Get Card Company and Team: the names of the company and team a card the caller reaches is in. */
export async function getCardCompanyAndTeam(ctx: ServiceContext, caller: Caller, cardId: string, scope: Scope) {
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  const [company, team] = await Promise.all([findCompanyById(ctx.db, card.company_id), findTeamById(ctx.db, card.team_id)]);
  // both outlive their cards (deleting either deletes the card); this is a delete between two reads
  if (!company || !team) throw new NotFoundError('Card');
  return { company: { _id: company.id, name: company.name }, team: { _id: team.id, name: team.name } };
}
