import type { Executor, Transaction } from '../database.ts';
import { type BoardRow, type Reach, reachCondition } from './boards.ts';

/** The boards the user starred that `reach` takes in, open and not deleted, in the order they were starred. */
export async function listStarredBoards(db: Executor, reach: Reach, userId: string): Promise<BoardRow[]> {
  const condition = reachCondition(reach, 'boards');
  if (!condition) return [];
  return db
    .selectFrom('board_stars')
    .innerJoin('boards', 'boards.id', 'board_stars.board_id')
    .selectAll('boards')
    .where('board_stars.user_id', '=', userId)
    .where(condition)
    .where('boards.deleted_at', 'is', null)
    .where('boards.archived', '=', 0)
    .orderBy('board_stars.created_at')
    .orderBy('boards.id')
    .execute();
}

/** Stars the board for the user; false when it was starred already (two at once: one of them stars it). */
export async function addStar(db: Transaction, boardId: string, userId: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('board_stars')
    .values({ board_id: boardId, user_id: userId, created_at: at })
    .onConflict((conflict) => conflict.columns(['user_id', 'board_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Takes the user's star off the board; false when there was none. */
export async function removeStar(db: Transaction, boardId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('board_stars').where('board_id', '=', boardId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
