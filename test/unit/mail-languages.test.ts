/**
 * The mails' catalogues (src/domain/mail/messages.ts): each language says every message with the
 * English one's arguments, the server speaks the web app's languages, and a digest is wrapped in its
 * recipient's language with the plural its count takes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { mailCatalogues, mailLanguage, mailText } from '../../src/domain/mail/messages.ts';
import { digestMail } from '../../src/domain/mail/notification-mail.ts';
import { LANGUAGES } from '../../src/schemas/records.ts';
import type { MailRow } from '../../src/storage/repositories/mail.ts';
import { LANGUAGES as WEB_LANGUAGES } from '../../web/src/i18n/messages.ts';

function argumentsOf(elements: MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    found.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) argumentsOf(option.value, found);
  }
  return found;
}

const row = (language: string | null, body: string): MailRow => ({
  id: body,
  to_address: 'ann@acme.test',
  kind: 'notification',
  user_id: 'u1',
  subject: body,
  body,
  created_at: '2026-01-01T00:00:00.000Z',
  attempts: 0,
  next_attempt_at: '2026-01-01T00:01:00.000Z',
  sent_at: null,
  last_error: null,
  language,
});

describe('the mail catalogues', () => {
  it('speak the languages of the web app', () => {
    assert.deepEqual([...LANGUAGES], [...WEB_LANGUAGES]);
    assert.deepEqual(Object.keys(mailCatalogues).sort(), [...LANGUAGES].sort());
  });

  for (const language of LANGUAGES) {
    it(`${language}: every message, with the English arguments`, () => {
      for (const [key, english] of Object.entries(mailCatalogues.en)) {
        const translated = mailCatalogues[language][key as keyof typeof mailCatalogues.en];
        assert.deepEqual(
          [...argumentsOf(parse(translated, { ignoreTag: true }))].sort(),
          [...argumentsOf(parse(english, { ignoreTag: true }))].sort(),
          `${language} ${key}`,
        );
        if (language !== 'en') assert.notEqual(translated, english, `${language} ${key} is translated`);
      }
    });
  }

  it('picks the first language it speaks, English when none', () => {
    assert.equal(mailLanguage(null, 'fr'), 'fr');
    assert.equal(mailLanguage('xx', undefined), 'en');
    assert.equal(mailLanguage('ar', 'de'), 'ar');
  });

  it("wraps a digest in the recipient's language, with the count's plural", () => {
    const two = digestMail([row('ar', 'a'), row('ar', 'b')]);
    assert.equal(two.subject, 'إشعاران جديدان على Taskboard');
    assert.ok(two.text.endsWith(mailText('ar', 'digestFooter')));
    assert.equal(digestMail([row('de', 'a'), row('de', 'b'), row('de', 'c')]).subject, '3 neue Benachrichtigungen auf Taskboard');
    assert.equal(digestMail([row(null, 'a'), row(null, 'b')]).subject, '2 new notifications on Taskboard');
    assert.equal(digestMail([row('fr', 'seule')]).subject, 'seule', 'a notification alone keeps its own subject');
  });
});
