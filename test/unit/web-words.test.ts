/**
 * No interface word is written into the web app's JSX: every word a person reads comes from a
 * catalogue (`web/src/**\/strings.ts`, translated in `web/src/i18n/locales/`), so every language shows
 * it. Each `.tsx` file is parsed (SWC, TypeScript's syntax) and every JSX text, and every string given to
 * an attribute a person reads or hears (`aria-label`, `title`, `placeholder`, `alt`…), must hold no
 * letters, bar the few non-words of `ALLOWED`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { parseSync } from '@swc/core';

const WEB = join(import.meta.dirname, '../../web/src');
/** Attributes whose text a person reads or hears. */
const SPOKEN = new Set([
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-placeholder',
  'aria-valuetext',
  'title',
  'placeholder',
  'alt',
  'label',
]);
/** Texts that are no words of a language: symbols, units of the CSS and product names. */
const ALLOWED = new Set(['Taskboard', '×', '…', '·', '›', '—', '–', '+', '/', '#', '@', 'px']);
const LETTERS = /\p{L}/u;
/** An example address is no word either. */
const URL = /^https?:\/\/\S+$/;

type Node = { type?: string; [key: string]: unknown };

function tsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? tsxFiles(join(dir, entry.name)) : entry.name.endsWith('.tsx') ? [join(dir, entry.name)] : [],
  );
}

/** The literal words of a file's JSX, with the line each starts on. */
export function literalWords(source: string): { text: string; line: number }[] {
  const program = parseSync(source, { syntax: 'typescript', tsx: true });
  const bytes = Buffer.from(source);
  // SWC counts positions across every file it parsed: the program's start is this file's first token
  const base = program.span.start - Buffer.byteLength(source.slice(0, source.length - source.trimStart().length));
  const lineOf = (start: number) =>
    bytes
      .subarray(0, start - base)
      .toString()
      .split('\n').length;
  const found: { text: string; line: number }[] = [];
  const note = (text: string, start: number) => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    const leading = Buffer.byteLength(text.slice(0, text.length - text.trimStart().length));
    if (trimmed && LETTERS.test(trimmed) && !ALLOWED.has(trimmed) && !URL.test(trimmed)) found.push({ text: trimmed, line: lineOf(start + leading) });
  };
  // the strings an expression may come to: itself, a branch of a condition, the fallback of || and ??
  const results = (expression: Node | undefined): void => {
    if (!expression) return;
    const start = (expression.span as { start: number } | undefined)?.start ?? 0;
    if (expression.type === 'StringLiteral') note(String(expression.value), start);
    else if (expression.type === 'TemplateLiteral')
      for (const quasi of expression.quasis as { raw: string; span: { start: number } }[]) note(quasi.raw, quasi.span.start);
    else if (expression.type === 'ConditionalExpression') {
      results(expression.consequent as Node);
      results(expression.alternate as Node);
    } else if (expression.type === 'BinaryExpression' && ['||', '??', '&&'].includes(String(expression.operator))) results(expression.right as Node);
    else if (expression.type === 'ParenthesisExpression') results(expression.expression as Node);
  };
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const n = node as Node & { span?: { start: number } };
    if (n.type === 'JSXText') note(String(n.value), n.span?.start ?? 0);
    if (n.type === 'JSXExpressionContainer') results(n.expression as Node);
    if (n.type === 'JSXAttribute') {
      const name = (n.name as { value?: string }).value ?? '';
      const value = n.value as Node | null;
      if (!SPOKEN.has(name)) return; // class names, roles, types and keys are code, not words
      if (value?.type === 'StringLiteral') note(String(value.value), (value.span as { start: number }).start);
    }
    for (const [key, child] of Object.entries(n)) if (key !== 'span') visit(child);
  };
  visit(program.body);
  return found;
}

describe('words in the web app', () => {
  it('no JSX holds a literal word outside the catalogues', () => {
    const found = tsxFiles(WEB).flatMap((file) =>
      literalWords(readFileSync(file, 'utf8')).map(({ text, line }) => `${relative(WEB, file)}:${line}: ${JSON.stringify(text)}`),
    );
    assert.deepEqual(found, [], `words written into JSX (put them in a strings.ts catalogue):\n${found.join('\n')}`);
  });

  it('finds a word written into JSX text and into a spoken attribute, not in class names', () => {
    const found = literalWords(
      [
        'const A = () => (',
        '  <p className="muted wide" aria-label="Close it" title={open ? t.close : "Open"}>',
        '    Hello {t.x} ×',
        '    {"there"} {count || `none`} <input placeholder="https://example.com" />',
        '  </p>',
        ');',
      ].join('\n'),
    );
    assert.deepEqual(found, [
      { text: 'Close it', line: 2 },
      { text: 'Open', line: 2 },
      { text: 'Hello', line: 3 },
      { text: 'there', line: 4 },
      { text: 'none', line: 4 },
    ]);
  });
});
