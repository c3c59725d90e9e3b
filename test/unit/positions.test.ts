import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { POSITION_STEP, place } from '../../src/domain/shared/positions.ts';

describe('place', () => {
  it('puts the first item at one step', () => {
    assert.deepEqual(place([], 'bottom'), { position: POSITION_STEP, renumbered: null });
    assert.deepEqual(place([], 'top'), { position: POSITION_STEP, renumbered: null });
    assert.deepEqual(place([], 7), { position: POSITION_STEP, renumbered: null });
  });

  it('goes before the first, after the last, or between neighbours', () => {
    assert.equal(place([10, 20], 'top').position, 10 - POSITION_STEP);
    assert.equal(place([10, 20], 'bottom').position, 20 + POSITION_STEP);
    assert.equal(place([10, 20], 1).position, 15);
    assert.equal(place([10, 20], 0).position, 10 - POSITION_STEP);
    assert.equal(place([10, 20], 99).position, 20 + POSITION_STEP, 'past the end is the bottom');
  });

  it('renumbers when neighbours are too close, keeping the order and leaving a slot', () => {
    const placement = place([1, 1 + 1e-7, 5], 1);
    assert.ok(placement.renumbered);
    const [a, b, c] = placement.renumbered as [number, number, number];
    assert.ok(a < placement.position && placement.position < b && b < c);
  });

  it('keeps order over many inserts at the same index', () => {
    let siblings: number[] = [];
    const names: string[] = [];
    for (let i = 0; i < 200; i++) {
      const p = place(siblings, 1);
      if (p.renumbered) siblings = p.renumbered;
      const index = Math.min(1, siblings.length);
      siblings.splice(index, 0, p.position);
      names.splice(index, 0, `n${i}`);
      assert.deepEqual(
        [...siblings].sort((x, y) => x - y),
        siblings,
        `sorted after insert ${i}`,
      );
    }
    assert.equal(new Set(siblings).size, siblings.length);
  });
});
