/**
 * The calendar's and timeline's days (web/src/board/views/days.ts): which day a date falls on in the
 * person's time zone, a card dropped on a day keeping its time of day and its span (across a change
 * of summer time too), a card given its first date, and a timeline end that never passes the other.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { datesOnDay, dayOf, daysBetween, moveDates, resizeDates } from '../../web/src/board/views/days.ts';

const BERLIN = 'Europe/Berlin';
const END = { hour: 17, minute: 0 };
const START = { hour: 9, minute: 0 };

describe('the board views’ days', () => {
  it('put a date on its day in the person’s time zone', () => {
    assert.equal(dayOf('2031-03-10T23:30:00.000Z', BERLIN), '2031-03-11');
    assert.equal(dayOf('2031-03-10T23:30:00.000Z', 'America/New_York'), '2031-03-10');
    assert.equal(daysBetween('2031-02-27', '2031-03-02'), 3);
    assert.equal(daysBetween('2031-03-02', '2031-02-27'), -3);
  });

  it('move a dropped card’s date to the day at its time of day, and its other date as many days', () => {
    const card = { startDate: '2031-03-03T07:00:00.000Z', dueDate: '2031-03-05T13:30:00.000Z' };
    assert.deepEqual(datesOnDay(card, 'dueDate', '2031-03-12', BERLIN, END), {
      startDate: '2031-03-10T07:00:00.000Z',
      dueDate: '2031-03-12T13:30:00.000Z',
    });
    assert.deepEqual(datesOnDay(card, 'startDate', '2031-03-01', BERLIN, START), {
      startDate: '2031-03-01T07:00:00.000Z',
      dueDate: '2031-03-03T13:30:00.000Z',
    });
    assert.deepEqual(datesOnDay(card, 'dueDate', '2031-03-05', BERLIN, END), {}, 'the same day changes nothing');
  });

  it('keep the wall-clock time across a change of summer time', () => {
    // 17:00 in Berlin is 16:00 UTC in winter and 15:00 UTC from the last Sunday of March
    const card = { startDate: null, dueDate: '2031-03-28T16:00:00.000Z' };
    assert.deepEqual(datesOnDay(card, 'dueDate', '2031-03-31', BERLIN, END), { dueDate: '2031-03-31T15:00:00.000Z' });
    assert.deepEqual(moveDates(card, -3, BERLIN), { dueDate: '2031-03-25T16:00:00.000Z' });
  });

  it('give a card without the date the working day’s time, moving the other date when it would cross', () => {
    assert.deepEqual(datesOnDay({ startDate: null, dueDate: null }, 'dueDate', '2031-03-12', BERLIN, END), { dueDate: '2031-03-12T16:00:00.000Z' });
    assert.deepEqual(datesOnDay({ startDate: null, dueDate: null }, 'startDate', '2031-03-12', BERLIN, START), { startDate: '2031-03-12T08:00:00.000Z' });
    // a start after the new due date: the start takes the due date's moment
    assert.deepEqual(datesOnDay({ startDate: '2031-03-20T08:00:00.000Z', dueDate: null }, 'dueDate', '2031-03-12', BERLIN, END), {
      dueDate: '2031-03-12T16:00:00.000Z',
      startDate: '2031-03-12T16:00:00.000Z',
    });
    assert.deepEqual(datesOnDay({ startDate: '2031-03-10T08:00:00.000Z', dueDate: null }, 'dueDate', '2031-03-12', BERLIN, END), {
      dueDate: '2031-03-12T16:00:00.000Z',
    });
  });

  it('resize one end of a span, never past the other', () => {
    const card = { startDate: '2031-03-03T07:00:00.000Z', dueDate: '2031-03-05T13:30:00.000Z' };
    assert.deepEqual(resizeDates(card, 'dueDate', 2, BERLIN), { dueDate: '2031-03-07T13:30:00.000Z' });
    assert.deepEqual(resizeDates(card, 'startDate', -1, BERLIN), { startDate: '2031-03-02T07:00:00.000Z' });
    // dragged past the due day: the start stops on it, before the due time
    assert.deepEqual(resizeDates(card, 'startDate', 5, BERLIN), { startDate: '2031-03-05T07:00:00.000Z' });
    // a due date dragged before the start's day stops on it; its earlier time takes the start's moment
    assert.deepEqual(resizeDates({ startDate: '2031-03-03T14:00:00.000Z', dueDate: '2031-03-05T08:00:00.000Z' }, 'dueDate', -4, BERLIN), {
      dueDate: '2031-03-03T14:00:00.000Z',
    });
    assert.deepEqual(resizeDates(card, 'dueDate', 0, BERLIN), {});
  });
});
