/** The source files of src/domain, for the boundary tests that read them (access, change path). */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DOMAIN = join(ROOT, 'src', 'domain');

/** Every .ts file under src/domain, by absolute path. */
export async function domainFiles(): Promise<string[]> {
  const entries = await readdir(DOMAIN, { withFileTypes: true, recursive: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
  assert.ok(files.length > 30, 'the domain files were found');
  return files;
}

/** What `violations` finds in every domain file. */
export async function findingsInDomain(violations: (path: string, source: string) => string[]): Promise<string[]> {
  const files = await domainFiles();
  return (await Promise.all(files.map(async (path) => violations(path, await readFile(path, 'utf8'))))).flat();
}

/** Each case, as the source of `path`, gives exactly one finding. */
export function assertEachCaught(violations: (path: string, source: string) => string[], path: string, cases: readonly string[]): void {
  for (const source of cases) assert.equal(violations(path, source).length, 1, source);
}
