/**
 * `npm run bench`: requests/s, p50/p99 latency, the server's CPU time per request and peak RSS of a bare Fastify
 * hello-world route (measured before and after the app's routes; ratios are to the mean) and of five real Taskboard routes (Get Label Colors, Get Card Details, Toggle
 * Multiple Labels, Get List Card page of 50, My Tasks of a user in 1,000 cards page of 50, and the
 * toggle again with each connection toggling a card of its own; Get Card Details also by a session
 * cookie, and then the key's and the session's in turns for their ratio) on SQLite
 * and PostgreSQL, in one run. Each app runs in its own child process on 127.0.0.1 with logging off;
 * autocannon drives it from here with the same connections and duration, after a warm-up. Any
 * non-2xx answer fails the run. Before the servers start: the time of one argon2id hash with the
 * configured parameters (what a password sign-in costs).
 *
 * Environment:
 *   BENCH_ENGINES          sqlite,postgres (default): PostgreSQL is measured when BENCH_POSTGRES_URL,
 *                          TEST_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test answers
 *                          (the run says so when it does not)
 *   BENCH_CARDS            0 (default): a fresh small database per run; N: a database of N cards,
 *                          built once and kept under .bench-cache/ (PostgreSQL: schema bench_cache_N)
 *   BENCH_SECONDS          measured seconds per route (default 10)
 *   BENCH_WARMUP_SECONDS   warm-up seconds per route, not measured (default 2)
 *   BENCH_CONNECTIONS      concurrent connections (default 10)
 *   BENCH_RATE_LIMIT       off (default), or sqlite / redis / sqlite,redis: also measure the app
 *                          routes with that limiter on, next to the same routes with limits off.
 *                          Tier sizes come from RATE_LIMIT_SECURE ... RATE_LIMIT_VERY_LOW (default
 *                          1000000 each here, so nothing is rejected); redis uses REDIS_URL
 *                          (default redis://127.0.0.1:6379).
 *   BENCH_WEBHOOKS         on (default) or off: per engine measured, the toggle with one webhook
 *                          subscribed (a receiver in this process answering 204), next to the toggle
 *                          without; and the delivery lag, change sent → receiver's 2xx, at
 *                          BENCH_LAG_RATE changes/s (default 100) for BENCH_LAG_SECONDS (default 10).
 *   BENCH_STEADY_RATE      half (default), toggles/s, or 0 (off): per engine, the one-card toggle at a
 *                          steady rate below saturation (half: half the rate that engine's toggle
 *                          answered at saturation above), on a server of its own: p50, p99 and max
 *                          latency, what a steady stream of writes feels (checkpoints, pauses).
 *   BENCH_RECORDING        on (default) or off: per engine measured, what recording events adds to
 *                          the toggles: a server writing the event record, one writing it as bare
 *                          rows (no index but the key: the least a row per event costs; fresh
 *                          databases only) and one that does not (buildApp({ recordEvents: false })),
 *                          measured in turn; unless BENCH_STEADY_RATE is 0, the one-card toggle
 *                          again at the steady toggle's fixed rate, where batching is the same on all.
 *   BENCH_SEARCH           on (default: after the rest), only, or off: search per engine
 *                          (bench/search.ts), here at BENCH_SEARCH_CARDS cards (default 20,000) in
 *                          BENCH_SEARCH_TEAMS teams (default 20); the issue's scale is 1000000 and 1000
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { TIERS, tierEnvName } from '../src/config.ts';
import { ARGON2_PARAMETERS, hashPassword } from '../src/domain/people/passwords.ts';
import { maskUrl } from '../src/storage/database-url.ts';
import { reachable } from '../test/support/reachable.ts';
import { isLimiterMode, LIMITER_MODES, type LimiterMode, type Target } from './protocol.ts';
import { children, cpuSeconds, rssMb, type Server, startServer, stopAll, stopServer } from './servers.ts';
import { type LagResult, measureLag, percentile, startBenchReceiver } from './webhook-lag.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function whole(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return Number(raw);
}

function limiterModes(): LimiterMode[] {
  const raw = (process.env.BENCH_RATE_LIMIT ?? 'off')
    .split(',')
    .map((m) => m.trim().toLowerCase())
    .filter(Boolean);
  const modes = raw.map((mode) => {
    if (!isLimiterMode(mode)) throw new Error(`BENCH_RATE_LIMIT must be ${LIMITER_MODES.join(', ')} or a comma list of them, got "${mode}"`);
    return mode;
  });
  // limits off is always measured: it is what the limiter's cost is read against
  return ['off', ...new Set(modes.filter((m) => m !== 'off'))];
}

const settings = {
  webhooks: (process.env.BENCH_WEBHOOKS ?? 'on').trim().toLowerCase() !== 'off',
  recording: (process.env.BENCH_RECORDING ?? 'on').trim().toLowerCase() !== 'off',
  lagRate: whole('BENCH_LAG_RATE', 100, 1),
  lagSeconds: whole('BENCH_LAG_SECONDS', 10, 1),
  steadyRate: ['', 'half'].includes((process.env.BENCH_STEADY_RATE ?? '').trim()) ? ('half' as const) : whole('BENCH_STEADY_RATE', 0, 0),
  seconds: whole('BENCH_SECONDS', 10, 1),
  warmupSeconds: whole('BENCH_WARMUP_SECONDS', 2, 0),
  connections: whole('BENCH_CONNECTIONS', 10, 1),
  limiters: limiterModes(),
  engines: engines(),
  cards: whole('BENCH_CARDS', 0, 0),
};

function engines(): ('sqlite' | 'postgres')[] {
  const raw = (process.env.BENCH_ENGINES ?? 'sqlite,postgres')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  for (const engine of raw)
    if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_ENGINES must list sqlite and/or postgres, got "${engine}"`);
  return [...new Set(raw)] as ('sqlite' | 'postgres')[];
}

const postgresUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

// Tiers big enough that a benchmark never meets a 429, unless the caller sized them on purpose.
const hugeTiers = Object.fromEntries(TIERS.map(tierEnvName).map((name) => [name, process.env[name] || '1000000']));

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

/** Runs autocannon (at `rate` requests/s over all connections, when given); returns its result and the time of every 2xx response in fractional ms. */
function load(base: string, target: Target, seconds: number, rate?: number): Promise<{ result: Result; times: Float64Array }> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  let connection = 0;
  const { paths } = target;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base + target.path,
        method: target.method,
        connections: settings.connections,
        duration: seconds,
        timeout: 10,
        ...(rate ? { overallRate: rate } : {}),
        ...(target.headers ? { headers: target.headers } : {}),
        ...(target.body ? { body: target.body } : {}),
        // each connection keeps to one of the paths (the toggle of many cards: one card each)
        ...(paths?.length
          ? {
              setupClient: (client) =>
                client.setRequests([
                  {
                    method: target.method,
                    path: paths[connection++ % paths.length] as string,
                    ...(target.headers ? { headers: target.headers } : {}),
                    ...(target.body ? { body: target.body } : {}),
                  },
                ]),
            }
          : {}),
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

