import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashToken, looksLikeToken, newToken, tokenPrefix } from '../../src/domain/account/tokens.ts';
import { firstIdAt, isId, newId, newOrderedId } from '../../src/domain/shared/ids.ts';

describe('ids and tokens', () => {
  it('makes 24-hex ids that start with the creation second', () => {
    const at = Date.UTC(2026, 10, 21, 9, 30);
    const id = newId(at);
    assert.ok(isId(id));
    assert.equal(Number.parseInt(id.slice(0, 8), 16), at / 1000);
    assert.notEqual(newId(at), id);
    assert.equal(isId('ABCDEFabcdef012345678901'), false);
  });

  it('never repeats the random part, across refills of the random pool', () => {
    const tails = new Set(Array.from({ length: 5000 }, () => newId(0).slice(8)));
    assert.equal(tails.size, 5000);
  });

  it('makes ordered ids that follow each other within a second, and differ', () => {
    const at = Date.UTC(2026, 10, 21, 9, 30, 5, 250);
    const made = Array.from({ length: 1000 }, () => newOrderedId(at));
    assert.ok(made.every(isId));
    assert.equal(new Set(made).size, made.length);
    assert.equal(Number.parseInt((made[0] as string).slice(0, 8), 16), Math.floor(at / 1000));
    // the 3-byte counter may wrap once from its random start; otherwise each id follows the last
    assert.ok(made.filter((id, i) => i > 0 && id < (made[i - 1] as string)).length <= 1);
  });

  it('firstIdAt is at or below every id made at or after that time, above those made before', () => {
    const at = Date.UTC(2026, 10, 21, 9, 30, 5, 250);
    assert.ok(firstIdAt(at) <= newId(at) && firstIdAt(at) <= newOrderedId(at) && firstIdAt(at) <= newId(at + 1000));
    assert.ok(newId(at - 1000) < firstIdAt(at));
  });

  it('makes tokens that are recognisable, unique, and hashed one way', () => {
    const token = newToken();
    assert.ok(looksLikeToken(token));
    assert.notEqual(newToken(), token);
    assert.match(hashToken(token), /^[0-9a-f]{64}$/);
    assert.ok(!hashToken(token).includes(token));
    assert.ok(token.startsWith(tokenPrefix(token)));
    assert.equal(looksLikeToken('tb_short'), false);
  });
});
