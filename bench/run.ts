/**
 * `npm run bench`: requests/s and p50/p99 latency of a bare Fastify hello-world route and of two
 * real Taskboard routes (Get Card Details, Toggle Multiple Labels) on SQLite, in one run. Each app
 * runs in its own child process on 127.0.0.1 with logging off; autocannon drives it from here with
 * the same connections and duration, after a warm-up. Any non-2xx answer fails the run.
 *
 * Environment:
 *   BENCH_SECONDS          measured seconds per route (default 10)
 *   BENCH_WARMUP_SECONDS   warm-up seconds per route, not measured (default 2)
 *   BENCH_CONNECTIONS      concurrent connections (default 10)
 *   BENCH_RATE_LIMIT       off (default), or sqlite / redis / sqlite,redis: also measure the app
 *                          routes with that limiter on, next to the same routes with limits off.
 *                          Tier sizes come from RATE_LIMIT_SECURE ... RATE_LIMIT_VERY_LOW (default
 *                          1000000 each here, so nothing is rejected); redis uses REDIS_URL
 *                          (default redis://127.0.0.1:6379).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { TIERS, tierEnvName } from '../src/config.ts';
import { type ChildMessage, isLimiterMode, LIMITER_MODES, type LimiterMode, type Target } from './protocol.ts';
import { reachable } from '../test/support/reachable.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function whole(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return Number(raw);
}

function limiterModes(): LimiterMode[] {
  const raw = (process.env.BENCH_RATE_LIMIT ?? 'off').split(',').map((m) => m.trim().toLowerCase()).filter(Boolean);
  const modes = raw.map((mode) => {
    if (!isLimiterMode(mode)) throw new Error(`BENCH_RATE_LIMIT must be ${LIMITER_MODES.join(', ')} or a comma list of them, got "${mode}"`);
    return mode;
  });
  // limits off is always measured: it is what the limiter's cost is read against
  return ['off', ...new Set(modes.filter((m) => m !== 'off'))];
}

const settings = {
  seconds: whole('BENCH_SECONDS', 10, 1),
  warmupSeconds: whole('BENCH_WARMUP_SECONDS', 2, 0),
  connections: whole('BENCH_CONNECTIONS', 10, 1),
  limiters: limiterModes(),
};

// Tiers big enough that a benchmark never meets a 429, unless the caller sized them on purpose.
const hugeTiers = Object.fromEntries(TIERS.map(tierEnvName).map((name) => [name, process.env[name] || '1000000']));

const children = new Set<ChildProcess>();

interface Server {
  child: ChildProcess;
  port: number;
  targets: Target[];
  description: string;
}

function startServer(script: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not report ready within 120 s`)), 120_000);
    child.on('message', (message: ChildMessage) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve({ child, port: message.port, targets: message.targets, description: message.description });
      else reject(new Error(`${script} could not start:\n${message.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before it was ready`));
    });
    child.once('error', reject);
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(force);
}

async function stopAll() {
  await Promise.all([...children].map((child) => stopServer(child)));
}

/** One request before the load: a route that does not answer 2xx is a setup problem, said plainly. */
async function probe(base: string, target: Target) {
  const res = await fetch(base + target.path, {
    method: target.method,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${target.name} answered ${res.status} before the load test: ${text.slice(0, 500)}`);
}

/** Runs autocannon; returns its result and the time of every 2xx response in fractional ms. */
function load(base: string, target: Target, seconds: number): Promise<{ result: Result; times: Float64Array }> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base + target.path,
        method: target.method,
        connections: settings.connections,
        duration: seconds,
        timeout: 10,
        ...(target.headers ? { headers: target.headers } : {}),
        ...(target.body ? { body: target.body } : {}),
      },
      (error, result) => (error ? reject(error) : resolve({ result, times: times.subarray(0, count) })),
    );
    // autocannon's own percentiles are whole milliseconds; the hello route answers well under one
    instance.on('response', (_client, status, _bytes, time) => {
      if (status < 200 || status > 299) return;
      if (count === times.length) {
        const bigger = new Float64Array(times.length * 2);
        bigger.set(times);
        times = bigger;
      }
      times[count++] = time;
    });
  });
}

function assertAll2xx(target: Target, phase: string, result: Result) {
  const problems: string[] = [];
  if (result.non2xx) {
    const codes = Object.entries(result.statusCodeStats)
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count }]) => `${count}× ${status}`);
    problems.push(`${result.non2xx} non-2xx answers (${codes.join(', ')})`);
  }
  if (result.errors) problems.push(`${result.errors} connection errors`);
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`);
  if (problems.length) throw new Error(`${target.name}, ${phase}: ${problems.join('; ')}`);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

interface Row {
  route: string;
  server: string;
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  rpsRatioToBare: number;
  p50RatioToBare: number;
}

async function measure(server: Server): Promise<Omit<Row, 'rpsRatioToBare' | 'p50RatioToBare'>[]> {
  const base = `http://127.0.0.1:${server.port}`;
  const rows = [];
  for (const target of server.targets) {
    await probe(base, target);
    if (settings.warmupSeconds > 0) {
      process.stderr.write(`warm-up  ${settings.warmupSeconds}s  ${target.name}\n`);
      assertAll2xx(target, 'warm-up', (await load(base, target, settings.warmupSeconds)).result);
    }
    process.stderr.write(`measure ${settings.seconds}s  ${target.name}\n`);
    const { result, times } = await load(base, target, settings.seconds);
    assertAll2xx(target, 'measured run', result);
    times.sort();
    rows.push({
      route: target.name,
      server: server.description,
      requestsPerSecond: result.requests.average,
      requests: result.requests.total,
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
    });
  }
  return rows;
}

function table(rows: Row[]): string {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'req/s vs bare', 'p50 vs bare'];
  const body = rows.map((r) => [
    r.route,
    r.requestsPerSecond.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    `${r.rpsRatioToBare.toFixed(3)}×`,
    `${r.p50RatioToBare.toFixed(2)}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main() {
  if (settings.limiters.includes('redis')) {
    const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const problem = await reachable(url, 6379);
    // the limiter would fall back to the database and the "redis" rows would measure SQLite
    if (problem) throw new Error(`BENCH_RATE_LIMIT includes redis but Redis at ${url} is not reachable (${problem})`);
  }

  const runs: { script: string; env: Record<string, string> }[] = [
    { script: 'bench/serve-hello.ts', env: {} },
    ...settings.limiters.map((mode) => ({ script: 'bench/serve-app.ts', env: { ...hugeTiers, BENCH_RATE_LIMIT_MODE: mode } })),
  ];
  const measured: Omit<Row, 'rpsRatioToBare' | 'p50RatioToBare'>[] = [];
  const servers: string[] = [];
  for (const run of runs) {
    const server = await startServer(run.script, run.env);
    try {
      servers.push(server.description);
      measured.push(...(await measure(server)));
    } finally {
      await stopServer(server.child);
    }
  }

  const bare = measured[0];
  if (!bare) throw new Error('the bare route was not measured');
  const rows: Row[] = measured.map((r) => ({
    ...r,
    rpsRatioToBare: r.requestsPerSecond / bare.requestsPerSecond,
    p50RatioToBare: r.p50Ms / bare.p50Ms,
  }));
  const cpus = os.cpus();
  const machine = {
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
  const setup = { connections: settings.connections, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, rateLimit: settings.limiters };

  console.log('');
  console.log(table(rows));
  console.log('');
  console.log(`Node ${machine.node} | ${machine.cpu} | ${machine.cores} cores | ${machine.platform} | ${machine.date}`);
  console.log(`autocannon: ${setup.connections} connections, ${setup.seconds} s measured after ${setup.warmupSeconds} s warm-up, per route; servers on 127.0.0.1 in child processes, logging off`);
  for (const description of servers) console.log(`  server: ${description}`);
  console.log('');
  console.log(JSON.stringify({ machine, setup, results: rows }));
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the bench servers\n`);
    void stopAll().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  if (!interrupted) {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
} finally {
  await stopAll();
  // Whatever handle a library leaves open, the bench ends here.
  setTimeout(() => process.exit(), 1000).unref();
}
