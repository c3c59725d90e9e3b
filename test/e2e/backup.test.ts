/**
 * `taskboard backup` and `taskboard restore` as an operator runs them: a backup taken while the
 * server writes restores into an empty folder, whole, with every write acknowledged before it began
 * and the attachments' bytes. SQLite only: on PostgreSQL the command refuses and names pg_dump.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import SqliteDatabase from 'better-sqlite3';
import { extract, pack } from 'tar-stream';
import { buildApp } from '../../src/app.ts';
import { openStorage } from '../../src/storage/open.ts';
import { type CommandRun, runTaskboard } from '../support/cli.ts';
import { multipart, seedBoard } from '../support/fixtures.ts';
import { bearer, buildTestApp, type TestApp, testConfig } from '../support/harness.ts';

function assertRefused(result: CommandRun, pattern: RegExp) {
  assert.equal(result.code, 1, `exit ${result.code}; stdout: ${result.stdout}`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trim().split('\n').length, 1, `not one line: ${result.stderr}`);
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/** The entries of a gzipped tar, in order. */
async function entriesOf(archive: Buffer): Promise<[string, Buffer][]> {
  const reader = extract();
  const entries: [string, Buffer][] = [];
  const reading = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push([entry.header.name, Buffer.concat(chunks)]);
    }
  })();
  reader.end(gunzipSync(archive));
  await reading;
  return entries;
}

