/**
 * Which cards of a board a card front calls blocked (web/src/relations/blockers.ts): blocked by an
 * open card only; a blocker on the board judged by its face as the page shows it, one elsewhere (or
 * one whose face the page does not hold) by the relations' read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openBlockers } from '../../web/src/relations/blockers.ts';

const BOARD = 'b'.repeat(24);
const card = (id: string, name: string, board: string, open: boolean) => ({
  _id: id,
  name,
  board,
  boardName: 'B',
  list: 'l',
  listName: 'L',
  complete: { status: !open },
  archived: { status: false },
  open,
});
const relation = (kind: string, from: ReturnType<typeof card>, to: ReturnType<typeof card>) => ({ _id: `${from._id}-${to._id}`, kind, from, to });
const face = (id: string, name: string, complete: boolean, archived = false) => ({
  _id: id,
  name,
  complete: { status: complete },
  archived: { status: archived },
});

describe('openBlockers', () => {
  it('names the open blockers of each blocked card, and nothing for other kinds', () => {
    const target = card('t', 'Ship', BOARD, true);
    const elsewhere = card('e', 'Security review', 'x'.repeat(24), true);
    const done = card('d', 'Done elsewhere', 'x'.repeat(24), false);
    const related = card('r', 'Related', BOARD, true);
    const blocked = openBlockers(
      [relation('blocks', elsewhere, target), relation('blocks', done, target), relation('relates', related, target)],
      BOARD,
      new Map(),
    );
    assert.deepEqual([...blocked], [['t', ['Security review']]]);
  });

  it("judges a blocker on the board by its face: completed or archived there, it no longer blocks; its face's name is said", () => {
    const target = card('t', 'Ship', BOARD, true);
    const here = card('h', 'Docs (as read)', BOARD, true);
    const rel = [relation('blocks', here, target)];
    assert.deepEqual([...openBlockers(rel, BOARD, new Map([['h', face('h', 'Docs', false)]]))], [['t', ['Docs']]]);
    assert.deepEqual([...openBlockers(rel, BOARD, new Map([['h', face('h', 'Docs', true)]]))], []);
    assert.deepEqual([...openBlockers(rel, BOARD, new Map([['h', face('h', 'Docs', false, true)]]))], []);
    // no face on the page (archived, or not read yet): the read decides
    assert.deepEqual([...openBlockers(rel, BOARD, new Map())], [['t', ['Docs (as read)']]]);
  });

  it('leaves out a blocked card of another board', () => {
    const other = card('o', 'Elsewhere', 'x'.repeat(24), true);
    const blocker = card('h', 'Here', BOARD, true);
    assert.deepEqual([...openBlockers([relation('blocks', blocker, other)], BOARD, new Map())], []);
  });
});
