/**
 * The catalogue of error codes in the OpenAPI document lists every code the source can answer:
 * each literal code given to sendError, DomainError (and its subclasses' `super`), and the
 * status → code table of the error handler.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/http/openapi-document.ts';
import { ROOT } from '../support/domain-sources.ts';

/** The error codes a source file names: `sendError(…, 429, 'rate_limited'`, `super(404, 'not_found'`, `409: 'conflict'`. */
export function codesIn(source: string): string[] {
  const patterns = [
    /(?:sendError\([^)]*?|DomainError\(|super\()\s*\d{3},\s*'([a-z_]+)'/g,
    /^\s*\d{3}: '([a-z_]+)',$/gm,
    /CODE_BY_STATUS\[\w+\] \?\? '([a-z_]+)'/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1] as string));
}

describe('error code catalogue', () => {
  it('finds codes in each form the source uses', () => {
    assert.deepEqual(codesIn("return sendError(request, reply, 429, 'rate_limited', 'x')"), ['rate_limited']);
    assert.deepEqual(codesIn("    super(404, 'not_found', `${what} not found`, details);"), ['not_found']);
    assert.deepEqual(codesIn("  415: 'unsupported_media_type',"), ['unsupported_media_type']);
    assert.deepEqual(codesIn("const code = CODE_BY_STATUS[status] ?? 'bad_request';"), ['bad_request']);
  });

  it('lists every code the source answers with', async () => {
    const entries = await readdir(join(ROOT, 'src'), { withFileTypes: true, recursive: true });
    const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
    const found = new Set((await Promise.all(files.map(async (f) => codesIn(await readFile(f, 'utf8'))))).flat());
    assert.ok(found.has('validation_failed') && found.has('rate_limited') && found.has('unavailable'), [...found].join(', '));
    const listed = new Set(ERROR_CODES.map((e) => e.code));
    assert.deepEqual([...found].filter((code) => !listed.has(code)).sort(), []);
  });
});
