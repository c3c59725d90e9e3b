/**
 * The server's memory under a mixed load (`npm run bench:memory`): per engine, the app built and
 * served as `npm start` serves it (bench/serve-app.ts through scripts/serve.sh, a world of 1,000
 * cards), its RSS read from /proc every second while autocannon sends every route of the bench in
 * turn on each of 10 connections for BENCH_MIXED_SECONDS (default 180). Prints the RSS once ready,
 * the peak (VmHWM), and the trend of the RSS over the second half of the load (MB per minute: a leak
 * shows as a steady rise; a flat line is what a server at its working size draws).
 *
 * BENCH_ENGINES (default sqlite; sqlite,postgres), BENCH_MIXED_SECONDS, BENCH_CONNECTIONS (10).
 */
import { readFileSync } from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import { children, cpuSeconds, startServer, stopAll, stopServer } from './servers.ts';

const engines = (process.env.BENCH_ENGINES ?? 'sqlite').split(',').filter(Boolean);
const seconds = Number(process.env.BENCH_MIXED_SECONDS || 180);
const connections = Number(process.env.BENCH_CONNECTIONS || 10);
const postgresUrl = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** The least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

async function measure(engine: string) {
  const server = await startServer('bench/serve-app.ts', {
    BENCH_ENGINE: engine,
    BENCH_CARDS: '0',
    BENCH_POSTGRES_URL: postgresUrl,
    BENCH_RATE_LIMIT_MODE: 'off',
  });
  try {
    const pid = server.child.pid as number;
    const ready = memoryOf(pid);
    const cpuBefore = cpuSeconds(pid) ?? Number.NaN;
    const samples: [number, number][] = [];
    const started = performance.now();
    const sampler = setInterval(() => samples.push([(performance.now() - started) / 60_000, memoryOf(pid).rss]), 1000);
    let client = 0;
    process.stderr.write(`mixed   ${seconds}s  ${engine}: ${server.targets.map((t) => t.name).join(', ')}\n`);
    const result = await new Promise<Result>((resolve, reject) =>
      autocannon(
        {
          url: `http://127.0.0.1:${server.port}`,
          connections,
          duration: seconds,
          setupClient: (c) => {
            const i = client++;
            c.setRequests(
              server.targets.map((t) => ({
                method: t.method,
                path: t.paths?.[i % t.paths.length] ?? t.path,
                ...(t.headers ? { headers: t.headers } : {}),
                ...(t.body ? { body: t.body } : {}),
              })),
            );
          },
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      ),
    );
    clearInterval(sampler);
    const end = memoryOf(pid);
    const cpuUsPerRequest = (((cpuSeconds(pid) ?? Number.NaN) - cpuBefore) * 1e6) / result.requests.total;
    const secondHalf = samples.filter(([minute]) => minute >= seconds / 120);
    return {
      engine,
      requestsPerSecond: result.requests.average,
      cpuUsPerRequest,
      non2xx: result.non2xx,
      errors: result.errors,
      readyRssMb: ready.rss,
      peakMb: end.hwm,
      endRssMb: end.rss,
      trendMbPerMinute: slope(secondHalf),
    };
  } finally {
    await stopServer(server.child);
  }
}

process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
try {
  for (const engine of engines) {
    const r = await measure(engine);
    console.log(
      `${r.engine}: ${r.requestsPerSecond.toFixed(0)} req/s, CPU ${r.cpuUsPerRequest.toFixed(0)} µs/req (${r.non2xx} non-2xx, ${r.errors} errors); RSS ready ${r.readyRssMb.toFixed(1)} MB, ` +
        `peak ${r.peakMb.toFixed(1)} MB, end ${r.endRssMb.toFixed(1)} MB; trend over the second half ${r.trendMbPerMinute.toFixed(2)} MB/min`,
    );
  }
} finally {
  if (children.size) await stopAll();
}
