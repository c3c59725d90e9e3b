import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertValues, dateOf, storedValue, ValueRefused } from '../../src/domain/fields/values.ts';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);
const options = new Set([A, B]);
const field = (type: string) => ({ type, optionIds: options });

describe('custom field values', () => {
  it('stores each type in its column, and reads a clearing value as none', () => {
    assert.deepEqual(storedValue(field('text'), '  hi '), { text: 'hi', number: null });
    assert.equal(storedValue(field('text'), '   '), null);
    assert.deepEqual(storedValue(field('number'), -2.5), { text: null, number: -2.5 });
    assert.deepEqual(storedValue(field('date'), '2026-12-07'), { text: '2026-12-07T00:00:00.000Z', number: null });
    assert.deepEqual(storedValue(field('date'), '2026-12-07T10:00:00+02:00'), { text: '2026-12-07T08:00:00.000Z', number: null });
    assert.deepEqual(storedValue(field('checkbox'), true), { text: null, number: 1 });
    assert.equal(storedValue(field('checkbox'), false), null);
    assert.deepEqual(storedValue(field('select'), A), { options: [A] });
    assert.deepEqual(storedValue(field('multiselect'), [B, A]), { options: [A, B] });
    assert.equal(storedValue(field('multiselect'), []), null);
    assert.deepEqual(storedValue(field('url'), 'https://x.test/a'), { text: 'https://x.test/a', number: null });
    assert.equal(storedValue(field('person'), null), null);
  });

  it('refuses what does not fit the type', () => {
    const refused: [string, unknown][] = [
      ['number', '3'],
      ['number', Number.NaN],
      ['text', 3],
      ['date', 'tomorrow'],
      ['date', '12/07/2026'],
      ['checkbox', 1],
      ['select', 'c'.repeat(24)],
      ['select', [A]],
      ['multiselect', [A, A]],
      ['multiselect', ['c'.repeat(24)]],
      ['url', 'ftp://x.test'],
      ['url', 'not a url'],
      ['person', 'ann'],
    ];
    for (const [type, value] of refused) assert.throws(() => storedValue(field(type), value), ValueRefused, `${type} ${JSON.stringify(value)}`);
  });

  it('reads dates with a time or a date alone', () => {
    assert.equal(dateOf('soon'), undefined);
    assert.equal(dateOf('2026-12-07T09:30:00Z'), '2026-12-07T09:30:00.000Z');
  });

  it('converts only what converts without loss, naming the cards that stand in the way', () => {
    const text = (cardId: string, value: string) => ({ cardId, value: { text: value, number: null } });
    assert.deepEqual(convertValues('text', 'number', [text('1', ' 4 '), text('2', '0.5')], new Map()), {
      values: [
        { cardId: '1', value: { text: null, number: 4 } },
        { cardId: '2', value: { text: null, number: 0.5 } },
      ],
    });
    const refused = convertValues('text', 'number', [text('1', '4'), text('2', 'four'), text('3', '')], new Map());
    assert.ok('refused' in refused);
    assert.deepEqual(refused.cards, ['2', '3']);
    assert.deepEqual(convertValues('number', 'text', [{ cardId: '1', value: { text: null, number: 1.5 } }], new Map()), {
      values: [{ cardId: '1', value: { text: '1.5', number: null } }],
    });
    assert.ok('refused' in convertValues('text', 'url', [text('1', 'x')], new Map()));
    assert.ok('values' in convertValues('text', 'date', [text('1', '2026-01-02')], new Map()));
    assert.ok('values' in convertValues('select', 'multiselect', [{ cardId: '1', value: { options: [A] } }], new Map()));
    assert.ok('refused' in convertValues('multiselect', 'select', [{ cardId: '1', value: { options: [A, B] } }], new Map()));
    assert.deepEqual(convertValues('select', 'text', [{ cardId: '1', value: { options: [A] } }], new Map([[A, 'High']])), {
      values: [{ cardId: '1', value: { text: 'High', number: null } }],
    });
    assert.ok('refused' in convertValues('checkbox', 'text', [{ cardId: '1', value: { text: null, number: 1 } }], new Map()));
    assert.ok('refused' in convertValues('person', 'text', [text('1', A)], new Map()));
    assert.deepEqual(convertValues('person', 'checkbox', [], new Map()), { values: [] }, 'no values: any change');
  });
});
