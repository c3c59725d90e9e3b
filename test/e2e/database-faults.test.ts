/**
 * PostgreSQL faults, injected by a TCP proxy of the test's own between the app and the real server
 * (the machine's PostgreSQL is never touched): a backend terminated, every connection cut under
 * load, connections held silent. The process survives, requests caught answer 503 `unavailable`
 * with Retry-After, nothing waits beyond the configured timeouts, and service resumes by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type App, buildApp } from '../../src/app.ts';
import type { AppConfig } from '../../src/config.ts';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import { runTaskboard } from '../support/cli.ts';
import { bearer, type EmptyDatabase, emptyDatabase, needsPostgres, POSTGRES_URL, testConfig } from '../support/harness.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

/** Short bounds, so the faults resolve in test time. */
const TIMEOUTS: AppConfig['database'] = { connectTimeoutMs: 500, statementTimeoutMs: 1000, idleInTransactionTimeoutMs: 5000, poolSize: 4 };
/** The client's bound on a silent statement: the statement timeout plus its 1 s margin. */
const SILENT_STATEMENT_MS = TIMEOUTS.statementTimeoutMs + 1000;

/** Polls `condition` every 20 ms until it holds; fails after `withinMs`. */
async function until(condition: () => boolean | Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await condition())) {
    if (performance.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function assertUnavailable(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  assert.equal(res.statusCode, 503, `status ${res.statusCode}: ${JSON.stringify(res.json())}`);
  assert.equal((res.json() as { code: string }).code, 'unavailable');
  assert.equal(res.headers['retry-after'], '1');
}

const METRICS_TOKEN = 'faults-metrics-token';

describe('PostgreSQL faults', needsPostgres, () => {
  let database: EmptyDatabase;
  let proxy: TcpProxy;
  let app: App;
  let tenant: BootstrapResult;
  const warnings: { msg: string }[] = [];

  before(async () => {
    database = await emptyDatabase('postgres');
    const target = new URL(POSTGRES_URL);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const config = testConfig({ databaseUrl: proxy.url(database.url), database: TIMEOUTS, metrics: { ...testConfig().metrics, token: METRICS_TOKEN } });
    app = await buildApp({
      config,
      rateLimiter: null,
      logger: { level: 'warn', stream: { write: (line: string) => warnings.push(JSON.parse(line)) } },
    });
    await app.ready();
    tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  });
  after(async () => {
    await proxy.restore();
    await app.close();
    await proxy.close();
    await database.dispose();
  });

  /** `taskboard_db_faults_total{fault}` as `/metrics` reports it now. */
  const faultsCounted = async (fault: string) => {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
    assert.equal(res.statusCode, 200);
    const line = res.body.split('\n').find((l) => l.startsWith(`taskboard_db_faults_total{fault="${fault}"}`));
    return Number(line?.split(' ').at(-1) ?? Number.NaN);
  };

  /** One request that needs the database: a read (auth + profile) or a write (a new board). */
  const request = (write: boolean) =>
    write
      ? app.inject({ method: 'POST', url: `/api/v1/boards?teamId=${tenant.teamId}`, headers: bearer(tenant.apiKey), payload: { name: 'Blip' } })
      : app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(tenant.apiKey) });

  it('survives its idle backends being terminated, and the next requests succeed', async () => {
    // Fill the pool: concurrent requests each hold a connection, then leave it idle.
    await Promise.all(Array.from({ length: TIMEOUTS.poolSize }, () => request(false)));
    const ports = proxy.upstreamPorts;
    assert.ok(ports.length > 0);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    let terminated: number;
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `select pid, pg_terminate_backend(pid) from pg_stat_activity where application_name like 'taskboard%' and client_port = any($1::int[])`,
        [ports],
      );
      terminated = rows.length;
    } finally {
      await admin.end();
    }
    assert.equal(terminated, ports.length);
    // The pool's idle connections, and the event bell's LISTEN connection (outside the pool) once it is up.
    const poolLost = () => warnings.filter((w) => w.msg.includes('idle connection was lost')).length;
    const listenerLost = () => warnings.filter((w) => w.msg.includes('database listener was lost')).length;
    await until(() => poolLost() + listenerLost() >= terminated, 15_000, 'the pool and the listener noticed every terminated connection');
    assert.ok(listenerLost() <= 1, 'one listening connection');
    assert.equal(await faultsCounted('idle_connection_lost'), poolLost(), 'the metrics count every lost idle connection');
    for (const write of [false, true, false]) assert.ok([200, 201].includes((await request(write)).statusCode));
  });

  it('under load, cut connections answer only 503 unavailable, and service is back within 2 s of the database', async (t) => {
    const unavailableBefore = await faultsCounted('request_unavailable');
    let stop = false;
    let restoredAt = Number.POSITIVE_INFINITY;
    const counts = { ok: 0, unavailable: 0 };
    /** Per loop: the first success after the restore, ms after it. */
    const backAfter: number[] = [];
    const loop = async (index: number) => {
      let back = false;
      while (!stop) {
        const started = performance.now();
        const res = await request(index % 2 === 1);
        if (res.statusCode === 200 || res.statusCode === 201) {
          counts.ok++;
          if (!back && started >= restoredAt) {
            back = true;
            backAfter[index] = performance.now() - restoredAt;
          }
        } else {
          assertUnavailable(res);
          counts.unavailable++;
        }
      }
    };
    const loops = Array.from({ length: 8 }, (_, index) => loop(index));
    try {
      await until(() => counts.ok >= 20, 10_000, 'requests succeed before the cut');
      await proxy.cut({ refuse: true });
      await until(() => counts.unavailable >= 8, 15_000, 'requests meet the dead database');
      await proxy.restore();
      restoredAt = performance.now();
      await until(() => backAfter.filter((ms) => ms !== undefined).length === 8, 15_000, 'every loop succeeds again');
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    t.diagnostic(`${counts.ok} answered 2xx, ${counts.unavailable} 503; every loop back ${Math.round(Math.max(...backAfter))} ms after the restore`);
    assert.ok(Math.max(...backAfter) < 2000, `back after ${backAfter.map(Math.round).join(', ')} ms`);
    assert.equal(await faultsCounted('request_unavailable'), unavailableBefore + counts.unavailable, 'the metrics count every 503 the fault caused');
  });

  it('held silent, requests fail with 503 at the timeout, /readyz says not ready within 2 s, and nothing hangs', async (t) => {
    assert.equal((await request(false)).statusCode, 200);
    // Dropped, not held: a connection whose statement timed out must not go back to the pool, since
    // the answer it still waits for never comes.
    proxy.silence({ drop: true });
    try {
      // Readiness first, alone: its round trip goes to a pooled connection that now never answers, so
      // the check's own bound (1 s) ends it, before the client-side statement bound would.
      const readyStarted = performance.now();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      const readyMs = performance.now() - readyStarted;
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 6 }, async (_, index) => {
          const res = await request(index % 2 === 1);
          return { res, ms: performance.now() - started };
        }),
      );
      for (const { res, ms } of answers) {
        assertUnavailable(res);
        assert.ok(ms < SILENT_STATEMENT_MS + 1500, `answered after ${Math.round(ms)} ms`);
      }
      t.diagnostic(`silent: 503s after ${answers.map(({ ms }) => Math.round(ms)).join(', ')} ms`);
      assert.equal(ready.statusCode, 503);
      const body = ready.json();
      assert.equal(body.status, 'not ready');
      assert.equal(body.checks.database.status, 'failed');
      assert.equal(body.checks.database.message, 'timed out after 1000 ms');
      assert.equal(body.checks.uploadDir.status, 'ok');
      t.diagnostic(`silent: /readyz answered 503 in ${Math.round(readyMs)} ms`);
      assert.ok(readyMs < 2000, `readyz took ${Math.round(readyMs)} ms`);
    } finally {
      await proxy.restore();
    }
    await until(async () => (await request(false)).statusCode === 200, 15_000, 'requests succeed once the database answers');
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });
});

