import { randomBytes } from 'node:crypto';

/** 24 lowercase hex characters: creation second (4 bytes) + 8 random bytes, ObjectId-like. */
export const ID_PATTERN = '^[0-9a-f]{24}$';
const idRegex = new RegExp(ID_PATTERN);

export function newId(now: number = Date.now()): string {
  const seconds = Math.floor(now / 1000).toString(16).padStart(8, '0').slice(-8);
  return seconds + randomBytes(8).toString('hex');
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
