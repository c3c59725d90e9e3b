/**
 * The domain never sees which database it runs on: engine-specific SQL and error codes stay in the
 * dialect (src/storage/dialect.ts), which only the storage layer uses.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { domainFiles, ROOT } from '../support/domain-sources.ts';

/** What the domain must not say: an import of the dialect, or an engine's name (code or comment). */
export function boundaryBreaches(files: readonly { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) => {
      const where = `${path}:${i + 1}`;
      if (/from\s+['"][^'"]*storage\/dialect(\.ts)?['"]/.test(line)) return [`${where} imports the dialect`];
      const named = /\b(sqlite|postgres(ql)?|engine)\b/i.exec(line);
      return named ? [`${where} names "${named[0]}"`] : [];
    }),
  );
}

describe('the domain and the dialect', () => {
  it('no file under src/domain imports the dialect or names an engine', async () => {
    const files = (await domainFiles()).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    assert.deepEqual(boundaryBreaches(files), []);
  });

  it('catches such an import and such a name', () => {
    const breaches = boundaryBreaches([
      { path: 'a.ts', text: "import { isDeadlock } from '../../storage/dialect.ts';" },
      { path: 'b.ts', text: 'ctx.engine' },
      { path: 'c.ts', text: '// PostgreSQL aborts one of them' },
      { path: 'd.ts', text: "import { Deadlock } from '../../storage/errors.ts';\nconst engineering = 1;" },
    ]);
    assert.deepEqual(breaches, ['a.ts:1 imports the dialect', 'b.ts:1 names "engine"', 'c.ts:1 names "PostgreSQL"']);
  });
});