/** Samples a child's RSS every 100 ms until stopped; answers the peak. */
function watchRss(pid: number | undefined): () => number | undefined {
  let peak: number | undefined;
  const sample = () => {
    const now = rssMb(pid);
    if (now !== undefined && (peak === undefined || now > peak)) peak = now;
  };
  sample();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

interface Row {
  route: string;
  server: string;
  engine: string;
  peakRssMb: number | undefined;
  /** The server process's CPU time per answered request, in µs (the database server's not counted). */
  cpuUsPerRequest: number | undefined;
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  rpsRatioToBare: number;
  p50RatioToBare: number;
}

/** A route's figures before they are compared with the bare route's. */
type Measured = Omit<Row, 'rpsRatioToBare' | 'p50RatioToBare'>;

async function measure(server: Server, engine: string): Promise<Measured[]> {
  const rows = [];
  for (const target of server.targets) rows.push(await measureTarget(server, engine, target));
  const session = server.targets.find((target) => target.name.startsWith('Get Card Details, session'));
  const key = session && server.targets.find((target) => target.name === session.name.replace('Get Card Details, session', 'Get Card Details'));
  if (session && key) sessionComparisons.push({ engine, server: server.description, ...(await alternate(server, key, session)) });
  return rows;
}

/** Session against key, from `alternate`, per server. */
interface SessionComparison {
  engine: string;
  server: string;
  rounds: number;
  key: { requestsPerSecond: number; p50Ms: number; cpuUsPerRequest: number | undefined };
  session: { requestsPerSecond: number; p50Ms: number; cpuUsPerRequest: number | undefined };
}
const sessionComparisons: SessionComparison[] = [];
const ALTERNATE_ROUNDS = 4;
const turnSeconds = () => Math.max(1, Math.round(settings.seconds / 2));

/**
 * The key's and the session's card read in turns (key first, then session first, ...), half the
 * measured seconds each: a server keeps getting faster for a while (on PostgreSQL the card reads
 * measured later run faster, whichever way they are authenticated), so one run after the other
 * would credit whichever ran later.
 */
async function alternate(server: Server, key: Target, session: Target): Promise<Omit<SessionComparison, 'engine' | 'server'>> {
  const base = `http://127.0.0.1:${server.port}`;
  const seconds = turnSeconds();
  const sums = new Map<Target, { requests: number; seconds: number; cpu: number | undefined; times: number[] }>([
    [key, { requests: 0, seconds: 0, cpu: 0, times: [] }],
    [session, { requests: 0, seconds: 0, cpu: 0, times: [] }],
  ]);
  for (let round = 0; round < ALTERNATE_ROUNDS; round++) {
    for (const target of round % 2 === 0 ? [key, session] : [session, key]) {
      process.stderr.write(`turn    ${seconds}s  ${target.name} (round ${round + 1} of ${ALTERNATE_ROUNDS})\n`);
      const cpuBefore = cpuSeconds(server.child.pid);
      const { result, times } = await load(base, target, seconds);
      const cpuAfter = cpuSeconds(server.child.pid);
      assertAll2xx(target, `round ${round + 1}`, result);
      const sum = sums.get(target)!;
      sum.requests += result.requests.total;
      sum.seconds += seconds;
      sum.cpu = cpuBefore === undefined || cpuAfter === undefined || sum.cpu === undefined ? undefined : sum.cpu + (cpuAfter - cpuBefore);
      for (const time of times) sum.times.push(time);
    }
  }
  const figures = (target: Target) => {
    const sum = sums.get(target)!;
    const times = Float64Array.from(sum.times).sort();
    return {
      requestsPerSecond: sum.requests / sum.seconds,
      p50Ms: percentile(times, 50),
      cpuUsPerRequest: sum.cpu === undefined || sum.requests === 0 ? undefined : (sum.cpu * 1e6) / sum.requests,
    };
  };
  return { rounds: ALTERNATE_ROUNDS, key: figures(key), session: figures(session) };
}

async function measureTarget(server: Server, engine: string, target: Target, rate?: number): Promise<Measured & { maxMs: number }> {
  const base = `http://127.0.0.1:${server.port}`;
  const pace = rate ? ` at ${rate}/s` : '';
  await probe(base, target);
  if (settings.warmupSeconds > 0) {
    process.stderr.write(`warm-up  ${settings.warmupSeconds}s${pace}  ${target.name}\n`);
    assertAll2xx(target, 'warm-up', (await load(base, target, settings.warmupSeconds, rate)).result);
  }
  process.stderr.write(`measure ${settings.seconds}s${pace}  ${target.name}\n`);
  const stopWatching = watchRss(server.child.pid);
  const cpuBefore = cpuSeconds(server.child.pid);
  const { result, times } = await load(base, target, settings.seconds, rate);
  const cpuAfter = cpuSeconds(server.child.pid);
  const peakRssMb = stopWatching();
  const cpuUsPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  assertAll2xx(target, 'measured run', result);
  times.sort();
  return {
    route: target.name,
    server: server.description,
    engine,
    peakRssMb,
    cpuUsPerRequest,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times.at(-1) ?? Number.NaN,
  };
}

/** The one-card toggle at `rate` per second, on a server of its own (toggles only). */
async function measureSteady(engine: string, env: Record<string, string>, rate: number): Promise<Measured & { maxMs: number }> {
  const server = await startServer('bench/serve-app.ts', { ...env, BENCH_SERVE: 'toggles' });
  try {
    const [toggle] = server.targets;
    if (!toggle) throw new Error('the toggle bench server offered no route');
    return await measureTarget(server, engine, toggle, rate);
  } finally {
    await stopServer(server.child);
  }
}

/**
 * What recording events adds to a toggle: the same toggles on a server with the event record, on one
 * whose record is bare rows (no index but the key: the least a row per event costs), and on one
 * without. The bare rows are left out with a cached database (BENCH_CARDS), which must stay whole.
 */
interface RecordingCost extends RecordingShares {
  engine: string;
  route: string;
  rounds: number;
  requestsPerSecond: { recorded: number; bareRows?: number; notRecorded: number };
  /**
   * The same comparison at a fixed rate below saturation (the steady toggle's), one-card toggle
   * only: every server then answers as many toggles, in groups of the same size, so their CPU per
   * toggle differs by the record alone and not by how much the group commit could share.
   */
  atRate?: RecordingShares & { rate: number };
}

interface RecordingShares {
  cpuUsPerRequest: { recorded: number; bareRows?: number; notRecorded: number };
  /** (recorded - not recorded) / not recorded, of the CPU per request. */
  addedCpuShare: number;
  /** (bare rows - not recorded) / not recorded, of the CPU per request. */
  bareRowsAddedCpuShare?: number;
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

type RecordingSide = 'recorded' | 'bareRows' | 'notRecorded';
const RECORDING_SERVERS: Record<RecordingSide, string> = { recorded: 'on', bareRows: 'bare', notRecorded: 'off' };
type RecordingRound = Partial<Record<RecordingSide, Measured>>;

/** One figure of one side, averaged over the rounds. */
function meanOver(rounds: readonly RecordingRound[], side: RecordingSide, figure: 'cpuUsPerRequest' | 'requestsPerSecond'): number {
  return mean(rounds.map((round) => round[side]?.[figure] ?? Number.NaN));
}

/** Whether the rounds measured the bare-rows server (not with a cached database). */
const measuredBareRows = (rounds: readonly RecordingRound[]) => rounds.some((round) => round.bareRows);

/** One figure's mean per side over the rounds (the bare rows where they were measured). */
function bySide(
  rounds: readonly RecordingRound[],
  figure: 'cpuUsPerRequest' | 'requestsPerSecond',
): { recorded: number; bareRows?: number; notRecorded: number } {
  const of = (side: RecordingSide) => meanOver(rounds, side, figure);
  return { recorded: of('recorded'), ...(measuredBareRows(rounds) ? { bareRows: of('bareRows') } : {}), notRecorded: of('notRecorded') };
}

/** The mean of each side over the rounds, and what the record and the bare rows add to no record. */
function recordingShares(rounds: readonly RecordingRound[]): RecordingShares {
  const cpu = bySide(rounds, 'cpuUsPerRequest');
  const added = (side: number) => (side - cpu.notRecorded) / cpu.notRecorded;
  return {
    cpuUsPerRequest: cpu,
    addedCpuShare: added(cpu.recorded),
    ...(cpu.bareRows !== undefined ? { bareRowsAddedCpuShare: added(cpu.bareRows) } : {}),
  };
}

/**
 * Per engine, a server writing the event record, one writing it as bare rows and one dropping it
 * (`buildApp({ recordEvents: false })`), all serving the toggles only, measured in turn for
 * `RECORDING_ROUNDS` rounds, so that the machine's drift over minutes falls on all alike; with
 * `rate`, the one-card toggle again at that fixed rate.
 */
async function measureRecording(engine: string, env: Record<string, string>, rate: number | undefined): Promise<RecordingCost[]> {
  const sides: RecordingSide[] = settings.cards === 0 ? ['recorded', 'bareRows', 'notRecorded'] : ['recorded', 'notRecorded'];
  const servers = new Map<RecordingSide, Server>();
  try {
    for (const side of sides) {
      servers.set(side, await startServer('bench/serve-app.ts', { ...env, BENCH_SERVE: 'toggles', BENCH_EVENTS: RECORDING_SERVERS[side] }));
    }
    const serverOf = (side: RecordingSide) => {
      const server = servers.get(side);
      if (!server) throw new Error(`no server of ${side}`);
      return server;
    };
    /** Each side's run of the index-th toggle, in turn, `RECORDING_ROUNDS` times. */
    const inTurn = async (index: number, pace?: number) => {
      const rounds: RecordingRound[] = [];
      for (let round = 0; round < RECORDING_ROUNDS; round++) {
        const run: RecordingRound = {};
        for (const side of sides) {
          const server = serverOf(side);
          const twin = server.targets[index];
          if (!twin) throw new Error(`the server of ${side} serves other routes`);
          run[side] = await measureTarget(server, engine, twin, pace);
        }
        rounds.push(run);
      }
      return rounds;
    };
    const costs: RecordingCost[] = [];
    for (const [index, target] of serverOf('recorded').targets.entries()) {
      const rounds = await inTurn(index);
      costs.push({
        engine,
        route: target.name.replace(/, events recorded$/, ''),
        rounds: RECORDING_ROUNDS,
        ...recordingShares(rounds),
        requestsPerSecond: bySide(rounds, 'requestsPerSecond'),
        ...(rate !== undefined && index === 0 ? { atRate: { rate, ...recordingShares(await inTurn(index, rate)) } } : {}),
      });
    }
    return costs;
  } finally {
    for (const server of servers.values()) await stopServer(server.child);
  }
}

/** Rounds of the recording comparison (each: the toggle on both servers, in turn). */
const RECORDING_ROUNDS = 2;

function table(rows: Row[]): string {
  const header = ['engine', 'route', 'req/s', 'p50 ms', 'p99 ms', 'req/s vs bare', 'p50 vs bare', 'CPU µs/req', 'peak RSS MB'];
  const body = rows.map((r) => [
    r.engine,
    r.route,
    r.requestsPerSecond.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    `${r.rpsRatioToBare.toFixed(3)}×`,
    `${r.p50RatioToBare.toFixed(2)}×`,
    r.cpuUsPerRequest === undefined ? 'n/a' : r.cpuUsPerRequest.toFixed(0),
    r.peakRssMb === undefined ? 'n/a' : r.peakRssMb.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main() {
  const searchMode = (process.env.BENCH_SEARCH || 'on').trim().toLowerCase();
  if (!['off', 'on', 'only'].includes(searchMode)) throw new Error(`BENCH_SEARCH must be off, on or only, got "${searchMode}"`);
  if (searchMode === 'only') return searchBench();
  if (settings.limiters.includes('redis')) {
    const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const problem = await reachable(url, 6379);
    // the limiter would fall back to the database and the "redis" rows would measure SQLite
    if (problem) throw new Error(`BENCH_RATE_LIMIT includes redis but Redis at ${url} is not reachable (${problem})`);
  }

  const notes: string[] = [];
  let engines = settings.engines;
  if (engines.includes('postgres')) {
    const problem = await postgresProblem();
    if (problem) {
      engines = engines.filter((e) => e !== 'postgres');
      notes.push(`PostgreSQL NOT measured: ${maskUrl(postgresUrl)} is not reachable (${problem}); set BENCH_POSTGRES_URL`);
      process.stderr.write(`${notes.at(-1)}\n`);
    }
  }
  const cards = String(settings.cards);
  type Run = { script: string; engine: string; env: Record<string, string> };
  const bareRun: Run = { script: 'bench/serve-hello.ts', engine: 'bare', env: {} };
  const appRuns: Run[] = engines.flatMap((engine) =>
    // the limiter modes are measured on SQLite only: they are about the limiter's store, not the app's
    (engine === 'sqlite' ? settings.limiters : (['off'] as const)).map((mode) => ({
      script: 'bench/serve-app.ts',
      engine,
      env: { ...hugeTiers, BENCH_RATE_LIMIT_MODE: mode, BENCH_ENGINE: engine, BENCH_CARDS: cards, BENCH_POSTGRES_URL: postgresUrl },
    })),
  );
  const receiver = settings.webhooks ? await startBenchReceiver() : undefined;
  const appEnv = (engine: string): Record<string, string> => ({
    ...hugeTiers,
    BENCH_RATE_LIMIT_MODE: 'off',
    BENCH_ENGINE: engine,
    BENCH_CARDS: cards,
    BENCH_POSTGRES_URL: postgresUrl,
  });
  if (receiver) {
    for (const engine of engines) appRuns.push({ script: 'bench/serve-app.ts', engine, env: { ...appEnv(engine), BENCH_WEBHOOK_URL: receiver.url } });
  }
  const measured: Measured[] = [];
  const servers: string[] = [];
  const measureRun = async (run: Run): Promise<Measured[]> => {
    const server = await startServer(run.script, run.env);
    try {
      if (!servers.includes(server.description)) servers.push(server.description);
      return await measure(server, run.engine);
    } finally {
      await stopServer(server.child);
    }
  };
  // The bare route before and after the app's routes: this VM's speed drifts over a run (the bare
  // route alone has ranged from 40,000 to 62,000 req/s between runs of one day), so the ratios are
  // taken to the mean of the two.
  const signInHash = await measureHash();
  const [bareBefore] = await measureRun(bareRun);
  for (const run of appRuns) measured.push(...(await measureRun(run)));
  const [bareAfter] = await measureRun(bareRun);
  if (!bareBefore || !bareAfter) throw new Error('the bare route was not measured');
  const bare: Measured = {
    ...bareBefore,
    route: `${bareBefore.route} (mean of before and after the app's routes)`,
    requestsPerSecond: (bareBefore.requestsPerSecond + bareAfter.requestsPerSecond) / 2,
    requests: bareBefore.requests + bareAfter.requests,
    p50Ms: (bareBefore.p50Ms + bareAfter.p50Ms) / 2,
    p99Ms: (bareBefore.p99Ms + bareAfter.p99Ms) / 2,
    peakRssMb: bareBefore.peakRssMb === undefined || bareAfter.peakRssMb === undefined ? undefined : Math.max(bareBefore.peakRssMb, bareAfter.peakRssMb),
    cpuUsPerRequest:
      bareBefore.cpuUsPerRequest === undefined || bareAfter.cpuUsPerRequest === undefined
        ? undefined
        : (bareBefore.cpuUsPerRequest + bareAfter.cpuUsPerRequest) / 2,
  };
  measured.unshift(bare);

  // the delivery lag, each engine on a server of its own (no backlog from the load above)
  const lags: (LagResult & { engine: string })[] = [];
  if (receiver) {
    for (const engine of engines) {
      const server = await startServer('bench/serve-app.ts', { ...appEnv(engine), BENCH_WEBHOOK_URL: receiver.url });
      try {
        const [toggle] = server.targets;
        if (!toggle) throw new Error('the webhook bench server offered no route');
        process.stderr.write(`lag     ${settings.lagSeconds}s at ${settings.lagRate}/s  ${toggle.name}\n`);
        lags.push({ engine, ...(await measureLag(`http://127.0.0.1:${server.port}`, toggle, receiver, settings.lagRate, settings.lagSeconds)) });
      } finally {
        await stopServer(server.child);
      }
    }
    await receiver.close();
  }

  // below saturation: half of what this engine's one-card toggle answered flat out above
  const halfOfSaturation = (engine: string) => {
    const saturated = measured.find((r) => r.engine === engine && r.route === 'Toggle Multiple Labels');
    if (!saturated) throw new Error(`the ${engine} toggle was not measured, so half its rate is unknown`);
    return Math.max(1, Math.round(saturated.requestsPerSecond / 2));
  };
  const steady: (Measured & { maxMs: number })[] = [];
  const { steadyRate } = settings;
  /** The steady toggle's rate on this engine, or undefined when BENCH_STEADY_RATE is 0. */
  const steadyRateOf = (engine: string) => (steadyRate === 0 ? undefined : steadyRate === 'half' ? halfOfSaturation(engine) : steadyRate);
  for (const engine of engines) {
    const rate = steadyRateOf(engine);
    if (rate !== undefined) steady.push(await measureSteady(engine, appEnv(engine), rate));
  }

  const recordingCosts: RecordingCost[] = [];
  if (settings.recording) {
    for (const engine of engines) recordingCosts.push(...(await measureRecording(engine, appEnv(engine), steadyRateOf(engine))));
  }

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
  const setup = {
    connections: settings.connections,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    rateLimit: settings.limiters,
    engines,
    cards: settings.cards,
  };

  console.log('');
  console.log(table(rows));
  console.log('');
  console.log(`Node ${machine.node} | ${machine.cpu} | ${machine.cores} cores | ${machine.platform} | ${machine.date}`);
  console.log(
    `autocannon: ${setup.connections} connections, ${setup.seconds} s measured after ${setup.warmupSeconds} s warm-up, per route; servers on 127.0.0.1 in child processes, logging off`,
  );
  for (const description of servers) console.log(`  server: ${description}`);
  for (const note of notes) console.log(note);
  const show = (r: Measured) => `${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, CPU ${r.cpuUsPerRequest?.toFixed(0) ?? '?'} µs/req`;
  console.log(`bare route: ${show(bareBefore)} before the app's routes, ${show(bareAfter)} after; ratios are to their mean`);
  console.log("peak RSS: the server process's VmRSS, sampled every 100 ms during the measured seconds of the route");
  console.log("CPU µs/req: the server process's CPU time (user + system) over the measured seconds / requests answered (PostgreSQL's own CPU not counted)");
  console.log('');
  console.log(
    `sign-in: one argon2id hash (${ARGON2_PARAMETERS.memoryCost} KiB, ${ARGON2_PARAMETERS.timeCost} passes, ${ARGON2_PARAMETERS.parallelism} lane): ` +
      `median ${signInHash.medianMs.toFixed(1)} ms of ${signInHash.runs} (min ${signInHash.minMs.toFixed(1)}, max ${signInHash.maxMs.toFixed(1)})`,
  );
  const sessionVsKey = sessionRatios(sessionComparisons);
  if (sessionVsKey.length) {
    console.log(
      `Get Card Details by session cookie / by API key, ${ALTERNATE_ROUNDS} turns each of ${turnSeconds()} s on the same server (aim: req/s ratio >= 0.90):`,
    );
    const cpu = (figure: number | undefined) => (figure === undefined ? '?' : figure.toFixed(0));
    for (const r of sessionVsKey) {
      console.log(
        `  ${r.engine.padEnd(8)} req/s ${r.rpsRatio.toFixed(3)} (${r.session.requestsPerSecond.toFixed(0)} / ${r.key.requestsPerSecond.toFixed(0)}), ` +
          `p50 ${r.p50Ratio.toFixed(3)}, CPU µs/req ${r.cpuRatio?.toFixed(3) ?? '?'} (${cpu(r.session.cpuUsPerRequest)} / ${cpu(r.key.cpuUsPerRequest)})  [${r.server}]`,
      );
    }
  }
  if (lags.length) {
    console.log('');
    console.log("webhook delivery lag to the receiver's 2xx, from the change's 2xx at the client | from sending the change (upper bound):");
    const showLag = (f: { p50Ms: number; p99Ms: number; maxMs: number }) =>
      `p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms, max ${f.maxMs.toFixed(1)} ms`;
    for (const lag of lags) {
      console.log(`  ${lag.engine.padEnd(8)} ${lag.changes} changes at ${lag.ratePerSecond}/s: ${showLag(lag.fromAnswer)} | ${showLag(lag.fromSend)}`);
    }
  }
  if (steady.length) {
    console.log('');
    const pace = settings.steadyRate === 'half' ? "half the rate of that engine's toggle above" : `${settings.steadyRate}/s`;
    console.log(`the one-card toggle at a steady rate below saturation (${pace}), ${settings.connections} connections, ${settings.seconds} s:`);
    for (const r of steady) {
      console.log(
        `  ${r.engine.padEnd(8)} ${r.requestsPerSecond.toFixed(0)} req/s: p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, max ${r.maxMs.toFixed(1)} ms; CPU ${r.cpuUsPerRequest?.toFixed(0) ?? '?'} µs/req, peak RSS ${r.peakRssMb?.toFixed(0) ?? '?'} MB`,
      );
    }
  }
  if (recordingCosts.length) {
    console.log('');
    console.log(
      `what recording events adds to a toggle (a server with the event record, one whose record is bare rows with no index but the key, and one without; measured in turn, ${RECORDING_ROUNDS} rounds, means):`,
    );
    const share = (added: number) => `${added >= 0 ? '+' : ''}${(added * 100).toFixed(1)} %`;
    const shares = ({ cpuUsPerRequest: cpu, addedCpuShare, bareRowsAddedCpuShare }: RecordingShares) =>
      `CPU ${cpu.recorded.toFixed(0)} µs/req recorded (${share(addedCpuShare)})` +
      (cpu.bareRows !== undefined && bareRowsAddedCpuShare !== undefined ? `, ${cpu.bareRows.toFixed(0)} as bare rows (${share(bareRowsAddedCpuShare)})` : '') +
      `, ${cpu.notRecorded.toFixed(0)} not`;
    for (const cost of recordingCosts) {
      const rps = cost.requestsPerSecond;
      console.log(
        `  ${cost.engine.padEnd(8)} ${cost.route}: ${shares(cost)}; ` +
          `${rps.recorded.toFixed(0)}${rps.bareRows !== undefined ? ` / ${rps.bareRows.toFixed(0)}` : ''} / ${rps.notRecorded.toFixed(0)} req/s`,
      );
      if (cost.atRate) console.log(`  ${cost.engine.padEnd(8)} ${cost.route}, at ${cost.atRate.rate}/s: ${shares(cost.atRate)}`);
    }
  }
  console.log('');
  console.log(
    JSON.stringify({
      machine,
      setup,
      results: rows,
      bare: { before: bareBefore, after: bareAfter },
      signInHash,
      sessionVsKey,
      webhookLag: lags,
      steadyToggles: steady,
      recordingCosts,
    }),
  );
  if (searchMode === 'on') await searchBench();
}

/** One argon2id hash with the configured parameters, timed HASH_RUNS times after one warm-up: a password sign-in's cost. */
const HASH_RUNS = 9;
async function measureHash(): Promise<{ runs: number; medianMs: number; minMs: number; maxMs: number }> {
  await hashPassword('warm-up password 2026');
  const times: number[] = [];
  for (let i = 0; i < HASH_RUNS; i++) {
    const started = performance.now();
    await hashPassword(`bench password number ${i}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { runs: HASH_RUNS, medianMs: times[Math.floor(HASH_RUNS / 2)]!, minMs: times[0]!, maxMs: times.at(-1)! };
}

/** The session's figures over the key's, from the turns of each server. */
function sessionRatios(comparisons: SessionComparison[]) {
  return comparisons.map((comparison) => {
    const { key, session } = comparison;
    return {
      ...comparison,
      rpsRatio: session.requestsPerSecond / key.requestsPerSecond,
      p50Ratio: session.p50Ms / key.p50Ms,
      cpuRatio: session.cpuUsPerRequest !== undefined && key.cpuUsPerRequest ? session.cpuUsPerRequest / key.cpuUsPerRequest : undefined,
    };
  });
}

/** bench/search.ts for each engine in turn, each in a child process; its one JSON line is printed as it comes. */
async function searchBench(): Promise<void> {
  for (const engine of settings.engines) {
    const env = {
      ...process.env,
      BENCH_SEARCH_CARDS: process.env.BENCH_SEARCH_CARDS || '20000',
      BENCH_SEARCH_TEAMS: process.env.BENCH_SEARCH_TEAMS || '20',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/search.ts', engine], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    children.add(child);
    const [code] = (await once(child, 'exit')) as [number | null];
    children.delete(child);
    if (code !== 0) throw new Error(`bench/search.ts ${engine} exited with ${code}`);
  }
}

/** Null when PostgreSQL answers a query at postgresUrl, else why not. */
async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000, query_timeout: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
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
