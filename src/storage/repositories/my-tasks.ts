import type { Executor } from '../database.ts';
import { dialectOf, executeCompiledOnce } from '../dialect.ts';
import { compiledReach, type Reach } from './boards.ts';
import { viewBodyThatCounts } from './card-views.ts';
import type { CardRef } from './cards.ts';
import { pastKey } from './order.ts';

/** Where a page of My Tasks starts: strictly after this key (the last card of the previous page). */
export type MyTasksAfter = { by: 'assigned'; assignedAt: string; cardId: string } | { by: 'position'; position: number; cardId: string };

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

/** A card of a page of My Tasks (its stored view of the query's form), with when the user was made a member. */
export interface MyTaskRef extends CardRef {
  assigned_at: string;
}

/**
 * Unarchived cards the user is a member of, within `reach`, in page order: ids, sort keys and views
 * that count. One statement compiled once per form (which filters the query has).
 */
export async function findMyTaskRefs(db: Executor, query: MyTasksQuery): Promise<MyTaskRef[]> {
  const dialect = dialectOf(db);
  const reach = compiledReach(dialect, query.reach, 'c');
  if (!reach) return [];
  const inList = query.listId !== undefined;
  const after = query.after;
  const afterKey = inList ? (after?.by === 'position' ? after.position : undefined) : after?.by === 'assigned' ? after.assignedAt : undefined;
  const shape = [
    reach.shape,
    query.archived ? 'archived' : '',
    inList ? 'list' : '',
    query.complete === undefined ? '' : 'complete',
    afterKey === undefined ? '' : 'after',
  ];
  return executeCompiledOnce(
    db,
    `my task refs ${shape.join(' ')}`,
    (param) => {
      // The card of a membership, when the page shows it: `cards` as `c` in scope.
      // (`any`: the filters apply to the outer query or to the lateral subquery, whose builder types differ)
      const shown = <Q extends { where: (...args: any[]) => Q }>(cards: Q): Q => {
        let select = cards.where('c.archived', '=', 0).where('c.deleted_at', 'is', null).where(reach.condition(param));
        if (!query.archived) {
          select = select
            .where(({ not, exists, selectFrom }: any) =>
              not(exists(selectFrom('lists as l').select('l.id').whereRef('l.id', '=', 'c.list_id').where('l.archived', '=', 1))),
            )
            .where(({ not, exists, selectFrom }: any) =>
              not(exists(selectFrom('boards as b').select('b.id').whereRef('b.id', '=', 'c.board_id').where('b.archived', '=', 1))),
            );
        }
        if (inList) select = select.where('c.list_id', '=', param('listId'));
        if (query.complete !== undefined) select = select.where('c.complete_status', '=', param('complete'));
        return select;
      };
      const columns = ['c.id', 'c.position', 'm.created_at as assigned_at'] as const;
      // In the order of the memberships (no list), PostgreSQL joins each membership's card by itself
      // (LATERAL), so the walk of the index stops at the page's end: as a plain join its plans sorted
      // every membership of the user first. SQLite's plan walks in order already.
      let select =
        !inList && dialect.fragments.joinsLaterally
          ? db
              .selectFrom('card_members as m')
              .innerJoinLateral(
                (eb) =>
                  shown(
                    eb
                      .selectFrom('cards as c')
                      .select(['c.id', 'c.position', viewBodyThatCounts('c', param('form')).as('view_body')])
                      .whereRef('c.id', '=', 'm.card_id'),
                  )
                    // a fence: kept a subquery, not merged back into a plain join
                    .offset(0)
                    .as('c'),
                (join) => join.onTrue(),
              )
              .select([...columns, 'c.view_body'])
              .where('m.user_id', '=', param('userId'))
          : shown(
              db
                .selectFrom('card_members as m')
                .innerJoin('cards as c', 'c.id', 'm.card_id')
                .select([...columns, viewBodyThatCounts('c', param('form')).as('view_body')])
                .where('m.user_id', '=', param('userId')),
            );
      if (inList) {
        if (afterKey !== undefined) {
          select = select.where(pastKey(['c.position', 'c.id'], [param('afterKey'), param('afterId')]));
        }
        select = select.orderBy('c.position').orderBy('c.id');
      } else {
        if (afterKey !== undefined) {
          select = select.where(pastKey(['m.created_at', 'm.card_id'], [param('afterKey'), param('afterId')]));
        }
        // the order of the index card_members_user_assigned (migration 0007): a page reads in order and stops
        select = select.orderBy('m.created_at').orderBy('m.card_id');
      }
      return select.limit(param('take'));
    },
    {
      ...reach.values,
      userId: query.userId,
      listId: query.listId,
      complete: query.complete ? 1 : 0,
      afterKey,
      afterId: after?.cardId,
      take: query.take,
      form: query.form,
    },
  );
}
