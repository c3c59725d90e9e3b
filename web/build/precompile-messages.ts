import { readFileSync } from 'node:fs';
import { type MessageFormatElement, parse } from '@formatjs/icu-messageformat-parser';
import { type Plugin, parseAst } from 'vite';

/**
 * Compiles the interface's ICU messages at build time (docs/decisions/0277), so the browser formats
 * syntax trees and ships no ICU parser. A message with ICU syntax becomes its tree (what `formatjs
 * compile --ast` writes); one without stays a string, which the app shows as it is. The English
 * messages are compiled inside the strings modules' `catalogue(...)` calls, the other languages'
 * flat JSON catalogues as they load. Anything the plugin cannot read as a literal message fails the
 * build, since the app could not parse it at run time.
 */

/** ICU syntax: an argument's braces, or an apostrophe quoting a special character. Kept in step with `web/src/i18n/messages.ts`. */
export const ICU_SYNTAX = /[{}]|'['<>{}]/;

export type Compiled = string | MessageFormatElement[];

/** One message, parsed as `intl-messageformat` would parse it at run time. */
export function compileMessage(source: string, language: string): Compiled {
  if (!ICU_SYNTAX.test(source)) return source;
  return parse(source, { ignoreTag: true, locale: new Intl.Locale(language) });
}

/** A language's flat catalogue (`namespace.path` → message), compiled. */
export function compileCatalogue(messages: Record<string, unknown>, language: string): Record<string, Compiled> {
  return Object.fromEntries(
    Object.entries(messages).map(([key, source]) => {
      if (typeof source !== 'string') throw new Error(`${language}: ${key} is not a message`);
      return [key, compileMessage(source, language)];
    }),
  );
}

// The few ESTree shapes a catalogue is written in.
interface Node {
  type: string;
  start: number;
  end: number;
  [field: string]: unknown;
}
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

/** The text of a string literal or a template literal without expressions, else null. */
function literalText(node: Node): string | null {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as Node[]).length === 0) {
    const [quasi] = node.quasis as { value: { cooked: string } }[];
    return quasi?.value.cooked ?? null;
  }
  return null;
}

const isCallOf = (node: Node, name: string): boolean =>
  node.type === 'CallExpression' && isNode(node.callee) && node.callee.type === 'Identifier' && node.callee.name === name;

/**
 * Replaces, in a strings module (JavaScript, its types already stripped), the message of every
 * `icu(message, values)` inside a `catalogue(namespace, tree)` call with its syntax tree. Answers
 * null when the module declares no catalogue.
 */
export function compileStringsModule(code: string, where: string): string | null {
  if (!code.includes('catalogue(')) return null;
  const edits: { start: number; end: number; text: string }[] = [];
  const fail = (node: Node, why: string): never => {
    throw new Error(`${where}: ${why}: ${code.slice(node.start, Math.min(node.end, node.start + 80))}`);
  };
  const tree = (node: Node): void => {
    if (node.type === 'ObjectExpression') {
      for (const property of node.properties as Node[]) {
        if (property.type !== 'Property' || !isNode(property.value)) fail(property, 'a catalogue holds plain properties');
        tree(property.value as Node);
      }
    } else if (node.type === 'ArrayExpression') {
      for (const element of node.elements as (Node | null)[]) if (element) tree(element);
    } else if (isCallOf(node, 'icu')) {
      const [message] = node.arguments as Node[];
      const text = message ? literalText(message) : null;
      if (message === undefined || text === null) return fail(node, 'an icu() message must be a literal');
      const compiled = compileMessage(text, 'en');
      if (typeof compiled !== 'string') edits.push({ start: message.start, end: message.end, text: JSON.stringify(compiled) });
    } else {
      const text = literalText(node);
      if (text === null) fail(node, 'a catalogue entry must be a literal message, icu(...), an object or an array');
      else if (ICU_SYNTAX.test(text)) fail(node, 'a message with ICU syntax must be declared with icu(...)');
    }
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const child of node) visit(child);
    if (!isNode(node)) return;
    if (isCallOf(node, 'catalogue')) {
      const declared = (node.arguments as Node[])[1];
      if (!declared) fail(node, 'catalogue() needs its messages');
      tree(declared as Node);
      return;
    }
    for (const [field, child] of Object.entries(node)) if (field !== 'type' && typeof child === 'object') visit(child);
  };
  visit(parseAst(code));
  if (edits.length === 0) return null;
  let out = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

const LOCALE_FILE = /\/web\/src\/i18n\/locales\/([a-z]{2})\.json$/;

/** The Vite plugin: compiled catalogues in the build, and the parser left out of `intl-messageformat`. */
export function precompileMessages(): Plugin[] {
  return [
    {
      name: 'taskboard:precompile-locales',
      apply: 'build',
      enforce: 'pre',
      load(id) {
        const language = LOCALE_FILE.exec(id)?.[1];
        if (!language) return null;
        return JSON.stringify(compileCatalogue(JSON.parse(readFileSync(id, 'utf8')), language));
      },
    },
    {
      name: 'taskboard:precompile-strings',
      apply: 'build',
      enforce: 'post',
      transform(code, id) {
        if (!id.includes('/web/src/') || !/\.tsx?$/.test(id) || id.endsWith('/i18n/messages.ts')) return null;
        const compiled = compileStringsModule(code, id);
        return compiled === null ? null : { code: compiled, map: null };
      },
    },
    {
      // Every message reaches `intl-messageformat` as a tree, so its parser is dead weight in the bundle.
      name: 'taskboard:no-icu-parser',
      apply: 'build',
      config: () => ({
        resolve: { alias: [{ find: /^@formatjs\/icu-messageformat-parser$/, replacement: '@formatjs/icu-messageformat-parser/no-parser.js' }] },
      }),
    },
  ];
}
