/**
 * A schema-driven fuzz over every operation of /openapi.json, on both engines: valid requests built
 * from each operation's schemas, and mutated ones (wrong types, missing and extra fields, huge strings,
 * control characters and lone surrogates, bad and foreign ids, bad JSON, wrong content types,
 * oversized bodies, malformed multipart, junk queries). Every answer must be below 500, and every
 * error must be the contract's body. fast-check drives generation from a printed seed:
 * FUZZ_SEED=<seed> replays a run, FUZZ_RUNS=<n> sets its length (default 10,000 per engine).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { type ApiWorld, apiWorld } from '../support/api-world.ts';
import { bearer, buildTestApp, ENGINES, otherCompany, type TestApp } from '../support/harness.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const BODY_LIMIT = 64 * 1024;
/** Requests in flight at once (the generated requests are the seed's; their interleaving is not). */
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
/** Requests between two fresh worlds: valid deletes use the world up, and later requests should still reach records. */
const RESEED_EVERY = 200;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
}

interface Operation {
  method: string;
  path: string;
  params: { in: string; name: string; schema: Schema }[];
  json?: Schema;
  multipart: boolean;
}

const MUTATIONS = [
  'valid',
  'valid',
  'valid',
  'wrongType',
  'missingRequired',
  'extraField',
  'hugeString',
  'nastyString',
  'badId',
  'foreignId',
  'badJson',
  'wrongContentType',
  'oversizedBody',
  'malformedMultipart',
  'junkQuery',
  'nastyQuery',
] as const;
type Mutation = (typeof MUTATIONS)[number];

/** Strings that have broken servers: controls, lone surrogates, long runs, injections, odd unicode. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\u202e\u200b',
    '\r\n',
    "'; drop table cards; --",
    '%00',
    '../../etc/passwd',
    '\uffff',
    '🎉'.repeat(600),
    ' ',
    '',
  ),
);

/** The choices a request is built from, drawn by fast-check (so the seed replays them). */
interface Choice {
  nextInt(min: number, max: number): number;
  nextBoolean(): boolean;
}

/**
 * The tenant back as an owner of its company and a member of its team: valid requests may have taken
 * it out (Leave Team, Leave Company once another owner was added, Change Role, Remove Member).
 */
async function reseatTenant(t: TestApp): Promise<void> {
  const { companyId, teamId, userId } = t.tenant;
  const at = new Date().toISOString();
  await t.services.db
    .insertInto('company_members')
    .values({ company_id: companyId, user_id: userId, role: 'owner', created_at: at })
    .onConflict((oc) => oc.columns(['company_id', 'user_id']).doUpdateSet({ role: 'owner' }))
    .execute();
  await t.services.db
    .insertInto('team_members')
    .values({ team_id: teamId, user_id: userId, created_at: at })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .execute();
}

interface Ids {
  world: ApiWorld;
  foreign: { companyId: string; teamId: string; boardId: string; userId: string };
}

/** The real id for a field or parameter name, so that valid requests reach records. */
function idFor(name: string, ids: Ids, path: string): string {
  const w = ids.world;
  const key = name.replace(/Ids?$/, '').replace(/s$/, '').toLowerCase();
  if (key === 'attachment') return path.startsWith('/api/v1/checklist-items') ? w.itemAttachmentId : w.attachmentId;
  const map: Record<string, string> = {
    card: w.cardId,
    board: w.boardId,
    list: w.listId,
    label: w.labelId,
    checklist: w.checklistId,
    item: w.itemId,
    comment: w.commentId,
    discussion: w.discussionId,
    cheer: w.cheerId,
    key: w.keyId,
    company: w.companyId,
    team: w.teamId,
    user: w.userId,
    member: w.userId,
    color: '000000000000000000000003',
  };
  return map[key] ?? w.cardId;
}

function resolve(schema: Schema, doc: { components?: { schemas?: Record<string, Schema> } }): Schema {
  if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split('/').pop() as string] ?? {}, doc);
  return schema;
}

