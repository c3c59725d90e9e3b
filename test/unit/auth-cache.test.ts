import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthCache, type KnownKey } from '../../src/domain/account/auth-cache.ts';

function known(userId: string): KnownKey {
  return { caller: { userId, apiKeyId: `key-${userId}`, companyRoles: new Map(), teamIds: new Set() }, lastUsedMs: null };
}

function cacheAt(start = 1_000_000, options: { ttlMs?: number; maxKeys?: number } = {}) {
  const clock = { t: start, now: () => clock.t };
  return { clock, cache: new AuthCache({ clock, ...options }) };
}

describe('AuthCache', () => {
  it('serves what a read kept until ttlMs after the read began, then reads again', () => {
    const { clock, cache } = cacheAt(1_000_000, { ttlMs: 500 });
    const read = cache.beginRead();
    clock.t += 100; // the read took 100 ms
    cache.keep('h', read, known('u'));
    assert.equal(cache.get('h')?.caller.userId, 'u');
    clock.t += 399;
    assert.ok(cache.get('h'), 'still counts 499 ms after the read began');
    clock.t += 1;
    assert.equal(cache.get('h'), undefined, 'counted from the read’s start, not from when it was kept');
  });

  it('forgets everything when told of a change, and does not keep a read that was under way then', () => {
    const { cache } = cacheAt();
    cache.keep('h', cache.beginRead(), known('u'));
    const underWay = cache.beginRead();
    cache.invalidate();
    assert.equal(cache.get('h'), undefined);
    cache.keep('g', underWay, known('v'));
    assert.equal(cache.get('g'), undefined, 'read before the change: may be stale');
    cache.keep('g', cache.beginRead(), known('v'));
    assert.equal(cache.get('g')?.caller.userId, 'v');
  });

  it('keeps at most maxKeys entries, dropping the oldest', () => {
    const { cache } = cacheAt(1_000_000, { maxKeys: 2 });
    for (const h of ['a', 'b', 'c']) cache.keep(h, cache.beginRead(), known(h));
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b') && cache.get('c'));
  });

  it('keeps nothing when ttlMs is 0', () => {
    const { cache } = cacheAt(1_000_000, { ttlMs: 0 });
    cache.keep('h', cache.beginRead(), known('u'));
    assert.equal(cache.get('h'), undefined);
  });
});
