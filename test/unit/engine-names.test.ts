/**
 * The domain never sees which database it runs on. That it imports no dialect module nor driver is
 * a dependency rule (.dependency-cruiser.cjs, `domain-no-dialect`, `domain-no-drivers`); what a
 * module graph cannot see is an engine named in the code or its comments, checked here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { domainFiles, ROOT } from '../support/domain-sources.ts';

/** What the domain must not say: an engine's name (code or comment). */
export function boundaryBreaches(files: readonly { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) => {
      const named = /\b(sqlite|postgres(ql)?|engine)\b/i.exec(line);
      return named ? [`${path}:${i + 1} names "${named[0]}"`] : [];
    }),
  );
}

describe('the domain and the engines', () => {
  it('no file under src/domain names an engine', async () => {
    const files = (await domainFiles()).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    assert.deepEqual(boundaryBreaches(files), []);
  });

  it('catches such a name', () => {
    const breaches = boundaryBreaches([
      { path: 'b.ts', text: 'ctx.engine' },
      { path: 'c.ts', text: '// PostgreSQL aborts one of them' },
      { path: 'd.ts', text: "import { Deadlock } from '../../storage/errors.ts';\nconst engineering = 1;" },
    ]);
    assert.deepEqual(breaches, ['b.ts:1 names "engine"', 'c.ts:1 names "PostgreSQL"']);
  });
});
