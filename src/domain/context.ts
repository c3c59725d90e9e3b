import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AttachmentStore } from '../storage/attachment-store.ts';
import type { Database, Executor, Transaction } from '../storage/database.ts';
import type { AuthCache } from './account/auth-cache.ts';
import type { CommittedEvents } from './events/record.ts';
import type { Clock } from './shared/clock.ts';

/** A subquery of the ids of events that must outlive retention (e.g. those a pending webhook delivery needs). */
export type KeepEvents = (db: Executor) => SelectQueryBuilder<Database, any, { id: string }>;

/** What every domain service works with. Built once per app; no framework types inside. */
export interface ServiceContext {
  db: Kysely<Database>;
  /** The time for whatever waits, expires or falls due (tests move it); record timestamps read the system's. */
  clock: Clock;
  /** Where attachment bytes are kept: the upload folder or a bucket (src/storage/attachment-store.ts). */
  files: AttachmentStore;
  /**
   * Told after a transaction that recorded events has committed, so that readers of the event feed
   * (live streams, the webhook dispatcher) look now instead of at their next poll.
   */
  eventsCommitted?: ((committed: CommittedEvents) => void) | undefined;
  /**
   * The events retention must keep although they are old (a subquery of event ids): filled by the
   * part that still needs them (webhook deliveries pending). See src/domain/events/events.ts.
   */
  keepEvents?: KeepEvents | undefined;
  /** The callers of keys served lately (src/domain/account/auth-cache.ts); none: every request reads its key. */
  authCache?: AuthCache | undefined;
  /**
   * `false` only in `npm run bench`'s server without the event record (`buildApp({ recordEvents:
   * false })`): each transaction's events are made as always, then dropped instead of written, and
   * nothing rings, so the bench can show what recording adds to a write. Never in a server: the
   * activity reads, webhooks and streams would miss every change.
   */
  recordEvents?: false | undefined;
  /**
   * A transaction the services' work joins instead of opening their own (`db` is then that
   * transaction too): a board rule's actions, each an ordinary service call, commit as one.
   */
  transaction?: Transaction | undefined;
}
