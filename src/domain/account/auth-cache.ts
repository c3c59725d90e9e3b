/**
 * The callers of the API keys this instance served lately, so that a request's authentication is a
 * lookup, not a statement (a large share of a small read's database time, measured). Two rules keep it
 * from serving what the database no longer says:
 *
 * - Writes of this instance: every committed write to the tables authentication reads (keys and
 *   memberships) empties it (`invalidate`, told by `Dialect.onCommittedWrites`), and a read that
 *   was under way meanwhile is not kept. A key revoked, a member removed or added here counts from
 *   the next request on, as without a cache.
 * - Writes of other instances (or of the `taskboard` command on the same database file), which this
 *   instance is not told of: an entry counts for `ttlMs` from the moment its read began, so such a
 *   change reaches this instance within `ttlMs` (the bound: 1 s).
 *
 * Misses (unknown or revoked tokens) are never kept: every refusal reads the database.
 */
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';

/** What authentication keeps of a key: the caller it gives, and when the key's use was last written (epoch ms). */
export interface KnownKey {
  caller: Caller;
  lastUsedMs: number | null;
}

/** A read of the database begun for the cache: the entry it makes counts from `at`, if nothing changed meanwhile. */
export interface KeyRead {
  readonly generation: number;
  readonly at: number;
}

interface Entry extends KnownKey {
  generation: number;
  readAt: number;
}

/** How long a key's entry counts at most: another instance's revocation is refused here within this. */
export const AUTH_CACHE_TTL_MS = 500;
/** Keys kept at most (the oldest entry goes first): bounds the memory whatever the number of keys. */
export const AUTH_CACHE_MAX_KEYS = 10_000;

export class AuthCache {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxKeys: number;
  #generation = 0;

  constructor(options: { clock: Clock; ttlMs?: number; maxKeys?: number }) {
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs ?? AUTH_CACHE_TTL_MS;
    this.#maxKeys = options.maxKeys ?? AUTH_CACHE_MAX_KEYS;
  }

  /** The key of this token hash, when an entry of it still counts. */
  get(tokenHash: string): KnownKey | undefined {
    const entry = this.#entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.generation !== this.#generation || this.#clock.now() - entry.readAt >= this.#ttlMs) {
      this.#entries.delete(tokenHash);
      return undefined;
    }
    return entry;
  }

  /** Marks the start of a read of the database whose answer `keep` may keep. */
  beginRead(): KeyRead {
    return { generation: this.#generation, at: this.#clock.now() };
  }

  /** Keeps what `read` found, unless a write committed since it began (then it may be stale already). */
  keep(tokenHash: string, read: KeyRead, key: KnownKey): void {
    if (read.generation !== this.#generation || this.#ttlMs <= 0) return;
    if (this.#entries.size >= this.#maxKeys) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(tokenHash, { ...key, generation: read.generation, readAt: read.at });
  }

  /** Forgets every entry, and every read under way: what authentication reads has changed. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
