import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import { findServerKeys, insertServerKey } from '../../storage/repositories/second-factors.ts';

/**
 * Authenticator secrets are kept sealed (AES-256-GCM), bound to their person, so that a read of the
 * table alone signs nobody in (docs/decisions/0280). The key is SECOND_FACTOR_KEY when the operator
 * sets it (then a copy of the database holds no key at all); else one key made at the first need
 * and kept in `server_keys`. A sealed value names its key by a short fingerprint, so values sealed
 * under the database's key still open after SECOND_FACTOR_KEY is set.
 */

interface Key {
  id: string;
  bytes: Buffer;
}

const DATABASE_KEY_ID = 'second-factor';

function keyFromSetting(setting: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(setting) ? Buffer.from(setting, 'hex') : Buffer.from(setting.replace(/=$/, ''), 'base64url');
}

const fingerprint = (bytes: Buffer) => hash('sha256', bytes, 'base64url').slice(0, 8);

export class Sealer {
  readonly #configured: Key | undefined;
  #stored: Key | undefined;

  constructor(setting: string | undefined) {
    if (setting) {
      const bytes = keyFromSetting(setting);
      if (bytes.length !== 32) throw new Error('SECOND_FACTOR_KEY must be 32 bytes');
      this.#configured = { id: fingerprint(bytes), bytes };
    }
  }

  /** The database's key, made by whichever instance needs it first. */
  async #databaseKey(db: Executor): Promise<Key> {
    if (this.#stored) return this.#stored;
    let rows = await findServerKeys(db);
    if (!rows.some((row) => row.id === DATABASE_KEY_ID)) {
      await insertServerKey(db, { id: DATABASE_KEY_ID, secret: randomBytes(32).toString('base64url'), created_at: new Date().toISOString() });
      rows = await findServerKeys(db);
    }
    const bytes = Buffer.from(rows.find((row) => row.id === DATABASE_KEY_ID)!.secret, 'base64url');
    this.#stored = { id: fingerprint(bytes), bytes };
    return this.#stored;
  }

  async seal(db: Executor, plain: string, owner: string): Promise<string> {
    const key = this.#configured ?? (await this.#databaseKey(db));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(owner));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plain value, or an Error when it was sealed under a key this server no longer has, or for another owner. */
  async open(db: Executor, sealed: string, owner: string): Promise<string> {
    const [keyId, iv, tag, data] = sealed.split('.');
    const key: Key = this.#configured !== undefined && this.#configured.id === keyId ? this.#configured : await this.#databaseKey(db);
    if (key.id !== keyId || !iv || !tag || data === undefined) throw new Error('a second-factor secret is sealed under a key this server does not have');
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(owner));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
