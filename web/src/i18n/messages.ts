import { type Formatters, IntlMessageFormat } from 'intl-messageformat';

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

/**
 * `IntlMessageFormat` makes each message's plural rules and number formats anew and resolves its
 * locale through `Intl.NumberFormat.supportedLocalesOf`, each slow on a phone and repeated for every
 * message a page first draws: they are shared by all messages instead, one per locale and options.
 */
const sharedFormatters: Formatters = {
  getNumberFormat: (locales, options) =>
    formatter(
      `icu-number\u0000${String(locales)}\u0000${JSON.stringify(options ?? {})}`,
      () => new Intl.NumberFormat(locales, options as Intl.NumberFormatOptions),
    ),
  getDateTimeFormat: (locales, options) =>
    formatter(`icu-date\u0000${String(locales)}\u0000${JSON.stringify(options ?? {})}`, () => new Intl.DateTimeFormat(locales, options)),
  getPluralRules: (locales, options) =>
    formatter(`icu-plural\u0000${String(locales)}\u0000${JSON.stringify(options ?? {})}`, () => new Intl.PluralRules(locales, options)),
};
const resolveLocale = IntlMessageFormat.resolveLocale;
const resolvedLocales = new Map<string, Intl.Locale | undefined>();
IntlMessageFormat.resolveLocale = (locales) => {
  const key = String(locales);
  if (!resolvedLocales.has(key)) resolvedLocales.set(key, resolveLocale(locales));
  return resolvedLocales.get(key);
};

export function format(key: string, values?: Record<string, Value>): string {
  const cacheKey = `${language}\u0000${key}`;
  let message = compiled.get(cacheKey);
  if (!message) {
    const source = translations[key] ?? english.get(key) ?? key;
    if (typeof source === 'string' && !ICU_SYNTAX.test(source)) return source;
    message = new IntlMessageFormat(source, locale, undefined, { ignoreTag: true, formatters: sharedFormatters });
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

/**
 * `Intl` formatters by locale, time zone and options: making one costs about a millisecond, and a
 * board's faces format a date or two each on every render, so each kind is made once and reused.
 */
type AnyFormatter = Intl.DateTimeFormat | Intl.ListFormat | Intl.NumberFormat | Intl.PluralRules | Intl.RelativeTimeFormat;
const formatters = new Map<string, AnyFormatter>();
function formatter<F extends AnyFormatter>(key: string, make: () => F): F {
  let found = formatters.get(key) as F | undefined;
  if (!found) {
    found = make();
    formatters.set(key, found);
  }
  return found;
}

/** A list in the current language: "Ann, Bo and Cy". */
export const formatList = (items: readonly string[], type: Intl.ListFormatType = 'conjunction', style: Intl.ListFormatStyle = 'long'): string =>
  formatter(`list\u0000${locale}\u0000${type}\u0000${style}`, () => new Intl.ListFormat(locale, { type, style })).format(items);
export const formatNumber = (value: number): string => formatter(`number\u0000${locale}`, () => new Intl.NumberFormat(locale)).format(value);
/** A moment in the current language and the person's time zone. */
export const formatDate = (date: Date | string, options: Intl.DateTimeFormatOptions): string => {
  const timeZone = currentTimeZone();
  return formatter(
    `date\u0000${locale}\u0000${timeZone}\u0000${JSON.stringify(options)}`,
    () => new Intl.DateTimeFormat(locale, { timeZone, ...options }),
  ).format(typeof date === 'string' ? new Date(date) : date);
};
/** "tomorrow", "in 3 days" in `locale` (the current language's by default). */
export const formatRelativeDays = (days: number, at: string = locale): string =>
  formatter(`relative\u0000${at}`, () => new Intl.RelativeTimeFormat(at, { numeric: 'auto' })).format(days, 'day');

/** The browser's time zone (an IANA name such as `Europe/Berlin`). */
export const browserTimeZone = (): string => new Intl.DateTimeFormat().resolvedOptions().timeZone;
/**
 * The account's time zone, or null for the browser's. The browser's is asked for when first needed,
 * not as the app starts: the first answer loads the time zone data, a long task on a slow phone
 * before the first paint of a page that may show no date at all.
 */
let chosenZone: string | null = null;
let browserZone: string | undefined;
/** The person's time zone: the account's, else the browser's. Dates show and are picked in it. */
export const currentTimeZone = (): string => chosenZone ?? (browserZone ??= browserTimeZone());
/** A name `Intl` knows as a time zone. */
export function isTimeZone(name: unknown): name is string {
  try {
    return typeof name === 'string' && name !== '' && Boolean(new Intl.DateTimeFormat('en', { timeZone: name }));
  } catch {
    return false;
  }
}
/** Counts the changes of the zone dates are drawn in, for a page's key (asking the zone itself would load it). */
let zoneChanges = 0;
export const timeZoneChanges = (): number => zoneChanges;
/** Makes `name` the time zone (`null` or an unknown one: the browser's); pages redraw when it changes. */
export function applyTimeZone(name: string | null | undefined): void {
  const next = name && isTimeZone(name) ? name : null;
  if (next === chosenZone) return;
  // the browser's zone not asked for yet and none chosen: nothing has been drawn in a zone
  const drawnIn = browserZone === undefined && chosenZone === null ? undefined : currentTimeZone();
  chosenZone = next;
  if (drawnIn === undefined || drawnIn === currentTimeZone()) return;
  zoneChanges++;
  for (const listener of listeners) listener();
}
