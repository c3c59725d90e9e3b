/**
 * The dates window a calendar or timeline link reads first (web/src/board/views/window.ts,
 * docs/decisions/0295): it holds every day the view can show, in any time zone and whatever the
 * first day of the week, and the other views ask for none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { datesWindowOf } from '../../web/src/board/views/window.ts';

const at = (query: string) => datesWindowOf(new URLSearchParams(query));
/** Whether the window holds the whole of a day in every zone (UTC−12 to UTC+14). */
const holdsDay = (window: { from: string; to: string }, day: string) =>
  Date.parse(window.from) <= Date.parse(`${day}T00:00:00+14:00`) && Date.parse(window.to) >= Date.parse(`${day}T24:00:00-12:00`);

describe('the dates window of a view', () => {
  it('holds a month grid, with the weeks around the month, by due or start date', () => {
    const month = at('view=calendar&date=2031-03-12');
    assert.ok(month);
    assert.equal(month.by, 'due');
    // March 2031's grid runs from Sunday February 23 (weeks starting Sunday) or Monday February 24,
    // to Saturday April 5 or Sunday April 6
    for (const day of ['2031-02-23', '2031-03-01', '2031-03-31', '2031-04-06']) assert.ok(holdsDay(month, day), day);
    assert.equal(at('view=calendar&date=2031-03-12&by=start')?.by, 'start');
  });

  it('holds a week, and the timeline’s six weeks by span', () => {
    const week = at('view=calendar&range=week&date=2031-03-12');
    assert.ok(week);
    for (const day of ['2031-03-06', '2031-03-18']) assert.ok(holdsDay(week, day), day);
    const timeline = at('view=timeline&date=2031-03-12');
    assert.ok(timeline);
    assert.equal(timeline.by, 'span');
    // from the week before the anchor's (as early as March 2 or 3) for 42 days
    for (const day of ['2031-02-27', '2031-04-13']) assert.ok(holdsDay(timeline, day), day);
  });

  it('takes today without a date or with a malformed one, and asks nothing of the other views', () => {
    const today = new Date();
    const key = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    for (const query of ['view=calendar', 'view=calendar&date=soon']) {
      const window = at(query);
      assert.ok(window && holdsDay(window, key), query);
    }
    assert.equal(at(''), undefined);
    assert.equal(at('view=table'), undefined);
    assert.equal(at('view=board&date=2031-03-12'), undefined);
  });
});
