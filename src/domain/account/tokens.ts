import { hash, randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'tb_';

/** A new API token: `tb_` + 32 random bytes (base64url). Only its hash is ever stored. */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  // the one-shot hash: no Hash object per request (authentication runs it on every one)
  return hash('sha256', token, 'hex');
}

/** The part of a token shown in listings so a user can tell keys apart. */
export function tokenPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 6);
}

/** Cheap shape check before touching the database. */
export function looksLikeToken(token: string): boolean {
  return /^tb_[A-Za-z0-9_-]{43}$/.test(token);
}
