import { IntlMessageFormat } from 'intl-messageformat';

/**
 * The interface's words, in ICU MessageFormat through FormatJS (docs/decisions/0230).
 *
 * Each strings module declares its English messages with `catalogue(namespace, tree)`: a plain string is
 * a message without arguments, `icu(message, values)` one with arguments, where `values` turns the call's
 * arguments into the message's named ones. `catalogue` answers an object of the same shape whose
 * strings and functions format the message of the current language, so `t.key` and `t.key(a, b)` read
 * as they always did. The other languages are flat JSON catalogues (`locales/<language>.json`, keys
 * `namespace.path`), loaded when the language is chosen.
 *
 * The build compiles every message with ICU syntax to its syntax tree (`web/build/precompile-messages.ts`,
 * docs/decisions/0277) and leaves the parser out; a message without ICU syntax is its own text and
 * never reaches `IntlMessageFormat`. Under Vite's dev server and in the tests the sources are parsed here.
 */

export const LANGUAGES = ['en', 'de', 'fr', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Each language named in itself, as a language picker shows it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', de: 'Deutsch', fr: 'Français', ar: 'العربية' };
const RIGHT_TO_LEFT: ReadonlySet<string> = new Set(['ar']);

export const isLanguage = (value: unknown): value is Language => typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
export const directionOf = (language: string): 'ltr' | 'rtl' => (RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr');

type Value = string | number;
/** A message: ICU source, or (in the build) the syntax tree of one with ICU syntax. */
export type Message = ConstructorParameters<typeof IntlMessageFormat>[0];
/** ICU syntax: an argument's braces, or an apostrophe quoting a special character. Kept in step with the build's. */
const ICU_SYNTAX = /[{}]|'['<>{}]/;
export interface Icu<A extends unknown[]> {
  readonly message: Message;
  readonly values: (...args: A) => Record<string, Value>;
}
/** A message with arguments: `values` names the call's arguments for the message. */
export const icu = <A extends unknown[]>(message: Message, values: (...args: A) => Record<string, Value>): Icu<A> => ({ message, values });

type Tree = string | Icu<never> | readonly Tree[] | { readonly [key: string]: Tree };
export type Facade<T> = T extends string
  ? string
  : T extends Icu<infer A>
    ? (...args: A) => string
    : T extends readonly unknown[]
      ? { readonly [K in keyof T]: Facade<T[K]> }
      : { readonly [K in keyof T]: Facade<T[K]> };

let language: Language = 'en';
/** The locale for `Intl`: the language, with the browser's region when the browser asks for it (en-GB). */
let locale = 'en';
let translations: Readonly<Record<string, Message>> = {};
const english = new Map<string, Message>();
const compiled = new Map<string, IntlMessageFormat>();
const listeners = new Set<() => void>();

const isIcu = (node: unknown): node is Icu<never> => typeof node === 'object' && node !== null && 'message' in node && 'values' in node;

/** The English messages of every catalogue declared so far, by key (the check and the tests read them). */
export const englishMessages = (): ReadonlyMap<string, Message> => english;

export function format(key: string, values?: Record<string, Value>): string {
  const cacheKey = `${language}\u0000${key}`;
  let message = compiled.get(cacheKey);
  if (!message) {
    const source = translations[key] ?? english.get(key) ?? key;
    if (typeof source === 'string' && !ICU_SYNTAX.test(source)) return source;
    message = new IntlMessageFormat(source, locale, undefined, { ignoreTag: true });
    compiled.set(cacheKey, message);
  }
  return String(message.format(values));
}

/** Declares a namespace's English messages and answers the object that speaks the current language. */
export function catalogue<T extends Tree>(namespace: string, tree: T): Facade<T> {
  return facade(tree, namespace) as Facade<T>;
}

function facade(node: Tree, key: string): unknown {
  if (typeof node === 'string') throw new Error(`a message must sit in an object: ${key}`);
  const target: Record<string, unknown> | unknown[] = Array.isArray(node) ? [] : {};
  for (const [name, child] of Object.entries(node)) {
    const childKey = `${key}.${name}`;
    if (typeof child === 'string') {
      english.set(childKey, child);
      Object.defineProperty(target, name, { enumerable: true, get: () => format(childKey) });
    } else if (isIcu(child)) {
      english.set(childKey, child.message);
      const { values } = child as Icu<unknown[]>;
      Object.defineProperty(target, name, { enumerable: true, value: (...args: unknown[]) => format(childKey, values(...args)) });
    } else {
      Object.defineProperty(target, name, { enumerable: true, value: facade(child, childKey) });
    }
  }
  return Object.freeze(target);
}

export const currentLanguage = (): Language => language;
export const currentLocale = (): string => locale;

/**
 * Makes `messages` (flat, `namespace.path` keys; `{}` for English) the current catalogue. `regional`
 * is the browser's tag for that language, if it named one (`de-AT`), so dates and numbers follow it.
 */
export function applyLanguage(next: Language, messages: Readonly<Record<string, Message>>, regional?: string): void {
  language = next;
  locale = regional && regional.toLowerCase().startsWith(next) ? regional : next;
  translations = next === 'en' ? {} : messages;
  compiled.clear();
  for (const listener of listeners) listener();
}

export function onLanguageChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A list in the current language: "Ann, Bo and Cy". */
export const formatList = (items: readonly string[], type: Intl.ListFormatType = 'conjunction', style: Intl.ListFormatStyle = 'long'): string =>
  new Intl.ListFormat(locale, { type, style }).format(items);
export const formatNumber = (value: number): string => new Intl.NumberFormat(locale).format(value);
/** A moment in the current language and the person's time zone. */
export const formatDate = (date: Date | string, options: Intl.DateTimeFormatOptions): string =>
  new Intl.DateTimeFormat(locale, { timeZone: zone, ...options }).format(typeof date === 'string' ? new Date(date) : date);

/** The browser's time zone (an IANA name such as `Europe/Berlin`). */
export const browserTimeZone = (): string => new Intl.DateTimeFormat().resolvedOptions().timeZone;
let zone = browserTimeZone();
/** The person's time zone: the account's, else the browser's. Dates show and are picked in it. */
export const currentTimeZone = (): string => zone;
/** A name `Intl` knows as a time zone. */
export function isTimeZone(name: unknown): name is string {
  try {
    return typeof name === 'string' && name !== '' && Boolean(new Intl.DateTimeFormat('en', { timeZone: name }));
  } catch {
    return false;
  }
}
/** Makes `name` the time zone (`null` or an unknown one: the browser's); pages redraw when it changes. */
export function applyTimeZone(name: string | null | undefined): void {
  const next = isTimeZone(name) ? name : browserTimeZone();
  if (next === zone) return;
  zone = next;
  for (const listener of listeners) listener();
}
