import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { namedSchemaContext } from '../../src/schemas/named.ts';

/**
 * Asserts that `value` fits `schema`; a failure names `label` and the first mismatches (where and
 * why). Answers `value` unchanged and does not narrow its type, so tests read answers freely.
 */
export function assertSchema<T>(schema: TSchema, value: T, label?: string): T {
  const context = namedSchemaContext();
  if (!Value.Check(context, schema, value)) {
    const errors = [...Value.Errors(context, schema, value)].slice(0, 3).map((e) => `${e.instancePath || '/'}: ${e.message}`);
    assert.fail(`${label ? `${label}: ` : ''}does not fit the schema: ${errors.join('; ')}`);
  }
  return value;
}
