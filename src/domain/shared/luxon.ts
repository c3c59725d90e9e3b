/**
 * Luxon, loaded on first use (docs/decisions/0042-load-on-first-use.md): only recurring cards and
 * the daily summary need a time zone's wall clock, and a server may never serve either.
 */
import { createRequire } from 'node:module';

type Luxon = typeof import('luxon');

let loaded: Luxon | undefined;

export function luxon(): Luxon {
  loaded ??= createRequire(import.meta.url)('luxon') as Luxon;
  return loaded;
}
