/**
 * The web app's catalogues (docs/web-app.md#languages): every language has every English message,
 * with the same arguments, in valid ICU MessageFormat, and each plural has the forms its language
 * needs; then the words the interface shows in each language, plural forms first.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { keyText } from '../../web/src/account/key-strings.ts';
import { auditText } from '../../web/src/admin/audit-strings.ts';
import { signInPolicyText } from '../../web/src/admin/sign-in-policy-strings.ts';
import { scheduleWords } from '../../web/src/board/recurrences/schedule.ts';
import { rulesText } from '../../web/src/board/rules/strings.ts';
import { ruleSentence } from '../../web/src/board/rules/words.ts';
import { settingsText } from '../../web/src/board/settings/strings.ts';
import { tableText } from '../../web/src/board/table/strings.ts';
import { templatesText } from '../../web/src/board/templates/strings.ts';
import { viewsText } from '../../web/src/board/views/strings.ts';
import { calendarText } from '../../web/src/calendar/strings.ts';
import { fieldsText } from '../../web/src/fields/strings.ts';
import { applyLanguage, englishMessages, LANGUAGES, type Language } from '../../web/src/i18n/messages.ts';
import { offlineText } from '../../web/src/offline/strings.ts';
import { factorText } from '../../web/src/people/factor-strings.ts';
import { peopleText } from '../../web/src/people/strings.ts';
import { relationsText } from '../../web/src/relations/strings.ts';
import { searchText } from '../../web/src/search/strings.ts';
import { railText } from '../../web/src/shell/railStrings.ts';
import { t } from '../../web/src/strings.ts';
import { dateText } from '../../web/src/ui/dateStrings.ts';

const LOCALES = join(import.meta.dirname, '../../web/src/i18n/locales');
const catalogueOf = (language: Exclude<Language, 'en'>): Record<string, string> => JSON.parse(readFileSync(join(LOCALES, `${language}.json`), 'utf8'));
const TRANSLATED = LANGUAGES.filter((language): language is Exclude<Language, 'en'> => language !== 'en');
const speak = (language: Language) => applyLanguage(language, language === 'en' ? {} : catalogueOf(language));

/** The argument names a message uses, and its plurals' option names. */
function shape(elements: MessageFormatElement[], args = new Set<string>(), plurals: Set<string>[] = []): { args: Set<string>; plurals: Set<string>[] } {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    args.add(element.value);
    if (element.type === TYPE.plural) plurals.push(new Set(Object.keys(element.options)));
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) shape(option.value, args, plurals);
  }
  return { args, plurals };
}

/** The plural forms whole counts reach in a language (French reaches "many" only for millions). */
function formsOf(language: string): Set<string> {
  const rules = new Intl.PluralRules(language);
  return new Set(Array.from({ length: 1001 }, (_, n) => rules.select(n)));
}

