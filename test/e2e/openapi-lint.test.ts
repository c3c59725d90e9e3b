/**
 * The served OpenAPI document passes `redocly lint` with the recommended rules: no error, no
 * warning. The linter is the dev dependency's own CLI, run offline (telemetry and the update check
 * off) on the document the app serves, written to a temporary folder with no redocly config in it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ERROR_CODES, TAG_DESCRIPTIONS } from '../../src/http/openapi-document.ts';
import { buildTestApp, type TestApp } from '../support/harness.ts';

const REDOCLY = resolve(import.meta.dirname, '../../node_modules/.bin/redocly');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
}

interface Document {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  components: {
    schemas: Record<string, { properties?: Record<string, { description?: string }> }>;
    responses?: Record<string, ResponseObject>;
  };
  paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, ResponseObject & { $ref?: string }> }>>;
}

describe('OpenAPI document: redocly lint and what generators need', () => {
  let t: TestApp;
  let folder: string;
  let doc: Document;

  before(async () => {
    t = await buildTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json() as Document;
    folder = mkdtempSync(join(tmpdir(), 'taskboard-lint-'));
    writeFileSync(join(folder, 'openapi.json'), res.body);
  });
  after(async () => {
    await t?.dispose();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('passes the recommended rules with 0 errors and 0 warnings', async () => {
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // lint exits 1 when it finds errors; the JSON report is on stdout either way.
    const stdout = await promisify(execFile)(REDOCLY, ['lint', 'openapi.json', '--extends', 'recommended', '--format', 'json'], {
      cwd: folder,
      env,
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      (done) => done.stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const report = JSON.parse(stdout) as LintReport;
    // A page a browser navigates to (single sign-on, marked x-browser-redirect) answers a 303, not a 2xx.
    const redirects = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => (op as { 'x-browser-redirect'?: boolean })['x-browser-redirect'])
          .map(([method]) => `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses`),
      ),
    );
    const found = report.problems.filter((p) => !(p.ruleId === 'operation-2xx-response' && redirects.has(p.location[0]?.pointer ?? '')));
    const problems = found.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    const count = (severity: string) => found.filter((p) => p.severity === severity).length;
    assert.equal(report.problems.length - found.length, redirects.size, 'each browser redirect is only missing its 2xx');
    assert.deepEqual({ errors: count('error'), warnings: count('warn') }, { errors: 0, warnings: 0 }, problems.slice(0, 20).join('\n'));
  });

  it('names every operation uniquely, in camelCase', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id)),
      `camelCase: ${ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(String(id))).join(', ')}`,
    );
    assert.equal(new Set(ids).size, ids.length, 'no two operations share an id');
    for (const id of ['toggleMultipleLabels', 'updateAttachmentNameOnCard', 'createCard', 'getCardDetails']) assert.ok(ids.includes(id), id);
  });

  it('names the records once, as components, and references them', () => {
    for (const name of ['Card', 'Label', 'Member', 'Attachment', 'Cheer', 'Checklist', 'ChecklistItem', 'Comment', 'Error']) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    const text = JSON.stringify(doc.paths);
    assert.ok(text.includes('"#/components/schemas/Card"'));
    // No copy of the Card's shape in the operations: its distinctive field appears only in the component.
    assert.equal(text.match(/"allChecklistItemsCount"/g)?.length ?? 0, 0, 'the Card is referenced, never inlined');
  });

  it('describes every response, with the headers every answer carries', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, given] of Object.entries(op.responses)) {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const response = given.$ref ? doc.components.responses?.[given.$ref.replace('#/components/responses/', '')] : given;
          assert.ok(response, `${where} resolves`);
          assert.notEqual(response.description, 'Default Response', where);
          assert.ok(response.headers?.['X-Request-Id'], `${where} X-Request-Id`);
          if (status === '429') assert.ok(response.headers?.['Retry-After'], `${where} Retry-After`);
          // public operations (sign-in, setup, invitations) have no key and so no tier bucket
          if (path.startsWith('/api/') && status.startsWith('2') && !((op as { security?: unknown[] }).security?.length === 0))
            assert.ok(response.headers?.RateLimit && response.headers['RateLimit-Policy'], `${where} RateLimit`);
        }
      }
    }
  });

  it('has servers, described tags and the catalogue of error codes', () => {
    assert.ok(doc.servers?.length);
    const used = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
    for (const tag of used) {
      const declared = doc.tags?.find((t) => t.name === tag);
      assert.ok(declared?.description && declared.description === TAG_DESCRIPTIONS[tag], `tag ${tag} is described`);
    }
    const code = doc.components.schemas.Error?.properties?.code?.description ?? '';
    for (const { code: name } of ERROR_CODES) assert.ok(code.includes(`\`${name}\``), `the catalogue lists ${name}`);
  });
});
