import type { QueryClient } from '@tanstack/react-query';
import { applyLanguage, applyTimeZone, currentLanguage, directionOf, isLanguage, LANGUAGES, type Language, type Message } from './messages.ts';

/**
 * Which language the page speaks: the account's setting, else the first of the browser's languages
 * (`navigator.languages`) we have, else English. The account's setting is remembered in this browser
 * so that the next load starts in it before the account has answered.
 */
const REMEMBERED = 'taskboard.language';
/** The account's time zone, remembered the same way so the first drawing shows dates in it. */
const REMEMBERED_ZONE = 'taskboard.timeZone';

// Each catalogue but English is a chunk of its own, fetched when its language is chosen.
const loaders: Record<Exclude<Language, 'en'>, () => Promise<{ default: Record<string, Message> }>> = {
  de: () => import('./locales/de.json'),
  fr: () => import('./locales/fr.json'),
  ar: () => import('./locales/ar.json'),
};

/** The first of the asked languages we speak, with the tag as asked (`de-AT`, for its dates and numbers). */
export function languageOf(asked: readonly string[]): { language: Language; regional: string } | null {
  for (const tag of asked) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return { language: primary, regional: tag };
  }
  return null;
}

const browserLanguage = () => languageOf(typeof navigator === 'undefined' ? [] : navigator.languages) ?? { language: 'en' as const, regional: 'en' };

let wanted = 0;
async function speak(language: Language, regional?: string): Promise<void> {
  const asked = ++wanted;
  const messages = language === 'en' ? {} : (await loaders[language]()).default;
  if (asked !== wanted) return; // a later choice won
  applyLanguage(language, messages, regional);
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}

/** The language to start in, before anything is drawn. */
export function startLanguage(): Promise<void> {
  applyTimeZone(localStorage.getItem(REMEMBERED_ZONE));
  const remembered = localStorage.getItem(REMEMBERED);
  const browser = browserLanguage();
  if (isLanguage(remembered)) return speak(remembered, browser.language === remembered ? browser.regional : undefined).catch(() => speak('en'));
  return speak(browser.language, browser.regional).catch(() => speak('en'));
}

/** Follows the account's setting (`null`: the browser's) and remembers it for the next load. */
export function followAccount(locale: string | null | undefined): Promise<void> {
  const browser = browserLanguage();
  if (isLanguage(locale)) localStorage.setItem(REMEMBERED, locale);
  else localStorage.removeItem(REMEMBERED);
  const language = isLanguage(locale) ? locale : browser.language;
  if (language === currentLanguage() && document.documentElement.lang === language) return Promise.resolve();
  return speak(language, language === browser.language ? browser.regional : undefined).catch(() => undefined);
}

/** Follows the account's time zone (`null`: the browser's) and remembers it for the next load. */
export function followTimeZone(name: string | null | undefined): void {
  if (name) localStorage.setItem(REMEMBERED_ZONE, name);
  else localStorage.removeItem(REMEMBERED_ZONE);
  applyTimeZone(name);
}

/** Every answer of Get Me carries the account's language: the page follows it wherever it was read. */
export function followAccountIn(queryClient: QueryClient): void {
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success' || event.query.queryKey[0] !== 'me') return;
    const data = event.query.state.data as { user?: { locale?: string | null; timeZone?: string | null } } | undefined;
    if (!data?.user) return;
    void followAccount(data.user.locale);
    followTimeZone(data.user.timeZone);
  });
}

export { LANGUAGES };
