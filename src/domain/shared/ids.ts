import { randomFillSync } from 'node:crypto';

/** 24 lowercase hex characters: creation second (4 bytes) + 8 random bytes, ObjectId-like. */
export const ID_PATTERN = '^[0-9a-f]{24}$';
const idRegex = new RegExp(ID_PATTERN);

/**
 * Random bytes drawn 4 KiB at a time: a call of `randomBytes` per id cost 2 µs (measured), every
 * recorded event makes one. Each id takes its 8 bytes once.
 */
const pool = Buffer.allocUnsafe(4096);
let taken = pool.length;

function randomHex8(): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  taken += 8;
  return pool.toString('hex', taken - 8, taken);
}

export function newId(now: number = Date.now()): string {
  const seconds = Math.floor(now / 1000).toString(16).padStart(8, '0').slice(-8);
  return seconds + randomHex8();
}

/** The least id `newId` can make at or after `at` (epoch ms): ids sort by their creation second first. */
export function firstIdAt(at: number): string {
  return newId(at).slice(0, 8) + '0'.repeat(16);
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && idRegex.test(value);
}

/** The ISO 8601 UTC timestamp with milliseconds used in every record. */
export function nowIso(): string {
  return new Date().toISOString();
}
