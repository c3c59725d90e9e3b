/**
 * The zone the web app draws dates in (web/src/i18n/messages.ts): the browser's is asked for only
 * when a date is first drawn, and the pages draw again only when the zone dates were drawn in changes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const messages = await import('../../web/src/i18n/messages.ts');

describe('the time zone dates are drawn in', () => {
  it('follows the account from the start without a redraw, then redraws on each change of zone', () => {
    let redraws = 0;
    messages.onLanguageChange(() => redraws++);
    // the account's zone, remembered in this browser, applied as the app starts: nothing drawn yet
    messages.applyTimeZone('Europe/Berlin');
    assert.equal(redraws, 0);
    assert.equal(messages.timeZoneChanges(), 0);
    assert.equal(messages.formatDate('2026-12-07T23:30:00Z', { hour: 'numeric', hourCycle: 'h23' }), '00');
    messages.applyTimeZone('Pacific/Auckland');
    assert.equal(redraws, 1);
    assert.equal(messages.timeZoneChanges(), 1);
    // the formatters are kept per zone: the same options draw the new zone's hour
    assert.equal(messages.formatDate('2026-12-07T23:30:00Z', { hour: 'numeric', hourCycle: 'h23' }), '12');
    messages.applyTimeZone('Pacific/Auckland');
    messages.applyTimeZone('no such zone');
    assert.equal(messages.currentTimeZone(), messages.browserTimeZone());
    assert.equal(redraws, messages.browserTimeZone() === 'Pacific/Auckland' ? 1 : 2);
  });
});