async function archiveOf(entries: [string, Buffer][]): Promise<Buffer> {
  const archive = pack();
  for (const [name, bytes] of entries) archive.entry({ name }, bytes);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

describe('taskboard backup and restore [sqlite]', () => {
  let t: TestApp;
  let listId: string;
  let dir: string;
  before(async () => {
    t = await buildTestApp('sqlite');
    listId = (await seedBoard(t.services, t.tenant, { lists: 1 })).listIds[0] as string;
    dir = mkdtempSync(join(tmpdir(), 'taskboard-backup-'));
  });
  after(async () => {
    await t.dispose();
    rmSync(dir, { recursive: true, force: true });
    rmSync(t.config.uploadDir, { recursive: true, force: true });
  });

  const headers = () => bearer(t.tenant.apiKey);
  const newCard = async (name: string): Promise<string> => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/cards', headers: headers(), payload: { list: listId, name } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().card._id as string;
  };
  const upload = async (cardId: string, content: Buffer) => {
    const form = multipart({}, { filename: 'notes.bin', contentType: 'application/octet-stream', content });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/cards/${cardId}/attachments`,
      headers: { ...headers(), ...form.headers },
      payload: form.payload,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().attachment as { _id: string; url: string };
  };

  it('restores a backup taken while writes run: whole, with every acknowledged write and the attachments', async () => {
    const withFiles = await newCard('With files');
    const contents = [randomBytes(70_000), randomBytes(1), Buffer.from('plain text, ünïcödé\n')];
    const attachments = [];
    for (const content of contents) attachments.push({ ...(await upload(withFiles, content)), content });

    // writers that keep creating cards, through the app, until told to stop
    const acknowledged: string[] = [];
    let writing = true;
    const writer = async (n: number) => {
      for (let i = 0; writing; i++) acknowledged.push(await newCard(`Writer ${n} card ${i}`));
    };
    const writers = [writer(1), writer(2), writer(3)];
    // some writes acknowledged, and more in flight, when the backup begins
    while (acknowledged.length < 20) await new Promise((resolve) => setImmediate(resolve));
    const before = [...acknowledged];
    const archive = join(dir, 'taskboard.tar.gz');
    const backup = await runTaskboard(['backup', '--to', archive, '--json'], { DATABASE_URL: t.url, UPLOAD_DIR: t.config.uploadDir });
    writing = false;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    const report = JSON.parse(backup.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(report.missing, []);
    assert.equal(report.manifest.formatVersion, 1);
    assert.deepEqual(report.manifest.attachments, { store: 'file', files: 3, bytes: contents.reduce((sum, c) => sum + c.length, 0) });
    assert.deepEqual(filesUnder(dir), ['taskboard.tar.gz'], 'no partial archive or working copy left behind');

    const target = join(dir, 'restored', 'data');
    const env = { DATABASE_URL: `sqlite:${join(target, 'taskboard.db')}`, UPLOAD_DIR: join(target, 'uploads') };
    const restore = await runTaskboard(['restore', '--from', archive, '--json'], env);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal(JSON.parse(restore.stdout).files, 3);
    assert.deepEqual(
      filesUnder(target).filter((file) => !file.startsWith('uploads/')),
      ['taskboard.db'],
      'one database file, no journal or working file beside it',
    );

    const restored = new SqliteDatabase(join(target, 'taskboard.db'), { readonly: true });
    try {
      assert.deepEqual(restored.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
      const cards = new Set((restored.prepare('select id from cards').all() as { id: string }[]).map((row) => row.id));
      const lost = before.filter((id) => !cards.has(id));
      assert.deepEqual(lost, [], 'writes acknowledged before the backup began are in it');
    } finally {
      restored.close();
    }

    // a server on the restored folder serves the cards and the attachments' bytes
    const storage = openStorage(env.DATABASE_URL);
    const app = await buildApp({ config: testConfig({ uploadDir: env.UPLOAD_DIR }), storage, rateLimiter: null, logger: false });
    try {
      const card = await app.inject({ method: 'GET', url: `/api/v1/cards/${before.at(-1)}`, headers: headers() });
      assert.equal(card.statusCode, 200, card.body);
      for (const attachment of attachments) {
        const download = await app.inject({ method: 'GET', url: attachment.url, headers: headers() });
        assert.equal(download.statusCode, 200, download.body);
        assert.deepEqual(download.rawPayload, attachment.content);
      }
    } finally {
      await app.close();
      await storage.close();
    }

    // a folder that holds anything is refused, and left as it was
    const again = await runTaskboard(['restore', '--from', archive], env);
    assertRefused(again, /not empty/);
    // an archive is never overwritten
    assertRefused(await runTaskboard(['backup', '--to', archive], { DATABASE_URL: t.url, UPLOAD_DIR: t.config.uploadDir }), /exists already/);

    // a file changed in the archive, or one no attachment names, fails the restore and leaves nothing
    const entries = await entriesOf(readFileSync(archive));
    const [uploadName, uploadBytes] = entries.find(([name]) => name.startsWith('uploads/')) as [string, Buffer];
    const tampered = entries.map(([name, bytes]): [string, Buffer] => [name, name === uploadName ? Buffer.alloc(uploadBytes.length, 1) : bytes]);
    const stray = [...entries, ['uploads/nobody/stray', Buffer.from('x')] as [string, Buffer]];
    for (const [name, changed, pattern] of [
      ['tampered', tampered, /differs from the checksum/],
      ['stray', stray, /no attachment names/],
    ] as const) {
      const file = join(dir, `${name}.tar.gz`);
      writeFileSync(file, await archiveOf(changed));
      const into = join(dir, `into-${name}`);
      assertRefused(
        await runTaskboard(['restore', '--from', file], { DATABASE_URL: `sqlite:${join(into, 'taskboard.db')}`, UPLOAD_DIR: join(into, 'uploads') }),
        pattern,
      );
      assert.deepEqual(filesUnder(into), [], `${name}: nothing left behind`);
    }
  });

  it('notes the bucket instead of copying attachments kept in one', async () => {
    const archive = join(dir, 'bucket.tar.gz');
    const env = { DATABASE_URL: t.url, ATTACHMENT_STORAGE: 's3://team-files/prod' };
    const backup = await runTaskboard(['backup', '--to', archive], env);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /s3:\/\/team-files\/prod/);
    assert.match(backup.stdout, /versioning/);
    const target = join(dir, 'from-bucket');
    const restore = await runTaskboard(['restore', '--from', archive, '--json'], {
      DATABASE_URL: `sqlite:${join(target, 'taskboard.db')}`,
      UPLOAD_DIR: join(target, 'uploads'),
    });
    assert.equal(restore.code, 0, restore.stderr);
    const result = JSON.parse(restore.stdout);
    assert.equal(result.files, 0);
    assert.deepEqual(result.manifest.attachments.bucket, 'team-files');
    assert.deepEqual(filesUnder(target), ['taskboard.db']);
  });

  it('refuses an archive that is not a backup, leaving the folder empty', async () => {
    const cases: [string, Buffer][] = [
      ['not-gzip.tar.gz', Buffer.from('hello')],
      ['not-tar.tar.gz', gzipSync(Buffer.alloc(1024, 7))],
    ];
    for (const [name, bytes] of cases) {
      const archive = join(dir, name);
      writeFileSync(archive, bytes);
      const target = join(dir, `into-${name}`);
      const result = await runTaskboard(['restore', '--from', archive], {
        DATABASE_URL: `sqlite:${join(target, 'taskboard.db')}`,
        UPLOAD_DIR: join(target, 'uploads'),
      });
      assert.equal(result.code, 1, `${name}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.deepEqual(filesUnder(target), [], name);
    }
    const missing = await runTaskboard(['restore', '--from', join(dir, 'nothing.tar.gz')], { DATABASE_URL: `sqlite:${join(dir, 'x', 'taskboard.db')}` });
    assertRefused(missing, /does not exist/);
  });
});

describe('taskboard backup and restore: usage', () => {
  it('exits 2 with one line when the file is not named', async () => {
    for (const [args, pattern] of [
      [['backup'], /backup: missing --to/],
      [['restore'], /restore: missing --from/],
      [['backup', '--to'], /--to/],
    ] as const) {
      const result = await runTaskboard([...args], { DATABASE_URL: 'sqlite:/tmp/unused-taskboard.db' });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, pattern);
      assert.equal(result.stderr.trim().split('\n').length, 1);
    }
  });
});

describe('taskboard backup on PostgreSQL', () => {
  it('refuses, naming the documented procedure, and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskboard-backup-pg-'));
    try {
      const archive = join(dir, 'pg.tar.gz');
      const result = await runTaskboard(['backup', '--to', archive], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' });
      assertRefused(result, /pg_dump.*docs\/operations\.md/);
      assert.equal(existsSync(archive), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
