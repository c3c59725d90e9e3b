import type { Executor } from '../database.ts';
import { dialectOf } from '../dialect.ts';

/** The users' sign-in fields (migration 0013): docs/people.md. */

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function anyUserExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Serializes first-run setups until the transaction ends: the second finds the first's user. */
export async function lockSetup(trx: Executor): Promise<void> {
  await dialectOf(trx).locks.lockInTransaction(trx, 'people:setup');
}
