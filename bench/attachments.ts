/**
 * Attachment bench: a 25 MB upload and download through the server on each store (a folder, and a
 * bucket on s3rver started here), the download again by presigned redirect, and the server's peak
 * RSS growth (VmHWM of its own process) across each transfer. The server runs in a child process so
 * the client's buffers never count. Run: bash scripts/with-node.sh node bench/attachments.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';

const SIZE = 25 * 1024 * 1024;

if (process.argv[2] === 'serve') {
  const { buildApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { bootstrap } = await import('../src/domain/account/bootstrap.ts');
  const app = await buildApp({ config: loadConfig(process.env, { createDatabase: true }), logger: false, rateLimiter: null });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const tenant = await bootstrap(app.services, { company: 'Bench', team: 'Files', email: 'b@bench.test', fullName: 'Bench' });
  const call = async (method: string, url: string, body: unknown) =>
    (await app.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${tenant.apiKey}` }, payload: body as object })).json();
  const { board } = await call('POST', `/api/v1/boards?teamId=${tenant.teamId}`, { name: 'Bench' });
  const { list } = await call('POST', '/api/v1/lists', { board: board._id, name: 'L' });
  const { card } = await call('POST', '/api/v1/cards', { list: list._id, name: 'C' });
  console.log(JSON.stringify({ port: (app.server.address() as { port: number }).port, apiKey: tenant.apiKey, cardId: card._id, pid: process.pid }));
  process.stdin.resume();
  process.stdin.on('end', () => void app.close().then(() => process.exit(0)));
} else {
  const S3rver = (await import('s3rver')).default;
  const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
  const dir = mkdtempSync(join(tmpdir(), 'tb-bench-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3') });
  const { port: s3Port } = await s3.run();
  const endpoint = `http://127.0.0.1:${s3Port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const hwm = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const payload = Buffer.alloc(SIZE, 'taskboard ');

  async function run(name: string, env: Record<string, string>) {
    const child = spawn(process.execPath, [process.argv[1] as string, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
        UPLOAD_DIR: join(dir, `${name}-uploads`),
        LOG_LEVEL: 'silent',
        MAX_UPLOAD_BYTES: String(SIZE + 1024),
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const { port, apiKey, cardId, pid } = JSON.parse(first);
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${apiKey}` };
    const form = new FormData();
    form.append('file', new Blob([payload]), 'big.bin');
    // A warm-up of the same paths with a file of two parts, so first-use allocations (compiled code,
    // the pooled part buffer of a bucket) are not counted: the figure is what one more upload costs.
    const warm = new FormData();
    warm.append('file', new Blob([Buffer.alloc(6 * 1024 * 1024, 'warm ')]), 'warm.bin');
    const warmed = (await (await fetch(`${base}/api/v1/cards/${cardId}/attachments`, { method: 'POST', headers: auth, body: warm })).json()) as {
      attachment: { url: string };
    };
    await (await fetch(`${base}${warmed.attachment.url}`, { headers: auth, redirect: 'manual' })).arrayBuffer();
    const before = { hwm: hwm(pid), rss: rss(pid) };
    let started = performance.now();
    const res = await fetch(`${base}/api/v1/cards/${cardId}/attachments`, { method: 'POST', headers: auth, body: form });
    const uploadMs = performance.now() - started;
    const { attachment } = (await res.json()) as { attachment: { url: string } };
    const afterUpload = hwm(pid);
    started = performance.now();
    const download = await fetch(`${base}${attachment.url}`, { headers: auth, redirect: 'manual' });
    let bytes = 0;
    for await (const chunk of Readable.fromWeb(download.body as never)) bytes += (chunk as Buffer).length;
    const downloadMs = performance.now() - started;
    const afterDownload = hwm(pid);
    console.log(
      `${name}: upload ${res.status} ${mb(SIZE)} MB in ${uploadMs.toFixed(0)} ms (${mb(SIZE / (uploadMs / 1000))} MB/s), peak RSS +${mb(afterUpload - before.hwm)} MB; ` +
        `download ${download.status} ${mb(bytes)} MB in ${downloadMs.toFixed(0)} ms (${mb(bytes / (downloadMs / 1000))} MB/s), peak RSS +${mb(afterDownload - afterUpload)} MB ` +
        `(RSS before ${mb(before.rss)} MB, peak ${mb(afterDownload)} MB)`,
    );
    if (env.ATTACHMENT_DOWNLOAD === 'redirect') {
      started = performance.now();
      const redirect = await fetch(`${base}${attachment.url}`, { headers: auth, redirect: 'manual' });
      const location = redirect.headers.get('location') as string;
      const direct = await fetch(location);
      let direct_bytes = 0;
      for await (const chunk of Readable.fromWeb(direct.body as never)) direct_bytes += (chunk as Buffer).length;
      const ms = performance.now() - started;
      console.log(
        `${name}: presigned redirect ${redirect.status} then ${direct.status}: ${mb(direct_bytes)} MB in ${ms.toFixed(0)} ms (${mb(direct_bytes / (ms / 1000))} MB/s) straight from the bucket`,
      );
    }
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }

  try {
    await run('file', {});
    const bucket = { ATTACHMENT_STORAGE: 's3://bench/files', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'us-east-1' };
    await run('s3', bucket);
    await run('s3-redirect', { ...bucket, ATTACHMENT_DOWNLOAD: 'redirect' });
  } finally {
    client.destroy();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
