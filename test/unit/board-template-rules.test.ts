/**
 * A board template's rules, relinked (src/domain/templates/board-templates.ts): every list and label
 * of the board a rule names becomes the one it maps to, in its trigger, conditions and actions; a
 * list a card is created in elsewhere stays as it is and is named; an id the map lacks leaves the
 * rule out, saying which kind it named.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relinkRule } from '../../src/domain/templates/board-templates.ts';

const id = (n: number) => n.toString(16).padStart(24, '0');
const [todo, done, doing, urgent, blocked, elsewhere] = [1, 2, 3, 4, 5, 6].map(id) as [string, string, string, string, string, string];
const lists = new Map([
  [todo, id(11)],
  [done, id(12)],
  [doing, id(13)],
]);
const labels = new Map([
  [urgent, id(14)],
  [blocked, id(15)],
]);

describe('relinking a template rule', () => {
  it("names the new board's lists and labels everywhere the rule names them", () => {
    const relinked = relinkRule(
      {
        name: 'Done',
        trigger: { type: 'card.moved.into', list: done },
        conditions: [
          { type: 'label', label: urgent, has: true },
          { type: 'list', list: done },
          { type: 'due.set', set: true },
        ],
        actions: [
          { type: 'move', list: todo, position: 'top' },
          { type: 'labels.toggle', labels: [urgent, blocked] },
          { type: 'card.create', list: doing, name: 'Follow up', position: 'bottom' },
          { type: 'card.create', list: elsewhere, name: 'Report', position: 'top' },
          { type: 'archive' },
        ],
        enabled: true,
      },
      lists,
      labels,
    );
    assert.ok('rule' in relinked);
    assert.deepEqual(relinked.rule.trigger, { type: 'card.moved.into', list: id(12) });
    assert.deepEqual(relinked.rule.conditions, [
      { type: 'label', label: id(14), has: true },
      { type: 'list', list: id(12) },
      { type: 'due.set', set: true },
    ]);
    assert.deepEqual(relinked.rule.actions, [
      { type: 'move', list: id(11), position: 'top' },
      { type: 'labels.toggle', labels: [id(14), id(15)] },
      { type: 'card.create', list: id(13), name: 'Follow up', position: 'bottom' },
      { type: 'card.create', list: elsewhere, name: 'Report', position: 'top' },
      { type: 'archive' },
    ]);
    assert.deepEqual(relinked.elsewhere, [elsewhere]);
  });

  it('leaves a trigger without a list or label as it is', () => {
    const relinked = relinkRule(
      { name: 'Any', trigger: { type: 'label.added' }, conditions: [], actions: [{ type: 'notify' }], enabled: false },
      lists,
      labels,
    );
    assert.deepEqual(relinked, {
      rule: { name: 'Any', trigger: { type: 'label.added' }, conditions: [], actions: [{ type: 'notify' }], enabled: false },
      elsewhere: [],
    });
  });

  it('leaves out a rule naming a list or label the map lacks, saying which', () => {
    const gone = id(99);
    assert.deepEqual(
      relinkRule({ name: 'a', trigger: { type: 'card.moved.out', list: gone }, conditions: [], actions: [{ type: 'archive' }], enabled: true }, lists, labels),
      {
        why: 'list',
      },
    );
    assert.deepEqual(
      relinkRule(
        { name: 'b', trigger: { type: 'card.completed' }, conditions: [], actions: [{ type: 'labels.add', labels: [urgent, gone] }], enabled: true },
        lists,
        labels,
      ),
      { why: 'label' },
    );
    // the first missing id it meets decides: the trigger before the actions
    assert.deepEqual(
      relinkRule(
        { name: 'c', trigger: { type: 'label.removed', label: gone }, conditions: [], actions: [{ type: 'move', list: gone, position: 'top' }], enabled: true },
        lists,
        labels,
      ),
      { why: 'label' },
    );
  });
});
