/**
 * The web build's message compiler (web/build/precompile-messages.ts, docs/decisions/0277): every
 * message of every language, compiled as the build compiles it, formats to the same words as its
 * source; messages with ICU syntax become syntax trees and the others stay text; the strings modules'
 * `icu(...)` messages are replaced in place, and a catalogue the build cannot compile fails it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { transformSync } from 'esbuild';
import { compileCatalogue, compileMessage, compileStringsModule } from '../../web/build/precompile-messages.ts';
import '../../web/src/strings.ts';
import { applyLanguage, englishMessages, format, LANGUAGES, type Message } from '../../web/src/i18n/messages.ts';

const WEB = join(import.meta.dirname, '../../web/src');
const LOCALES = join(WEB, 'i18n/locales');

/** Values for a message's arguments that reach a plural's forms and a select's first option. */
function valuesFor(elements: MessageFormatElement[], values: Record<string, string | number> = {}, count = 3): Record<string, string | number> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound || element.type === TYPE.tag) continue;
    if (element.type === TYPE.plural || element.type === TYPE.number) values[element.value] = count;
    else if (element.type === TYPE.select) values[element.value] = Object.keys(element.options)[0] ?? 'other';
    else if (element.type === TYPE.date || element.type === TYPE.time) values[element.value] = Date.UTC(2026, 0, 2);
    else values[element.value] ??= `‹${element.value}›`;
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) valuesFor(option.value, values, count);
  }
  return values;
}

describe('messages compiled at build time', () => {
  it('leaves a message without ICU syntax as its text and compiles one with it to its tree', () => {
    assert.equal(compileMessage('Reload', 'en'), 'Reload');
    assert.equal(compileMessage("l'équipe", 'fr'), "l'équipe", 'an apostrophe before a letter quotes nothing');
    assert.deepEqual(compileMessage('Open {board}', 'en'), [
      { type: TYPE.literal, value: 'Open ' },
      { type: TYPE.argument, value: 'board' },
    ]);
    assert.deepEqual(compileMessage("Don''t", 'en'), [{ type: TYPE.literal, value: "Don't" }]);
  });

  for (const language of LANGUAGES) {
    it(`formats every ${language} message compiled as from its source, for one, few and many`, () => {
      const sources: Record<string, string> =
        language === 'en'
          ? Object.fromEntries([...englishMessages()].map(([key, message]) => [key, message as string]))
          : JSON.parse(readFileSync(join(LOCALES, `${language}.json`), 'utf8'));
      const compiled = compileCatalogue(sources, language);
      const cases = Object.entries(sources).flatMap(([key, source]) =>
        [0, 1, 2, 3, 11, 100].map((count) => ({ key, values: valuesFor(parse(source, { ignoreTag: true }), {}, count) })),
      );
      applyLanguage(language, language === 'en' ? {} : sources);
      const fromSources = cases.map(({ key, values }) => format(key, values));
      applyLanguage(language, compiled);
      cases.forEach(({ key, values }, i) => assert.equal(format(key, values), fromSources[i], `${language} ${key} with ${JSON.stringify(values)}`));
      const trees = Object.values(compiled).filter((message: Message) => typeof message !== 'string').length;
      assert.ok(trees > 100, `${trees} ${language} messages compiled to trees`);
    });
  }

  it('replaces every icu(...) message with ICU syntax in every strings module, and nothing else', () => {
    const modules = readdirSync(WEB, { recursive: true, encoding: 'utf8' }).filter((file) => /strings\.ts$/i.test(file));
    assert.ok(modules.length >= 15, modules.join(', '));
    for (const file of modules) {
      const { code } = transformSync(readFileSync(join(WEB, file), 'utf8'), { loader: 'ts', format: 'esm' });
      const compiled = compileStringsModule(code, file) ?? code;
      // the English messages left in the module are the ones without ICU syntax
      for (const [, message] of englishMessages()) {
        if (typeof message === 'string' && /[{}]/.test(message))
          assert.ok(!compiled.includes(JSON.stringify(message).slice(1, -1)), `${file} still holds ${message}`);
      }
      transformSync(compiled, { loader: 'js' }); // still JavaScript
    }
    const app = compileStringsModule(transformSync(readFileSync(join(WEB, 'strings.ts'), 'utf8'), { loader: 'ts' }).code, 'strings.ts') ?? '';
    assert.match(app, /noBoardsInTeam: icu\(\[\{"type":0,"value":"No boards in "\},\{"type":1,"value":"team"\}/);
    assert.match(app, /signIn: "Sign in"/);
  });

  it('fails the build on a catalogue it cannot compile', () => {
    const module = (tree: string) => `import { catalogue, icu } from './i18n/messages.ts';\nexport const t = catalogue('x', ${tree});`;
    assert.throws(() => compileStringsModule(module(`{ a: icu(someMessage, (n) => ({ n })) }`), 'x.ts'), /an icu\(\) message must be a literal/);
    assert.throws(() => compileStringsModule(module(`{ a: 'Open {board}' }`), 'x.ts'), /must be declared with icu/);
    assert.throws(() => compileStringsModule(module(`{ ...others }`), 'x.ts'), /plain properties/);
    assert.throws(() => compileCatalogue({ 'x.a': 'Open {board' }, 'de'), /EXPECT_ARGUMENT_CLOSING_BRACE|SyntaxError/);
  });
});