describe('the web catalogues', () => {
  const english = englishMessages();

  it('declare their English messages (the namespaces of every strings module)', () => {
    assert.ok(english.size > 500, `${english.size} messages`);
    assert.equal(offlineText.reload, 'Reload');
    assert.equal(calendarText.revoke, 'Revoke');
    assert.equal(dateText.noDate, 'No date');
    assert.equal(railText.recent, 'Recent boards');
    assert.equal(auditText.title, 'Audit log');
    assert.equal(keyText.readOnly, 'Read only');
    assert.equal(viewsText.noDueDate, 'No due date');
    assert.equal(signInPolicyText.title, 'Single sign-on');
    for (const namespace of [
      'app.',
      'people.',
      'search.',
      'settings.',
      'offline.',
      'calendar.',
      'dates.',
      'rail.',
      'factors.',
      'audit.',
      'keys.',
      'boardViews.',
      'signInPolicy.',
    ])
      assert.ok(
        [...english.keys()].some((key) => key.startsWith(namespace)),
        namespace,
      );
  });

  for (const language of TRANSLATED) {
    describe(language, () => {
      const catalogue = catalogueOf(language);
      it('has every English message, and no other', () => {
        const missing = [...english.keys()].filter((key) => !(key in catalogue));
        const stale = Object.keys(catalogue).filter((key) => !english.has(key));
        assert.deepEqual({ missing, stale }, { missing: [], stale: [] });
      });

      it('says each message with the arguments of the English one, in valid ICU', () => {
        for (const [key, source] of english) {
          const translated = catalogue[key];
          if (translated === undefined) continue;
          // run from source, the English messages are ICU text (the build alone compiles them)
          const want = [...shape(parse(source as string, { ignoreTag: true })).args].sort();
          const got = [...shape(parse(translated, { ignoreTag: true })).args].sort();
          assert.deepEqual(got, want, `${language} ${key}`);
        }
      });

      it('gives each plural every form the language has', () => {
        const forms = formsOf(language);
        for (const [key, translated] of Object.entries(catalogue)) {
          for (const options of shape(parse(translated, { ignoreTag: true })).plurals) {
            // a plural of exact counts and "other" alone is a switch on the number, not a noun's forms
            if ([...options].every((option) => option.startsWith('=') || option === 'other')) continue;
            const needed = [...forms].filter((form) => !options.has(form) && !(form === 'zero' && options.has('=0')));
            assert.ok(options.has('other'), `${language} ${key}: no "other"`);
            assert.deepEqual(needed, [], `${language} ${key} lacks forms`);
            for (const option of options)
              assert.ok(option.startsWith('=') || forms.has(option) || option === 'other', `${language} ${key}: "${option}" is no form of ${language}`);
          }
        }
      });

      it('translates: most messages differ from the English', () => {
        const same = [...english].filter(([key, source]) => catalogue[key] === source && /\p{L}{4,}/u.test(source));
        assert.ok(same.length < english.size / 20, `${same.length} untranslated: ${same.map(([key]) => key).join(', ')}`);
      });
    });
  }
});

