/**
 * Where a request's CPU goes (`npm run bench:profile`): per engine and route, the app served as the
 * bench serves it (bench/serve-app.ts through scripts/serve.sh) under Node's `--cpu-prof`, loaded by
 * autocannon (10 connections, a 2 s warm-up, then BENCH_SECONDS, default 8), then stopped, and the
 * profile's samples of the measured seconds sorted into kinds of work by the frame that ran: the
 * socket's system calls, HTTP parsing with Fastify's routing, hooks and serializers, the database
 * (the driver and the time its statements run), Kysely's query building, the app's own code, the
 * garbage collector. Prints each kind's share of the busy time, and keeps the profiles (open them
 * in Chromium's DevTools) in test-results/profiles/.
 *
 * BENCH_ENGINES (default sqlite,postgres), BENCH_ROUTES (default the three of the issue on the
 * request path: Get Label Colors, Get Card Details, Toggle Multiple Labels; a prefix of a bench
 * route's name), BENCH_SECONDS, BENCH_CONNECTIONS.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { startServer, stopAll, stopServer } from './servers.ts';

const engines = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').filter(Boolean);
const routes = (process.env.BENCH_ROUTES ?? 'Get Label Colors,Get Card Details,Toggle Multiple Labels').split(',').filter(Boolean);
const seconds = Number(process.env.BENCH_SECONDS || 8);
const connections = Number(process.env.BENCH_CONNECTIONS || 10);
const postgresUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const outDir = join(process.cwd(), 'test-results', 'profiles');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The kinds of work, in the order a frame is tried against them (the first that claims it). */
const KINDS: [string, (name: string, url: string) => boolean][] = [
  ['idle', (name) => name === '(idle)'],
  ['garbage collection', (name) => name === '(garbage collector)'],
  ['socket system calls', (name) => /^(writeUtf8String|writeLatin1String|writev|writeBuffer|onStreamRead|readStart)$/.test(name)],
  // the time a statement runs natively is the self time of the frame that called it
  [
    'database: driver and statements',
    (name, url) => /better-sqlite3|\/pg\/|pg-protocol|pg-pool/.test(url) || /^(#execute|#exec|runStatement|executeCompiled|prepare)$/.test(name),
  ],
  ['Kysely: building and compiling queries', (_name, url) => /node_modules\/kysely\//.test(url)],
  [
    'HTTP parsing, Fastify: routing, hooks, serializers',
    (name, url) =>
      /node_modules\/(fastify|@fastify|find-my-way|toad-cache|fast-json-stringify|secure-json-parse|light-my-request)|node:_http|node:net|node:internal\/streams|node:events|node:internal\/http/.test(
        url,
      ) || /^(anonymous\d+|parserOnHeadersComplete|parserOnBody|parserOnMessageComplete)$/.test(name),
  ],
  ['hashes (entity tags, keys)', (name, url) => /node:internal\/crypto/.test(url) || name === 'hash' || name === 'digest'],
  ['timers, promises and microtasks', (name, url) => /timers|task_queues|async_hooks/.test(url) || /^(runMicrotasks|processTicksAndRejections)$/.test(name)],
  ["the app's own code", (_name, url) => /dist\/bench\//.test(url)],
];

/** Each kind's microseconds among the samples of the last `seconds` of the profile. */
function kindsOf(profile: Profile, lastSeconds: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = profile.endTime - lastSeconds * 1e6;
  const spent = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from) return;
    const frame = byId.get(id)?.callFrame ?? { functionName: '', url: '' };
    const kind = KINDS.find(([, claims]) => claims(frame.functionName, frame.url))?.[0] ?? 'other (Node, V8, libraries)';
    spent.set(kind, (spent.get(kind) ?? 0) + delta);
  });
  return spent;
}

mkdirSync(outDir, { recursive: true });
process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
for (const engine of engines) {
  for (const route of routes) {
    const file = `${engine}-${route.replace(/\W+/g, '-').toLowerCase()}.cpuprofile`;
    const env: Record<string, string> = { BENCH_ENGINE: engine, BENCH_POSTGRES_URL: postgresUrl };
    const server = await startServer('bench/serve-app.ts', env, ['--cpu-prof', `--cpu-prof-dir=${outDir}`, `--cpu-prof-name=${file}`]);
    const target = server.targets.find((candidate) => candidate.name.startsWith(route));
    if (!target) throw new Error(`no route named ${route} among ${server.targets.map((t) => t.name).join(', ')}`);
    const load = (duration: number) =>
      new Promise<Result>((resolve, reject) =>
        autocannon(
          {
            url: `http://127.0.0.1:${server.port}${target.path}`,
            method: target.method,
            ...(target.headers ? { headers: target.headers } : {}),
            ...(target.body ? { body: target.body } : {}),
            connections,
            duration,
          },
          (error, done) => (error ? reject(error) : resolve(done)),
        ),
      );
    await load(2);
    const result = await load(seconds);
    if (result.non2xx > 0) throw new Error(`${route} on ${engine}: ${result.non2xx} answers were not 2xx`);
    await stopServer(server.child);
    const spent = kindsOf(JSON.parse(readFileSync(join(outDir, file), 'utf8')) as Profile, seconds);
    const total = [...spent.values()].reduce((sum, us) => sum + us, 0);
    const busy = total - (spent.get('idle') ?? 0);
    console.log(`${engine} ${target.name}: ${Math.round(result.requests.average)} req/s, busy ${((100 * busy) / total).toFixed(0)} % of the time`);
    for (const [kind, us] of [...spent].filter(([kind]) => kind !== 'idle').sort((a, b) => b[1] - a[1])) {
      console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${kind}`);
    }
  }
}
