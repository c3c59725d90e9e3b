/** The committed generated types are what `npm run client:generate` makes of the current code. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateSchemaTypes, SCHEMA_FILE } from '../scripts/generate.ts';

describe('@taskboard/client generated types', () => {
  it('are up to date with the served OpenAPI document (else run npm run client:generate)', async () => {
    const fresh = await generateSchemaTypes();
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    assert.ok(fresh.includes('toggleMultipleLabels') && fresh.includes('Card: {'), 'the generator saw the API');
    assert.ok(committed === fresh, 'packages/client/src/schema.ts is stale: run npm run client:generate and commit it');
  });
});
