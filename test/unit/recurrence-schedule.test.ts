/**
 * Occurrences of recurring cards in their time zone, across daylight-saving changes: the wall-clock
 * time stays, the UTC instant moves by the zone's offset; skipped and repeated wall times; the last
 * Friday of a month; COUNT and UNTIL; bad schedules named.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { occurrencesAfter, scheduleProblem } from '../../src/domain/recurrences/schedule.ts';

const iso = (list: number[]) => list.map((ms) => new Date(ms).toISOString());

describe('recurrence schedules', () => {
  it('keeps 09:00 in Europe/Berlin across the spring change (30 March 2031)', () => {
    const schedule = { rule: 'FREQ=DAILY', startsAt: '2031-03-28T09:00', timeZone: 'Europe/Berlin' };
    assert.deepEqual(iso(occurrencesAfter(schedule, null, 4)), [
      '2031-03-28T08:00:00.000Z',
      '2031-03-29T08:00:00.000Z',
      '2031-03-30T07:00:00.000Z',
      '2031-03-31T07:00:00.000Z',
    ]);
  });

  it('keeps 09:00 in Europe/Berlin across the autumn change (26 October 2031)', () => {
    const schedule = { rule: 'FREQ=DAILY', startsAt: '2031-10-25T09:00', timeZone: 'Europe/Berlin' };
    assert.deepEqual(iso(occurrencesAfter(schedule, null, 3)), ['2031-10-25T07:00:00.000Z', '2031-10-26T08:00:00.000Z', '2031-10-27T08:00:00.000Z']);
  });

  it('keeps 09:00 in America/New_York across both changes (9 March and 2 November 2031)', () => {
    const spring = { rule: 'FREQ=DAILY', startsAt: '2031-03-08T09:00', timeZone: 'America/New_York' };
    assert.deepEqual(iso(occurrencesAfter(spring, null, 3)), ['2031-03-08T14:00:00.000Z', '2031-03-09T13:00:00.000Z', '2031-03-10T13:00:00.000Z']);
    const autumn = { rule: 'FREQ=DAILY', startsAt: '2031-11-01T09:00', timeZone: 'America/New_York' };
    assert.deepEqual(iso(occurrencesAfter(autumn, null, 3)), ['2031-11-01T13:00:00.000Z', '2031-11-02T14:00:00.000Z', '2031-11-03T14:00:00.000Z']);
  });

  it('moves a wall time the zone skips forward by the gap, and takes the first of a repeated one', () => {
    const skipped = { rule: 'FREQ=DAILY;COUNT=3', startsAt: '2031-03-29T02:30', timeZone: 'Europe/Berlin' };
    // 02:30 on 30 March does not exist in Berlin: 03:30 CEST
    assert.deepEqual(iso(occurrencesAfter(skipped, null, 5)), ['2031-03-29T01:30:00.000Z', '2031-03-30T01:30:00.000Z', '2031-03-31T00:30:00.000Z']);
    const repeated = { rule: 'FREQ=DAILY;COUNT=2', startsAt: '2031-11-01T01:30', timeZone: 'America/New_York' };
    // 01:30 on 2 November happens twice in New York: the first (EDT, 05:30Z)
    assert.deepEqual(iso(occurrencesAfter(repeated, null, 5)), ['2031-11-01T05:30:00.000Z', '2031-11-02T05:30:00.000Z']);
  });

  it('answers occurrences strictly after an instant, weekly on chosen days, the last Friday, until a date', () => {
    const weekly = { rule: 'FREQ=WEEKLY;BYDAY=MO,WE', startsAt: '2031-03-03T09:00', timeZone: 'Europe/Berlin' };
    assert.deepEqual(iso(occurrencesAfter(weekly, Date.parse('2031-03-03T08:00:00.000Z'), 3)), [
      '2031-03-05T08:00:00.000Z',
      '2031-03-10T08:00:00.000Z',
      '2031-03-12T08:00:00.000Z',
    ]);
    const lastFriday = { rule: 'FREQ=MONTHLY;BYDAY=-1FR', startsAt: '2031-01-01T17:00', timeZone: 'Europe/Berlin' };
    assert.deepEqual(iso(occurrencesAfter(lastFriday, null, 3)), ['2031-01-31T16:00:00.000Z', '2031-02-28T16:00:00.000Z', '2031-03-28T16:00:00.000Z']);
    const until = { rule: 'FREQ=YEARLY;UNTIL=20330101T000000Z', startsAt: '2031-06-01T12:00', timeZone: 'America/New_York' };
    assert.equal(occurrencesAfter(until, null, 10).length, 2);
  });

  it('names what is wrong with a schedule', () => {
    assert.equal(scheduleProblem({ rule: 'FREQ=DAILY', startsAt: '2031-03-01T09:00', timeZone: 'Mars/Olympus' })?.field, 'timeZone');
    assert.equal(scheduleProblem({ rule: 'FREQ=DAILY', startsAt: '2031-02-30T09:00', timeZone: 'Europe/Berlin' })?.field, 'startsAt');
    assert.equal(scheduleProblem({ rule: 'FREQ=SOMETIMES', startsAt: '2031-03-01T09:00', timeZone: 'Europe/Berlin' })?.field, 'rule');
    assert.equal(scheduleProblem({ rule: 'FREQ=DAILY', startsAt: '2031-03-01T09:00', timeZone: 'Europe/Berlin' }), undefined);
  });
});