/** A value the schema accepts (as far as the generator knows), with real ids. */
function validValue(schema: Schema, name: string, ids: Ids, path: string, r: Choice): unknown {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return validValue(branches[r.nextInt(0, branches.length - 1)] as Schema, name, ids, path, r);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[r.nextInt(0, schema.enum.length - 1)];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || r.nextBoolean()) out[key] = validValue(sub, key, ids, path, r);
      }
      if (!Object.keys(out).length && Object.keys(schema.properties ?? {}).length) {
        const [key, sub] = Object.entries(schema.properties ?? {})[0] as [string, Schema];
        out[key] = validValue(sub, key, ids, path, r);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(schema.minItems ?? 0, 1);
      return Array.from({ length: n }, () => validValue(schema.items ?? {}, name, ids, path, r));
    }
    case 'integer':
      return Math.max(schema.minimum ?? 0, 0) + r.nextInt(0, 3);
    case 'number':
      return Math.max(schema.minimum ?? 0, 0) + r.nextInt(0, 100) / 4;
    case 'boolean':
      return r.nextBoolean();
    case 'null':
      return null;
    case 'string':
    default:
      if (schema.pattern === '^[0-9a-f]{24}$') return idFor(name, ids, path);
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, r.nextInt(0, 11), r.nextInt(1, 28))).toISOString();
      if (schema.format === 'uri') return `https://example.test/${r.nextInt(0, 999)}`;
      if (schema.format === 'email') return `fuzz${r.nextInt(0, 1e9)}@acme.test`;
      return `fuzz ${name} ${r.nextInt(0, 999)}`;
  }
}

/** The paths of the leaves of a value, to pick one to mutate. */
function leaves(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    const inner = entries.flatMap(([k, v]) => leaves(v, [...prefix, k]));
    return inner.length ? inner : [prefix];
  }
  return [prefix];
}

function setAt(value: unknown, path: (string | number)[], next: unknown, remove = false): unknown {
  if (!path.length) return next;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (!rest.length && remove) delete copy[head];
  else copy[head] = setAt(copy[head], rest, next, remove);
  return copy;
}

interface Finding {
  method: string;
  url: string;
  mutation: Mutation;
  status: number;
  body: string;
}

