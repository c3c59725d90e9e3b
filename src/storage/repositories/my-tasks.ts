import type { Executor } from '../database.ts';
import { type Reach, reachCondition } from './boards.ts';
import { viewBodyThatCounts } from './card-views.ts';

/** Where a page of My Tasks starts: strictly after this key (the last card of the previous page). */
export type MyTasksAfter =
  | { by: 'assigned'; assignedAt: string; cardId: string }
  | { by: 'position'; position: number; cardId: string };

export interface MyTasksQuery {
  userId: string;
  reach: Reach;
  /** Only this list's cards, in position order; otherwise every list's, in the order the user was assigned. */
  listId?: string | undefined;
  complete?: boolean | undefined;
  /** Also the cards of archived boards and lists. */
  archived?: boolean | undefined;
  after?: MyTasksAfter | undefined;
  /** Rows to fetch (a page plus one, to tell whether there is more). */
  take: number;
  /** The form of the stored views to answer (src/domain/cards/view.ts). */
  form: string;
}

export interface MyTaskRef {
  id: string;
  position: number;
  assigned_at: string;
  /** The card's stored view of the query's form while it counts (src/storage/repositories/card-views.ts), else null. */
  view_body: string | null;
}

/** Unarchived cards the user is a member of, within `reach`, in page order: ids, sort keys and views that count. */
export async function findMyTaskRefs(db: Executor, query: MyTasksQuery): Promise<MyTaskRef[]> {
  const condition = reachCondition(query.reach, 'c');
  if (!condition) return [];
  let select = db
    .selectFrom('card_members as m')
    .innerJoin('cards as c', 'c.id', 'm.card_id')
    .select(['c.id', 'c.position', 'm.created_at as assigned_at', viewBodyThatCounts('c', query.form).as('view_body')])
    .where('m.user_id', '=', query.userId)
    .where('c.archived', '=', 0)
    .where('c.deleted_at', 'is', null)
    .where(condition);
  if (!query.archived) {
    select = select
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('lists as l').select('l.id').whereRef('l.id', '=', 'c.list_id').where('l.archived', '=', 1))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('boards as b').select('b.id').whereRef('b.id', '=', 'c.board_id').where('b.archived', '=', 1))),
      );
  }
  if (query.listId !== undefined) select = select.where('c.list_id', '=', query.listId);
  if (query.complete !== undefined) select = select.where('c.complete_status', '=', query.complete ? 1 : 0);
  const after = query.after;
  if (query.listId !== undefined) {
    if (after?.by === 'position') {
      select = select.where((eb) =>
        eb.or([eb('c.position', '>', after.position), eb.and([eb('c.position', '=', after.position), eb('c.id', '>', after.cardId)])]),
      );
    }
    select = select.orderBy('c.position').orderBy('c.id');
  } else {
    if (after?.by === 'assigned') {
      select = select.where((eb) =>
        eb.or([eb('m.created_at', '>', after.assignedAt), eb.and([eb('m.created_at', '=', after.assignedAt), eb('m.card_id', '>', after.cardId)])]),
      );
    }
    // the order of the index card_members_user_assigned (migration 0007): a page reads in order and stops
    select = select.orderBy('m.created_at').orderBy('m.card_id');
  }
  return select.limit(query.take).execute();
}
