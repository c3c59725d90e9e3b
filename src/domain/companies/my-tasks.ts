import { findMyTaskRefs, type MyTaskRef, type MyTasksAfter } from '../../storage/repositories/my-tasks.ts';
import { requireAccess } from '../access/access.ts';
import { type CardRenderer, cardViewForm, cardViews } from '../cards/view.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import type { TaggedBody } from '../shared/entity-tags.ts';
import { isId } from '../shared/ids.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, type Page, toPage } from '../shared/pagination.ts';

export interface MyTasksOptions {
  complete?: boolean | undefined;
  /** Also the cards of archived boards and lists. */
  archived?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Cursor keys: `["a", assignedAt, cardId]` across lists, `["p", position, cardId]` within a list. */
type CursorKey = ['a', string, string] | ['p', number, string];

function isCursorKey(by: 'a' | 'p') {
  return (key: unknown): key is CursorKey =>
    Array.isArray(key) &&
    key.length === 3 &&
    key[0] === by &&
    (by === 'a' ? typeof key[1] === 'string' && key[1].length > 0 && key[1].length <= 64 : typeof key[1] === 'number' && Number.isFinite(key[1])) &&
    isId(key[2]);
}

function after(cursor: string | undefined, by: 'a' | 'p'): MyTasksAfter | undefined {
  if (cursor === undefined) return undefined;
  const key = decodeCursor(cursor, isCursorKey(by));
  return key[0] === 'a' ? { by: 'assigned', assignedAt: key[1], cardId: key[2] } : { by: 'position', position: key[1], cardId: key[2] };
}

/** The page's cards rendered by `render`, each from its stored view where that counts (../cards/view.ts). */
async function cardsPage(
  ctx: ServiceContext,
  refs: MyTaskRef[],
  limit: number,
  keyOf: (ref: MyTaskRef) => CursorKey,
  render: CardRenderer,
): Promise<Page<TaggedBody>> {
  const page = toPage(refs, limit, keyOf);
  return { items: await cardViews(ctx, page.items, render), nextCursor: page.nextCursor };
}

/**
 * List All My Tasks: the unarchived cards the caller is a member of, in every team it reaches
 * (narrowed by `companyId`/`teamId` and `complete`), in the order the caller was made a member:
 * a card the caller joins later comes after every page already read, so pages never repeat or skip.
 */
export async function listMyTasks(ctx: ServiceContext, caller: Caller, scope: Scope, options: MyTasksOptions, render: CardRenderer): Promise<Page<TaggedBody>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope });
  const refs = await findMyTaskRefs(ctx.db, {
    userId: caller.userId,
    reach,
    complete: options.complete,
    archived: options.archived,
    after: after(options.cursor, 'a'),
    take: limit + 1,
    form: cardViewForm(),
  });
  return cardsPage(ctx, refs, limit, (ref) => ['a', ref.assigned_at, ref.id], render);
}

/** List All My Tasks In List: the same, for one list the caller reaches, in the list's position order. */
export async function listMyTasksInList(
  ctx: ServiceContext,
  caller: Caller,
  listId: string,
  scope: Scope,
  options: MyTasksOptions,
  render: CardRenderer,
): Promise<Page<TaggedBody>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const list = await requireAccess(ctx.db, caller, { kind: 'list', id: listId, scope });
  const reach = await requireAccess(ctx.db, caller, { kind: 'collection', scope: {} });
  const refs = await findMyTaskRefs(ctx.db, {
    userId: caller.userId,
    reach,
    listId: list.id,
    complete: options.complete,
    archived: options.archived,
    after: after(options.cursor, 'p'),
    take: limit + 1,
    form: cardViewForm(),
  });
  return cardsPage(ctx, refs, limit, (ref) => ['p', ref.position, ref.id], render);
}
