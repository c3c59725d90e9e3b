/**
 * The text that announces a commit to the other instances (src/events/bell.ts): who made
 * it and what it concerns, read back as written; past what a database notification carries it says
 * only who, and is read as concerning anything (every stream wakes), as a text that does not say is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { announcement, readAnnouncement } from '../../src/events/bell.ts';

const id = (n: number) => n.toString(16).padStart(24, '0');

describe('commit announcements', () => {
  it('read back who made them and the boards and users they concern', () => {
    const committed = { boards: new Set([id(1), id(2)]), users: new Set([id(3)]) };
    const text = announcement('app', committed);
    assert.equal(text, `app;${id(1)},${id(2)};${id(3)}`);
    assert.deepEqual(readAnnouncement(text), { by: 'app', concerns: committed });
    assert.deepEqual(readAnnouncement(announcement('', { boards: new Set(), users: new Set() })), {
      by: '',
      concerns: { boards: new Set(), users: new Set() },
    });
  });

  it('say only who past 7,900 characters, read as concerning anything', () => {
    const boards = new Set(Array.from({ length: 400 }, (_, n) => id(n)));
    const text = announcement('app', { boards, users: new Set() });
    assert.ok(text.length < 8000, `${text.length} characters`);
    assert.deepEqual(readAnnouncement(text), { by: 'app', concerns: undefined });
    const fits = new Set(Array.from({ length: 300 }, (_, n) => id(n)));
    assert.deepEqual(readAnnouncement(announcement('app', { boards: fits, users: new Set() })).concerns?.boards, fits);
  });

  it('read a text that does not say what it concerns as concerning anything', () => {
    assert.deepEqual(readAnnouncement('an older instance'), { by: 'an older instance', concerns: undefined });
  });
});
