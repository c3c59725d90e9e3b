/** Checks of the notification fields against the tables they are derived from. */
import assert from 'node:assert/strict';
import type { Executor } from '../../src/storage/database.ts';

const FLAGS = [
  ['notified_start_one_hour', 'startOneHour', 'start_date'],
  ['notified_start_one_day', 'startOneDay', 'start_date'],
  ['notified_due_one_hour', 'dueOneHour', 'due_date'],
  ['notified_due_one_day', 'dueOneDay', 'due_date'],
] as const;

/**
 * Every derived flag equals what the source tables say: a cheer's `is_notified`/`notification` name
 * the one cheer.received notification of that cheer (or none); a card's `notified_*` flag is set
 * exactly when a `card.reminder` event of that reminder, for the date the card has now, was recorded,
 * and then each recipient holds one card.reminder notification of it.
 */
export async function assertDerivedFlagsMatchSources(db: Executor): Promise<void> {
  const cheers = await db.selectFrom('cheers').select(['id', 'is_notified', 'notification']).execute();
  const told = await db.selectFrom('notifications').select(['id', 'cheer_id']).where('type', '=', 'cheer.received').execute();
  for (const cheer of cheers) {
    const mine = told.filter((n) => n.cheer_id === cheer.id).map((n) => n.id);
    assert.deepEqual([Number(cheer.is_notified), cheer.notification], mine.length ? [1, mine[0]] : [0, ''], `cheer ${cheer.id}`);
    assert.ok(mine.length <= 1, `cheer ${cheer.id}: one notification at most`);
  }
  const cards = await db.selectFrom('cards').selectAll().execute();
  const reminders = await db.selectFrom('events').select(['card_id', 'data']).where('type', '=', 'card.reminder').execute();
  const notified = await db.selectFrom('notifications').select(['card_id', 'reminder']).where('type', '=', 'card.reminder').execute();
  for (const card of cards) {
    for (const [column, key, dateColumn] of FLAGS) {
      const sent = reminders.filter((e) => {
        const data = JSON.parse(e.data) as { reminder?: string; date?: string };
        return e.card_id === card.id && data.reminder === key && data.date === card[dateColumn];
      });
      assert.equal(Number(card[column]), sent.length > 0 ? 1 : 0, `card ${card.name}: ${key}`);
      assert.ok(sent.length <= 1, `card ${card.name}: ${key} sent once for its date`);
      if (sent.length)
        assert.ok(
          notified.some((n) => n.card_id === card.id && n.reminder === key),
          `card ${card.name}: ${key} notified someone`,
        );
    }
  }
}
