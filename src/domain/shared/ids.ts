import { randomFillSync } from 'node:crypto';

/** 24 lowercase hex characters: creation second (4 bytes) + 8 random bytes, ObjectId-like. */
export const ID_PATTERN = '^[0-9a-f]{24}$';
const idRegex = new RegExp(ID_PATTERN);

/**
 * Random bytes drawn 4 KiB at a time: a call of `randomBytes` per id was measurable, and every
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

/** An id's first 8 characters: the creation second. */
function secondOf(now: number): string {
  return Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
}

export function newId(now: number = Date.now()): string {
  return secondOf(now) + randomHex8();
}

/** This process's random part of `newOrderedId`: 5 bytes, as an ObjectId's. */
const processPart = randomHex8().slice(0, 10);
/** `newOrderedId`'s counter (3 bytes), from a random start. */
let counter = Number.parseInt(randomHex8().slice(0, 6), 16);

/**
 * An id laid out as a MongoDB ObjectId: creation second, this process's random 5 bytes, a counter
 * of 3 bytes. The ids one process makes in a second follow each other, so their index grows at one
 * end (one page written per commit) where `newId`'s land on random pages of the second's range; for
 * rows written at every change (events), whose ids are no secret.
 */
export function newOrderedId(now: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  return secondOf(now) + processPart + counter.toString(16).padStart(6, '0');
}

/** The least id `newId` or `newOrderedId` can make at or after `at` (epoch ms): ids sort by their creation second first. */
export function firstIdAt(at: number): string {
  return secondOf(at) + '0'.repeat(16);
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && idRegex.test(value);
}

/** The ISO 8601 UTC timestamp with milliseconds used in every record. */
export function nowIso(): string {
  return new Date().toISOString();
}