describe('the words in each language', () => {
  before(() => speak('en'));

  it('English reads as before, its plurals by count', () => {
    speak('en');
    assert.equal(t.signIn, 'Sign in');
    assert.deepEqual(
      [0, 1, 2].map((n) => t.cardCount(n)),
      ['0 cards', '1 card', '2 cards'],
    );
    assert.equal(t.commentDeleted(0), 'Comment deleted.');
    assert.equal(t.commentDeleted(1), 'Comment and its 1 reply deleted.');
    assert.equal(t.commentDeleted(3), 'Comment and its 3 replies deleted.');
    assert.equal(t.cheerButton('🎉', []), 'Cheer 🎉');
    assert.equal(t.cheerButton('🎉', ['Ann', 'Bo']), '🎉 2, cheered by Ann, Bo');
    assert.equal(t.act.item('members.toggled', 'Ship'), 'changed the members of the item Ship');
    assert.equal(t.act.checklist('created', ''), 'added the checklist');
    assert.equal(t.notificationText('comment.replied', 'Ship'), 'A reply to your comment on Ship');
    assert.equal(t.notificationText('something.new', 'Ship'), 'News on Ship');
    assert.equal(t.shortcutList[0]?.[0], 'Arrow keys');
    assert.equal(t.ssoProblems.sso_cancelled, 'Single sign-on was cancelled.');
    assert.equal(peopleText.invitedBy(null, 'Acme', 'a member'), 'You are invited to join Acme as a member.');
    assert.equal(factorText.statusOn('today', 1), 'On since today. 1 recovery code left.');
    assert.equal(factorText.statusOn('today', 0), 'On since today. No recovery codes left.');
    assert.equal(searchText.count(1, false), '1 result. Arrow keys to choose, Enter to open.');
    assert.equal(searchText.count(20, true), '20+ results. Arrow keys to choose, Enter to open.');
    assert.equal(settingsText.confirmDeleteCard('X', 1, 2), 'Delete the card "X" with its 1 comment and 2 attachments? This cannot be undone.');
    assert.equal(settingsText.confirmDeleteCard('X', 0, 0), 'Delete the card "X"? This cannot be undone.');
    const names = { list: () => 'Done', label: () => 'Doing', user: () => 'Ann' };
    assert.equal(
      ruleSentence(
        {
          trigger: { type: 'card.moved.into', list: 'l' },
          conditions: [],
          actions: [
            { type: 'complete', status: true },
            { type: 'labels.remove', labels: ['d'] },
          ],
        },
        names,
      ),
      'When a card is moved into Done, mark it complete and remove the label Doing.',
    );
    assert.equal(
      ruleSentence(
        { trigger: { type: 'due.soon', amount: 2, unit: 'days' }, conditions: [{ type: 'member', user: 'a', has: false }], actions: [{ type: 'notify' }] },
        names,
      ),
      "When a card's due date is 2 days away and it lacks the member Ann, notify the card's members.",
    );
    assert.equal(rulesText.span(1, 'hours'), '1 hour');
    assert.equal(templatesText.createNamed('Bug report'), 'Create from template Bug report');
    assert.equal(
      scheduleWords('FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5', '2031-03-03T09:00', 'Europe/Berlin'),
      'Every week on Monday and Wednesday at 9:00 AM (Europe/Berlin), 5 times in all',
    );
    assert.equal(
      scheduleWords('FREQ=MONTHLY;BYDAY=-1FR', '2031-01-31T17:00', 'America/New_York'),
      'Every month on the last Friday at 5:00 PM (America/New_York)',
    );
    assert.equal(tableText.rows(10000), '10,000 cards');
    assert.equal(relationsText.results(2), '2 cards found. Arrow keys to choose, Enter to add.');
    assert.equal(fieldsText.confirmDelete('Estimate', 2), 'Delete the field "Estimate"? Its values are cleared from the 2 cards that have one.');
  });

  it('German: one and other', () => {
    speak('de');
    assert.equal(t.signIn, 'Anmelden');
    assert.deepEqual(
      [0, 1, 2].map((n) => t.cardCount(n)),
      ['0 Karten', '1 Karte', '2 Karten'],
    );
    assert.equal(t.commentDeleted(1), 'Kommentar und seine 1 Antwort gelöscht.');
    assert.equal(t.act.checklist('created', 'Release'), 'hat die Checkliste Release hinzugefügt');
    assert.equal(t.importProgress(1200, 5000), 'Importierte Karten: 1.200 von 5.000');
    assert.equal(settingsText.confirmDeleteLabel('Bug', 3), 'Das Label „Bug“ löschen? Es wird von den 3 Karten entfernt, die es tragen.');
    assert.equal(
      rulesText.sentence('eine Karte nach Done verschoben wird', '', 'sie archivieren'),
      'Wenn eine Karte nach Done verschoben wird: sie archivieren.',
    );
  });

  it('French: one covers 0 and 1', () => {
    speak('fr');
    assert.deepEqual(
      [0, 1, 2].map((n) => t.cardCount(n)),
      ['0 carte', '1 carte', '2 cartes'],
    );
    assert.equal(t.sessionsEnded(2), '2 sessions terminées.');
    assert.equal(searchText.count(1, false), '1 résultat. Flèches pour choisir, Entrée pour ouvrir.');
  });

  it('Arabic: zero, one, two, few, many and other', () => {
    speak('ar');
    assert.deepEqual(
      [0, 1, 2, 3, 11, 100].map((n) => t.cardCount(n)),
      ['لا بطاقات', 'بطاقة واحدة', 'بطاقتان', '3 بطاقات', '11 بطاقة', '100 بطاقة'].map((text) =>
        text.replace(/\d+/, (d) => new Intl.NumberFormat('ar').format(Number(d))),
      ),
    );
    assert.equal(t.comments(2), 'تعليقان');
    assert.equal(t.signIn, 'تسجيل الدخول');
  });

  it('falls back to English for a message a catalogue lacks', () => {
    applyLanguage('de', { 'app.signIn': 'Anmelden' });
    assert.equal(t.signIn, 'Anmelden');
    assert.equal(t.signOut, 'Sign out');
    speak('en');
  });
});