describe('taskboard against a database it cannot reach', needsPostgres, () => {
  let proxy: TcpProxy;
  let database: EmptyDatabase;
  let refusedUrl: string;
  before(async () => {
    database = await emptyDatabase('postgres');
    const target = new URL(POSTGRES_URL);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    proxy.silence();
    // A port that refuses: the proxy's own, once it stops listening, would be reused; ask a closed one.
    const closed = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    refusedUrl = closed.url(database.url).replace('postgres@', 'postgres:s3cret@');
    await closed.close();
  });
  after(async () => {
    await proxy.close();
    await database.dispose();
  });

  const CONNECT_TIMEOUT_MS = 1000;
  /**
   * Starting node with tsx alone takes 3 to 15 s on a busy machine; the database wait adds at most the
   * connect timeout. Before, a silent database made these hang for ever (serve: 13 s, then Fastify's
   * plugin timeout, which the message check refuses).
   */
  const BOUND_MS = CONNECT_TIMEOUT_MS + 25_000;

  for (const [label, args] of [
    ['migrate', ['migrate']],
    ['keys create', ['keys', 'create', '--email', 'owner@acme.test']],
    ['bootstrap', ['bootstrap', '--company', 'A', '--team', 'B', '--email', 'c@d.test', '--name', 'E F']],
    ['serve', ['serve']],
  ] as const) {
    for (const fault of ['silent', 'refused'] as const) {
      if (label === 'bootstrap' && fault === 'silent') continue; // same path as keys create
      it(`${label}: a ${fault} database exits 1 within the bound, naming the database`, async (t) => {
        const url = fault === 'silent' ? proxy.url(database.url).replace('postgres@', 'postgres:s3cret@') : refusedUrl;
        const port = new URL(url).port;
        const started = performance.now();
        const run = await runTaskboard([...args], { DATABASE_URL: url, DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), PORT: '0' });
        const ms = performance.now() - started;
        assert.equal(run.code, 1, `exit ${run.code}; stderr: ${run.stderr}`);
        assert.match(
          run.stderr,
          new RegExp(`^taskboard: could not reach the database at 127\\.0\\.0\\.1:${port} \\(postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:${port}/`),
        );
        assert.match(run.stderr, fault === 'silent' ? /no answer within the connect timeout/ : /ECONNREFUSED/);
        assert.doesNotMatch(run.stderr, /s3cret/);
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
        t.diagnostic(`exited after ${Math.round(ms)} ms, process start included`);
        assert.ok(ms < BOUND_MS, `took ${Math.round(ms)} ms`);
      });
    }
  }
});
