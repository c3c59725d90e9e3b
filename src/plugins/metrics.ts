import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type PromClient from '@platformatic/prom-client';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { IMetricsPluginOptions } from 'fastify-metrics/dist/types.js';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { FailoverRateLimiter } from '../ratelimit/failover.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import { sendError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The Prometheus registry behind `/metrics`; null when metrics are off. */
    metricsRegistry: PromClient.Registry | null;
    /** The address of the metrics port once listening (METRICS_PORT). */
    metricsAddress: AddressInfo | null;
  }
}

type MetricsPlugin = FastifyPluginCallback<Partial<IMetricsPluginOptions>>;
type Prom = typeof PromClient;

/** prom-client and fastify-metrics, loaded only when metrics are on (docs/decisions/0042-load-on-first-use.md). */
function metricsLibraries(): { promClient: Prom; fastifyMetrics: MetricsPlugin } {
  const require = createRequire(import.meta.url);
  // both CommonJS: fastify-metrics hands its plugin over under `default`
  const exported = require('fastify-metrics') as MetricsPlugin | { default: MetricsPlugin };
  return { promClient: require('@platformatic/prom-client') as Prom, fastifyMetrics: 'default' in exported ? exported.default : exported };
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Prometheus metrics, off unless METRICS_TOKEN (then `/metrics` on the API port, behind that bearer
 * token) or METRICS_PORT (then a port of its own, meant for a private interface) is set: request
 * counts and latency by route template and status (fastify-metrics), rate-limit decisions by tier,
 * database pool use and faults, and Redis failover state. Each app has a registry of its own.
 */
export default fp(
  async function metricsPlugin(app: FastifyInstance, opts: { config: AppConfig; limiter: RateLimiter | null }) {
    const { token, port, host } = opts.config.metrics;
    app.decorate('metricsAddress', null);
    if (!token && port === undefined) {
      app.decorate('metricsRegistry', null);
      return;
    }
    const { promClient, fastifyMetrics } = metricsLibraries();
    const registry = new promClient.Registry();
    app.decorate('metricsRegistry', registry);
    // fastify-metrics is typed against @prometheus-io/client; it runs on @platformatic/prom-client
    // (a fork with the same API) when installed, the one whose registry is used here.
    const options = {
      endpoint: null,
      promClient,
      defaultMetrics: { enabled: true, register: registry },
      routeMetrics: {
        enabled: { histogram: true, summary: false },
        // Every metric in this app's registry (the summary is off, but is still created).
        overrides: { histogram: { name: 'http_request_duration_seconds', registers: [registry] }, summary: { registers: [registry] } },
      },
    };
    await app.register(fastifyMetrics, options as unknown as Partial<IMetricsPluginOptions>);

    const decisions = new promClient.Counter({
      name: 'taskboard_rate_limit_decisions_total',
      help: 'Rate-limit decisions by tier; outcome admitted, refused (429) or unavailable (503: no store could decide)',
      labelNames: ['tier', 'outcome'],
      registers: [registry],
    });
    app.addHook('onResponse', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      const outcome = request.rateLimitOutcome;
      if (outcome) decisions.inc({ tier: outcome.tier, outcome: outcome.outcome });
      done();
    });

    const storage = app.storage;
    new promClient.Gauge({
      name: 'taskboard_db_pool_connections',
      help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const use = storage.poolUse?.();
        if (!use) return;
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
    // The storage and error plugins count database faults, the notifications plugin failed sends.
    tallyCounter(
      promClient,
      registry,
      'taskboard_db_faults_total',
      'Database faults: idle_connection_lost (the pool dropped a connection that died while idle), request_unavailable (a request answered 503 because the database could not be reached or answer in time)',
      'fault',
      app.databaseFaults,
      { idleConnectionLost: 'idle_connection_lost', requestUnavailable: 'request_unavailable' },
    );
    tallyCounter(
      promClient,
      registry,
      'taskboard_notification_send_failures_total',
      'Notifications the NotificationSender did not take: reason error (it threw) or timeout (no answer within NOTIFICATION_SEND_TIMEOUT_MS; abandoned)',
      'reason',
      app.notificationSends,
      { failed: 'error', timedOut: 'timeout' },
    );
    tallyCounter(
      promClient,
      registry,
      'taskboard_mail_sends_total',
      'Mail worker sends: outcome sent (the mail server took the mail) or failed (an attempt failed or timed out; the mail waits for the next)',
      'outcome',
      app.mailSends,
      { sent: 'sent', failed: 'failed' },
    );
    const limiter = opts.limiter;
    if (limiter instanceof FailoverRateLimiter) {
      new promClient.Gauge({
        name: 'taskboard_redis_failover',
        help: '1 while rate limits are decided by the database because Redis is unavailable, else 0',
        registers: [registry],
        collect() {
          this.set(limiter.degraded ? 1 : 0);
        },
      });
    }

    if (token) {
      app.get('/metrics', { config: { public: true }, schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
        const header = request.headers.authorization ?? '';
        if (!header.startsWith('Bearer ') || !sameToken(header.slice('Bearer '.length), token)) {
          return sendError(request, reply, 401, 'unauthorized', 'The metrics need the metrics token: Authorization: Bearer <METRICS_TOKEN>.');
        }
        reply.type(registry.contentType);
        return registry.metrics();
      });
    }

    if (port !== undefined) {
      let server: Server | undefined;
      app.addHook('onListen', async () => {
        server = createServer((req, res) => {
          if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
            res.writeHead(404).end();
            return;
          }
          registry.metrics().then(
            (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
            (error: unknown) => {
              app.log.error({ err: error }, 'metrics: cannot collect');
              res.writeHead(500).end();
            },
          );
        });
        await new Promise<void>((resolve, reject) => {
          server!.once('error', reject);
          server!.listen(port, host, () => resolve());
        });
        app.metricsAddress = server.address() as AddressInfo;
        app.log.info({ metrics: `http://${host}:${app.metricsAddress.port}/metrics` }, 'metrics: listening');
      });
      app.addHook('onClose', async () => {
        if (!server) return;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      });
    }
  },
  { name: 'metrics', dependencies: ['storage', 'rate-limit', 'jobs'] },
);

/**
 * A Counter over an in-process tally (plain numbers the app increments): at each scrape it is handed
 * what each field counted since the last one, under its label value.
 */
function tallyCounter<K extends string>(
  promClient: Prom,
  registry: PromClient.Registry,
  name: string,
  help: string,
  labelName: string,
  tally: Readonly<Record<NoInfer<K>, number>>,
  labels: Record<K, string>,
): void {
  const fields = Object.keys(labels) as K[];
  const counted = Object.fromEntries(fields.map((field) => [field, 0])) as Record<K, number>;
  new promClient.Counter({
    name,
    help,
    labelNames: [labelName],
    registers: [registry],
    collect() {
      for (const field of fields) {
        this.inc({ [labelName]: labels[field] }, tally[field] - counted[field]);
        counted[field] = tally[field];
      }
    },
  });
}
