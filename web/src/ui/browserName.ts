import Bowser from 'bowser';
import { t } from '../strings.ts';

/** "Chrome on Linux" from a user agent (bowser knows the browsers' many spellings); else the agent as sent. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return t.unknownBrowser;
  const { browser, os } = Bowser.parse(userAgent);
  return browser.name && os.name ? t.browserOn(browser.name, os.name) : userAgent;
}
