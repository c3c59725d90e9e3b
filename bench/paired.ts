/**
 * Paired rounds of two builds of the app, side by side on this machine: the code of another
 * checkout (BENCH_BEFORE_DIR, its node_modules installed; run as its own `bench/serve-app.ts`) and
 * this one (built and served as `npm start` serves it), with the bare Fastify route. Both servers
 * and the bare one run at once; each round loads them in turn for BENCH_SECONDS (default 3),
 * alternating which build goes first, so the machine's drift falls on both alike. Per route it
 * prints the medians and spreads (min–max) over the rounds of req/s relative to the bare route of
 * the same round, of the CPU µs per request, and of after / before per round.
 *
 *   BENCH_BEFORE_DIR=/path/to/main-checkout bash scripts/with-node.sh node --import tsx bench/paired.ts
 *
 * BENCH_ENGINES (default sqlite,postgres), BENCH_ROUNDS (default 7), BENCH_ROUTES (default: Get
 * Label Colors, Get Card Details, Toggle Multiple Labels; names as bench/run.ts prints them),
 * BENCH_CONNECTIONS (default 10). The "after" side's Node options are scripts/serve.sh's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import type { ChildMessage, Target } from './protocol.ts';
import { buildServeApp, cpuSeconds } from './servers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const beforeDir = process.env.BENCH_BEFORE_DIR ? resolve(process.env.BENCH_BEFORE_DIR) : undefined;
if (!beforeDir) throw new Error('BENCH_BEFORE_DIR: a checkout of the code to compare with (its node_modules installed)');
const engines = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').filter(Boolean);
const rounds = Number(process.env.BENCH_ROUNDS || 7);
const seconds = Number(process.env.BENCH_SECONDS || 3);
const connections = Number(process.env.BENCH_CONNECTIONS || 10);
const routes = (process.env.BENCH_ROUTES ?? 'Get Label Colors,Get Card Details,Toggle Multiple Labels').split(',');
const postgresUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

interface Server {
  child: ChildProcess;
  port: number;
  targets: Target[];
}

const children = new Set<ChildProcess>();

function start(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  return new Promise((done, fail) => {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') done({ child, port: message.port, targets: message.targets });
      else fail(new Error(message.message));
    });
    child.once('exit', (code) => fail(new Error(`${command} ${args.join(' ')} exited (${code}) before it was ready`)));
  });
}

async function stop(server: Server) {
  if (server.child.exitCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
  children.delete(server.child);
}

async function load(server: Server, target: Target, duration: number): Promise<{ rps: number; cpuUsPerRequest: number }> {
  const pid = server.child.pid as number;
  const before = cpuSeconds(pid) ?? Number.NaN;
  let connection = 0;
  const paths = target.paths;
  const options = {
    url: `http://127.0.0.1:${server.port}${target.path}`,
    method: target.method,
    connections,
    duration,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
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
  } satisfies Parameters<typeof autocannon>[0];
  const result = await new Promise<Result>((done, fail) => autocannon(options, (error, answered) => (error ? fail(error) : done(answered))));
  if (result.non2xx) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers`);
  const requests = result.requests.total;
  return { rps: requests / duration, cpuUsPerRequest: (((cpuSeconds(pid) ?? Number.NaN) - before) * 1e6) / requests };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const spread = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const figure = (values: number[], digits: number) => `${median(values).toFixed(digits)} (${spread(values, digits)})`;

async function main() {
  const after = buildServeApp(join(root, 'dist', 'bench-paired'));
  const bare = await start(process.execPath, ['bench/serve-hello.ts'], root, {});
  const hello = bare.targets[0] as Target;
  const lines: string[] = [];
  const results: unknown[] = [];
  try {
    for (const engine of engines) {
      const env = { BENCH_ENGINE: engine, BENCH_POSTGRES_URL: postgresUrl, BENCH_RATE_LIMIT_MODE: 'off', BENCH_ROOT: root };
      const sides = {
        before: await start(process.execPath, ['bench/serve-app.ts'], beforeDir as string, { ...env, BENCH_ROOT: beforeDir as string }),
        after: await start('bash', [join(root, 'scripts', 'serve.sh'), after], root, env),
      };
      try {
        for (const route of routes) {
          const targetOf = (server: Server) => {
            const found = server.targets.find((t) => t.name === route);
            if (!found) throw new Error(`no route "${route}" (${server.targets.map((t) => t.name).join(', ')})`);
            return found;
          };
          for (const side of ['before', 'after'] as const) await load(sides[side], targetOf(sides[side]), 2);
          await load(bare, hello, 1);
          const rows: { bare: number; before: { rps: number; cpuUsPerRequest: number }; after: { rps: number; cpuUsPerRequest: number } }[] = [];
          for (let round = 0; round < rounds; round++) {
            const order = round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const);
            const measured: Partial<Record<'before' | 'after', { rps: number; cpuUsPerRequest: number }>> = {};
            const bareRps = (await load(bare, hello, seconds)).rps;
            for (const side of order) measured[side] = await load(sides[side], targetOf(sides[side]), seconds);
            rows.push({ bare: bareRps, before: measured.before as never, after: measured.after as never });
            process.stderr.write(`${engine} ${route} round ${round + 1}/${rounds}\n`);
          }
          const ratio = (side: 'before' | 'after') => rows.map((r) => r[side].rps / r.bare);
          const cpu = (side: 'before' | 'after') => rows.map((r) => r[side].cpuUsPerRequest);
          const line = [
            engine.padEnd(8),
            route.padEnd(24),
            `vs bare: before ${figure(ratio('before'), 3)}×, after ${figure(ratio('after'), 3)}×`,
            `CPU µs/req: before ${figure(cpu('before'), 0)}, after ${figure(cpu('after'), 0)}`,
            `after/before req/s ${figure(
              rows.map((r) => r.after.rps / r.before.rps),
              2,
            )}, CPU ${figure(
              rows.map((r) => r.after.cpuUsPerRequest / r.before.cpuUsPerRequest),
              2,
            )}`,
          ].join(' | ');
          lines.push(line);
          console.log(line);
          results.push({ engine, route, rows });
        }
      } finally {
        await stop(sides.before);
        await stop(sides.after);
      }
    }
  } finally {
    await stop(bare);
  }
  console.log(`\n${rounds} rounds of ${seconds} s per side, ${connections} connections; medians (min–max over the rounds)`);
  for (const line of lines) console.log(line);
  console.log(JSON.stringify(results));
}

main().catch((error: unknown) => {
  console.error(error);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