/** Percent-encodes a string; a lone surrogate (which encodeURIComponent refuses) goes as its WTF-8 bytes. */
function encodeQuery(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ''))}%ED%A0%80`;
  }
}

const ERROR_KEYS = new Set(['message', 'code', 'requestId', 'details']);

for (const engine of ENGINES) {
  describe(`fuzz over /openapi.json [${engine}]`, () => {
    let t: TestApp;
    let ids: Ids;
    let operations: Operation[];
    let doc: { paths: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, Schema> } };

    before(async () => {
      t = await buildTestApp(engine, { config: { bodyLimitBytes: BODY_LIMIT } });
      doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'patch', 'delete', 'put'].includes(method))
          // a live stream never ends, so it has no answer to judge here: its bad input, reach and
          // limits are tested in test/integration/board-stream.test.ts
          .filter(([, raw]) => !('text/event-stream' in ((raw as { responses?: Record<string, { content?: object }> }).responses?.['200']?.content ?? {})))
          .map(([method, raw]) => {
            const op = raw as { parameters?: Operation['params']; requestBody?: { content?: Record<string, { schema: Schema }> } };
            const json = op.requestBody?.content?.['application/json']?.schema;
            return {
              method: method.toUpperCase(),
              path,
              params: op.parameters ?? [],
              ...(json ? { json: resolve(json, doc) } : {}),
              multipart: Boolean(op.requestBody?.content?.['multipart/form-data']),
            };
          }),
      );
      const other = await otherCompany(t);
      const board = await other.api('POST', `/api/v1/boards?teamId=${other.teamId}`, { name: 'Theirs' });
      ids = {
        world: await apiWorld(t),
        foreign: { companyId: other.companyId, teamId: other.teamId, boardId: board.json().board._id, userId: other.userId },
      };
    });
    after(() => t?.dispose());

    it(`sends ${RUNS} generated requests (seed ${SEED}) and gets no 5xx, every error in the contract's form`, async () => {
      console.log(`fuzz [${engine}]: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} requests, ${operations.length} operations`);
      const auth = bearer(t.tenant.apiKey);
      const findings: Finding[] = [];
      const statuses = new Map<number, number>();
      const timeByOp = new Map<string, number>();
      let sent = 0;
      let validSent = 0;
      let validAnswered = 0;
      let scheduled = 0;
      const inFlight = new Set<Promise<void>>();
      const started = Date.now();

      const request = fc.record({
        op: fc.constantFrom(...operations),
        mutation: fc.constantFrom(...MUTATIONS),
        nasty: nastyString,
        anything: fc.anything({ maxDepth: 2 }),
      });

      await fc.assert(
        fc.asyncProperty(request, fc.gen(), async ({ op, mutation, nasty, anything }, gen) => {
          if (scheduled > 0 && scheduled % RESEED_EVERY === 0) {
            await Promise.all(inFlight);
            await reseatTenant(t);
            ids.world = await apiWorld(t);
          }
          scheduled++;
          const r: Choice = { nextInt: (min, max) => gen(fc.integer, { min, max }), nextBoolean: () => gen(fc.boolean) };
          const pathParams = op.params.filter((p) => p.in === 'path');
          let url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => idFor(name, ids, op.path));
          const query: string[] = [];
          for (const p of op.params.filter((p) => p.in === 'query')) {
            if (r.nextBoolean() && r.nextBoolean()) {
              const v = p.name === 'companyId' ? ids.world.companyId : p.name === 'teamId' ? ids.world.teamId : validValue(p.schema, p.name, ids, op.path, r);
              query.push(`${p.name}=${encodeQuery(String(v))}`);
            }
          }
          if (op.path === '/api/v1/teams' && op.method === 'POST') query.push(`companyId=${ids.world.companyId}`);
          if (op.path === '/api/v1/boards' && op.method === 'POST') query.push(`teamId=${ids.world.teamId}`);

          const headers: Record<string, string> = { ...auth };
          let payload: string | Buffer | undefined;
          let body: unknown = op.json ? validValue(op.json, 'body', ids, op.path, r) : undefined;
          const spots = body === undefined ? [] : leaves(body);
          const spot = spots.length ? (spots[r.nextInt(0, spots.length - 1)] as (string | number)[]) : [];

          switch (mutation) {
            case 'wrongType':
              if (body !== undefined) body = setAt(body, spot, anything);
              break;
            case 'missingRequired':
              if (body !== undefined && spot.length) body = setAt(body, spot, undefined, true);
              break;
            case 'extraField':
              if (body && typeof body === 'object') body = { ...(body as object), [`extra${r.nextInt(0, 9)}`]: anything };
              break;
            case 'hugeString':
              if (body !== undefined) body = setAt(body, spot, 'h'.repeat(r.nextInt(513, 40_000)));
              break;
            case 'nastyString':
              if (body !== undefined) body = setAt(body, spot, nasty);
              else url = url.replace(/[0-9a-f]{24}/, encodeQuery(nasty) || '%20');
              break;
            case 'badId':
              if (pathParams.length)
                url = url.replace(
                  /[0-9a-f]{24}(?!.*[0-9a-f]{24})/,
                  ['0'.repeat(24), 'zz', 'A'.repeat(24), '%00', '..', 'x'.repeat(300)][r.nextInt(0, 5)] as string,
                );
              break;
            case 'foreignId': {
              const foreign = [ids.foreign.boardId, ids.foreign.companyId, ids.foreign.teamId, ids.foreign.userId][r.nextInt(0, 3)] as string;
              url = url.replace(/[0-9a-f]{24}/, foreign);
              if (body !== undefined && spot.length) body = setAt(body, spot, foreign);
              break;
            }
            case 'badJson':
              payload = ['{"name": "x"', '{name: 1}', '[', '"\\ud800"', '{"a":1}}', 'nul', '{"__proto__":{"x":1}}', '\u0000'][r.nextInt(0, 7)] as string;
              headers['content-type'] = 'application/json';
              break;
            case 'wrongContentType':
              payload = JSON.stringify(body ?? {});
              headers['content-type'] = [
                'text/plain',
                'application/xml',
                'application/x-www-form-urlencoded',
                'application/json; charset=latin1',
                'multipart/form-data; boundary=x',
                'garbage',
              ][r.nextInt(0, 5)] as string;
              break;
            case 'oversizedBody':
              payload = JSON.stringify({ name: 'o'.repeat(BODY_LIMIT + 10) });
              headers['content-type'] = 'application/json';
              break;
            case 'malformedMultipart': {
              const b = 'fuzzb';
              const forms = [
                ['multipart/form-data', `--${b}\r\n`],
                [`multipart/form-data; boundary=${b}`, `--${b}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\n\r\nabc`],
                [`multipart/form-data; boundary=${b}`, `--${b}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${nasty}\r\n--${b}--\r\n`],
                [
                  `multipart/form-data; boundary=${b}`,
                  `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${nasty.replace(/"/g, '')}"\r\n\r\nabc\r\n--${b}--\r\n`,
                ],
                [
                  `multipart/form-data; boundary=${b}`,
                  `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc\r\n--${b}\r\nContent-Disposition: form-data; name="x"\r\n\r\ny\r\n--${b}--\r\n`,
                ],
                [`multipart/form-data; boundary=${b}`, `garbage ${nasty}`],
              ] as const;
              const [type, form] = forms[r.nextInt(0, forms.length - 1)] as readonly [string, string];
              headers['content-type'] = type;
              payload = form;
              break;
            }
            case 'junkQuery':
              query.push(`${encodeQuery(nasty) || 'x'}=${encodeQuery(nasty)}`);
              break;
            case 'nastyQuery': {
              const q = op.params.filter((p) => p.in === 'query');
              const p = q.length ? (q[r.nextInt(0, q.length - 1)] as { name: string }) : { name: 'limit' };
              query.push(`${p.name}=${encodeQuery(nasty)}`);
              break;
            }
            default:
              if (op.multipart && r.nextBoolean()) {
                const b = 'fuzzok';
                headers['content-type'] = `multipart/form-data; boundary=${b}`;
                payload = `--${b}\r\nContent-Disposition: form-data; name="name"\r\n\r\nFuzz\r\n--${b}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\nContent-Type: text/plain\r\n\r\nfuzz bytes\r\n--${b}--\r\n`;
              }
          }
          if (payload === undefined && body !== undefined) {
            payload = JSON.stringify(body);
            headers['content-type'] = 'application/json';
          }
          const options: InjectOptions = {
            method: op.method as InjectOptions['method'],
            url: `${url}${query.length ? `?${query.join('&')}` : ''}`,
            headers,
            ...(payload !== undefined ? { payload } : {}),
          };
          // A few requests at a time, as clients send them: PostgreSQL round trips overlap.
          const sending = send(options, op, mutation).finally(() => inFlight.delete(sending));
          inFlight.add(sending);
          if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
          return true;
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      await Promise.all(inFlight);

      async function send(options: InjectOptions, op: Operation, mutation: Mutation) {
        const t0 = performance.now();
        const res = await t.app.inject(options);
        const spent = performance.now() - t0;
        timeByOp.set(`${op.method} ${op.path}`, (timeByOp.get(`${op.method} ${op.path}`) ?? 0) + spent);
        sent++;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (mutation === 'valid') {
          validSent++;
          if (res.statusCode < 300) validAnswered++;
        }
        const finding = (why: string) =>
          findings.push({
            method: op.method,
            url: String(options.url).slice(0, 200),
            mutation,
            status: res.statusCode,
            body: `${why}: ${res.body.slice(0, 300)}`,
          });
        // Readiness answers 503 by its contract when a check is slower than its bound (a loaded disk):
        // the report is the answer, not a fault.
        const notReady = op.path === '/readyz' && res.statusCode === 503 && (res.json() as { status?: string }).status === 'not ready';
        if (res.statusCode >= 500 && !notReady) finding('5xx');
        else if (res.statusCode >= 400) {
          try {
            const error = res.json() as Record<string, unknown>;
            const ok =
              typeof error.message === 'string' &&
              typeof error.code === 'string' &&
              typeof error.requestId === 'string' &&
              Object.keys(error).every((k) => ERROR_KEYS.has(k)) &&
              (error.details === undefined || Array.isArray(error.details));
            if (!ok) finding('not the contract error body');
          } catch {
            finding('error body is not JSON');
          }
        }
      }

      const seconds = (Date.now() - started) / 1000;
      const summary = [...statuses.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(' ');
      console.log(`fuzz [${engine}]: ${sent} requests in ${seconds.toFixed(1)} s; statuses ${summary}; ${findings.length} findings`);
      if (process.env.FUZZ_PROFILE)
        console.log(
          [...timeByOp.entries()]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 8)
            .map(([k, v]) => `${k} ${v.toFixed(0)}ms`)
            .join('\n'),
        );
      assert.ok(sent >= RUNS, `sent ${sent} requests`);
      // The valid requests must mostly be served: otherwise the fuzz only ever meets the validator.
      assert.ok(validAnswered > validSent / 4, `${validAnswered} of ${validSent} valid requests answered 2xx`);
      assert.deepEqual(findings.slice(0, 20), [], `seed ${SEED}: ${findings.length} bad answers`);
    });
  });
}
