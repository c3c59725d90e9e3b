/**
 * The pure parts of an import: reading a Trello export into a plan (order, Unicode, missing fields,
 * the places a malformed file names), matching people, and mapping colours to the palette.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nearestColour } from '../../src/domain/imports/palette.ts';
import { matchPeople } from '../../src/domain/imports/people.ts';
import { readRelations } from '../../src/domain/imports/plan.ts';
import { readTaskboardExport } from '../../src/domain/imports/taskboard.ts';
import { readTrelloExport } from '../../src/domain/imports/trello.ts';
import { ValidationError } from '../../src/domain/shared/errors.ts';

const PALETTE = [
  { id: '1', name: 'green', hex: '#61bd4f' },
  { id: '4', name: 'red', hex: '#eb5a46' },
  { id: '6', name: 'blue', hex: '#0079bf' },
  { id: 'a', name: 'black', hex: '#344563' },
];

function refusal(text: string): ValidationError {
  try {
    readTrelloExport(text);
  } catch (error) {
    assert.ok(error instanceof ValidationError);
    return error;
  }
  assert.fail('the file was taken');
}

describe('reading a Trello export', () => {
  it('orders lists, cards, checklists and items by pos, and keeps Unicode as written', () => {
    const plan = readTrelloExport(
      JSON.stringify({
        name: '看板 🧭',
        lists: [
          { id: 'b', name: 'Second', pos: 2 },
          { id: 'a', name: 'First', pos: 1 },
        ],
        cards: [
          { id: 'c2', name: 'Zwei', idList: 'a', pos: 20 },
          { id: 'c1', name: 'Ein\u0007s 👋', idList: 'a', pos: 10 },
          { id: 'c3', name: 'Drei', idList: 'b' },
        ],
        checklists: [
          { id: 'k2', idCard: 'c1', name: 'B', pos: 2, checkItems: [] },
          {
            id: 'k1',
            idCard: 'c1',
            name: 'A',
            pos: 1,
            checkItems: [
              { id: 'i2', name: 'y', pos: 2 },
              { id: 'i1', name: 'x', pos: 1, state: 'complete' },
            ],
          },
        ],
      }),
    );
    assert.equal(plan.board.name, '看板 🧭');
    assert.deepEqual(
      plan.lists.map((l) => l.name),
      ['First', 'Second'],
    );
    // a control character is dropped; the emoji stays
    assert.deepEqual(
      plan.cards.map((c) => c.name),
      ['Eins 👋', 'Zwei', 'Drei'],
    );
    assert.deepEqual(
      plan.cards[0]?.checklists.map((c) => [c.name, c.items.map((i) => [i.name, i.complete])]),
      [
        [
          'A',
          [
            ['x', true],
            ['y', false],
          ],
        ],
        ['B', []],
      ],
    );
  });

  it('takes a card with none of the optional fields, and drops a start after the due date', () => {
    const plan = readTrelloExport(
      JSON.stringify({
        name: 'B',
        lists: [{ id: 'l', name: 'L' }],
        cards: [
          { id: 'c', idList: 'l' },
          { id: 'd', name: 'D', idList: 'l', start: '2026-05-02T00:00:00Z', due: '2026-05-01T00:00:00Z' },
        ],
      }),
    );
    assert.deepEqual(
      plan.cards.map((c) => [c.name, c.description, c.start, c.due, c.labels, c.members, c.archived, c.complete]),
      [
        ['Untitled card', '', null, null, [], [], false, false],
        ['D', '', null, '2026-05-01T00:00:00.000Z', [], [], false, false],
      ],
    );
    assert.equal(plan.leftOut.startDatesAfterDue, 1);
    assert.deepEqual([plan.leftOut.powerUps, plan.leftOut.votes, plan.leftOut.stickers], [0, 0, 0]);
    assert.equal(plan.leftOut.customFields, undefined);
  });

  it("reads custom fields and their values: each card's items or the board's, a list as a select, a misfit counted", () => {
    const plan = readTrelloExport(
      JSON.stringify({
        name: 'B',
        lists: [{ id: 'l', name: 'L' }],
        customFields: [
          {
            id: 'f2',
            name: 'Size',
            type: 'list',
            pos: 2,
            options: [
              { id: 'o2', value: { text: 'L' }, pos: 2, color: 'none' },
              { id: 'o1', value: { text: 'S' }, pos: 1, color: 'green' },
            ],
          },
          { id: 'f1', name: 'Size', type: 'number', pos: 1, display: { cardFront: true } },
          { id: 'f3', name: 'Done', type: 'checkbox', pos: 3 },
          { id: 'f4', name: 'Rating', type: 'stars', pos: 4 },
        ],
        cards: [
          {
            id: 'c',
            idList: 'l',
            customFieldItems: [
              { idCustomField: 'f1', value: { number: '2.5' } },
              { idCustomField: 'f3', value: { checked: 'false' } },
            ],
          },
          { id: 'd', idList: 'l' },
        ],
        customFieldItems: [
          { idModel: 'd', idCustomField: 'f2', idValue: 'o1' },
          { idModel: 'd', idCustomField: 'f1', value: { number: 'many' } },
          { idModel: 'd', idCustomField: 'f4', value: { number: '5' } },
        ],
      }),
    );
    assert.deepEqual(
      plan.fields.map((f) => [f.key, f.name, f.type, f.showOnCard, f.options.map((o) => `${o.name}/${o.color.name}`)]),
      [
        ['f1', 'Size', 'number', true, []],
        ['f2', 'Size (2)', 'select', false, ['S/green', 'L/black']],
        ['f3', 'Done', 'checkbox', false, []],
      ],
    );
    assert.deepEqual(
      plan.cards.map((c) => c.fields),
      [[{ field: 'f1', value: 2.5 }], [{ field: 'f2', value: 'o1' }]],
    );
    // the unknown type and its value, and the number that is none; an unchecked box is simply no value
    assert.equal(plan.leftOut.customFields, 1);
    assert.equal(plan.leftOut.customFieldValues, 2);
    assert.deepEqual(plan.relations, []);
  });

  it('names each place a malformed file is wrong', () => {
    assert.deepEqual(refusal('{').details, [{ field: 'file', message: refusal('{').details?.[0]?.message }]);
    assert.deepEqual(
      refusal(JSON.stringify({ name: 'x', lists: 'no', cards: [], labels: {} })).details?.map((d) => d.field),
      ['file.lists', 'file.labels'],
    );
    const twice = refusal(
      JSON.stringify({
        name: 'x',
        lists: [{ id: 'l' }, { id: 'l' }],
        cards: [
          { id: 'c', idList: 'l' },
          { id: 'c', idList: 'l' },
        ],
      }),
    );
    assert.deepEqual(
      twice.details?.map((d) => `${d.field} ${d.message}`),
      ['file.lists[1].id names a list twice', 'file.cards[1].id names a card twice'],
    );
    assert.match(
      refusal(JSON.stringify({ name: 'x', lists: [], cards: [], actions: [{ type: 'commentCard', data: {} }] })).message,
      /actions\[0\]\.data\.text/,
    );
  });
});

describe('reading a board export', () => {
  it('refuses another format version by name', () => {
    assert.throws(
      () =>
        readTaskboardExport(
          JSON.stringify({ format: 'taskboard-board', formatVersion: 2, board: { name: 'x' }, labels: [], lists: [], cards: [], people: [] }),
        ),
      /formatVersion must be 1/,
    );
  });
});

describe('relations of a board export', () => {
  it('keeps each pair of a kind once, and counts a relation to a card not in the file or closing a cycle of blocks', () => {
    const leftOut: Record<string, number> = {};
    const kept = readRelations(
      [
        { from: 'a', kind: 'blocks', to: 'b' },
        { from: 'b', kind: 'blocks', to: 'c' },
        { from: 'c', kind: 'blocks', to: 'a' },
        { from: 'a', kind: 'blocks', to: 'b' },
        { from: 'c', kind: 'relates', to: 'a' },
        { from: 'a', kind: 'relates', to: 'c' },
        { from: 'a', kind: 'duplicates', to: 'gone' },
        { from: 'a', kind: 'blocks', to: 'a' },
      ],
      new Set(['a', 'b', 'c']),
      leftOut,
    );
    assert.deepEqual(
      kept.map((r) => `${r.from} ${r.kind} ${r.to}`),
      ['a blocks b', 'b blocks c', 'a relates c'],
    );
    assert.deepEqual(leftOut, { relationsInCycles: 1, relationsOfNoCard: 2 });
  });
});

describe('matching people to the team', () => {
  const members = [
    { id: 'u1', full_name: 'Ada Lovelace', email: 'ada@x.test' },
    { id: 'u2', full_name: 'Sam Smith', email: 'sam.one@x.test' },
    { id: 'u3', full_name: 'Sam Smith', email: 'sam.two@x.test' },
  ];
  it('by full name ignoring case, else by username, and never by a name two members share', () => {
    const matched = matchPeople(
      [
        { key: 'a', fullName: 'ADA LOVELACE', username: null },
        { key: 's', fullName: 'Sam Smith', username: null },
        { key: 't', fullName: 'Someone', username: 'sam.two' },
        { key: 'z', fullName: 'Zed', username: 'zed' },
      ],
      members,
      false,
    );
    assert.deepEqual(
      [...matched.users],
      [
        ['a', 'u1'],
        ['t', 'u3'],
      ],
    );
    assert.deepEqual(
      matched.unmatched.map((p) => p.name),
      ['Sam Smith', 'Zed'],
    );
  });
  it('by email before the name, and as the importer chose, who may name only people of the file and members of the team', () => {
    const people = [
      { key: 'e', fullName: 'Sam Smith', username: null, email: 'SAM.TWO@x.test' },
      { key: 'a', fullName: 'Ada Lovelace', username: null },
      { key: 'z', fullName: 'Zed', username: 'zed' },
    ];
    const matched = matchPeople(people, members, false, { a: null, z: 'u2' });
    assert.deepEqual(
      matched.matched.map((p) => [p.key, p.user, p.by]),
      [
        ['e', 'u3', 'email'],
        ['z', 'u2', 'chosen'],
      ],
    );
    assert.deepEqual(
      matched.unmatched.map((p) => p.key),
      ['a'],
    );
    assert.throws(() => matchPeople(people, members, false, { nobody: 'u1' }), ValidationError);
    assert.throws(() => matchPeople(people, members, false, { z: 'u9' }), ValidationError);
  });
  it('by id first when the source is this deployment', () => {
    assert.equal(matchPeople([{ key: 'u2', fullName: 'Renamed', username: null }], members, true).users.get('u2'), 'u2');
    assert.equal(matchPeople([{ key: 'u2', fullName: 'Renamed', username: null }], members, false).users.get('u2'), undefined);
  });
});

describe('colours', () => {
  it('by name, then by the name without its shade, then the nearest', () => {
    assert.equal(nearestColour(PALETTE, { name: 'red', hex: '#000000' }).name, 'red');
    assert.equal(nearestColour(PALETTE, { name: 'green_dark', hex: '#1f845a' }).name, 'green');
    assert.equal(nearestColour(PALETTE, { name: 'teal', hex: '#0070c0' }).name, 'blue');
  });
});
