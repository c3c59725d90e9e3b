/**
 * Code branches on the engine only in src/storage/engine/ (one helper per engine and concern, held by
 * the dialect) and in the migrations; everywhere else the dialect's helper is asked. The database
 * URL names its engine (src/storage/database-url.ts) and opening storage picks the dialect by it
 * (src/storage/open.ts): there, and nowhere else, is an engine name read.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/domain-sources.ts';

/** Where an engine name may be read, relative to the repository. */
const ALLOWED = [/^src\/storage\/engine\//, /^src\/storage\/migrations\//, /^src\/storage\/database-url\.ts$/, /^src\/storage\/open\.ts$/];

const ENGINE = String.raw`['"\x60](?:sqlite|postgres|postgresql)['"\x60]`;

/** A read of an engine name: the dialect's name asked, or a value compared with one. */
const READS = [
  new RegExp(String.raw`(?:[=!]==?|\bcase)\s*${ENGINE}`),
  new RegExp(String.raw`${ENGINE}\s*[=!]==?`),
  /\bdialectOf\([^)]*\)\.name\b/,
  /\.engine\s*[=!]==?/,
  /\bpostgres\s*:\s*boolean\b/,
];

/** Each line of `files` that reads an engine name, as `path:line`. */
export function engineNameReads(files: readonly { path: string; text: string }[]): string[] {
  return files
    .filter(({ path }) => !ALLOWED.some((allowed) => allowed.test(path)))
    .flatMap(({ path, text }) => text.split('\n').flatMap((line, i) => (READS.some((read) => read.test(line)) ? [`${path}:${i + 1}`] : [])));
}

async function sourceFiles(): Promise<{ path: string; text: string }[]> {
  const src = join(ROOT, 'src');
  const entries = await readdir(src, { withFileTypes: true, recursive: true });
  const paths = entries.filter((entry) => entry.isFile() && /\.[cm]?[jt]s$/.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
  assert.ok(paths.length > 100, 'the source files were found');
  return Promise.all(paths.map(async (path) => ({ path: relative(ROOT, path), text: await readFile(path, 'utf8') })));
}

describe('the engine choice', () => {
  it('no file outside src/storage/engine/ and the migrations reads an engine name', async () => {
    assert.deepEqual(engineNameReads(await sourceFiles()), []);
  });

  it('catches such a read, and lets the engine helpers and migrations read it', () => {
    const reads = engineNameReads([
      { path: 'src/storage/repositories/search.ts', text: "const postgres = dialectOf(db).name === 'postgres';\nconst fine = 1;" },
      { path: 'src/storage/repositories/x.ts', text: "if (dialectOf(db).name !== 'sqlite') return;" },
      { path: 'src/http/readiness.ts', text: "if (engine === 'sqlite') probe();" },
      { path: 'src/ratelimit/a.ts', text: "switch (kind) {\n  case 'postgres':\n}" },
      { path: 'src/config.ts', text: 'if (parsed.engine !== other) {}' },
      { path: 'src/storage/repositories/y.ts', text: 'function f(filter: Filter, postgres: boolean) {}' },
      { path: 'src/storage/engine/search.ts', text: "if (name === 'sqlite') {}" },
      { path: 'src/storage/migrations/0017_search.ts', text: "const postgres = dialectOf(db).name === 'postgres';" },
      { path: 'src/ratelimit/index.ts', text: 'log.info({ rateLimits: storage.dialect.name });' },
    ]);
    assert.deepEqual(reads, [
      'src/storage/repositories/search.ts:1',
      'src/storage/repositories/x.ts:1',
      'src/http/readiness.ts:1',
      'src/ratelimit/a.ts:2',
      'src/config.ts:1',
      'src/storage/repositories/y.ts:1',
    ]);
  });
});
