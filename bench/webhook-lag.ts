/**
 * Webhook figures for `npm run bench` (bench/run.ts): a receiver in the bench's own process that
 * answers 204 and notes when it answered each delivery, and the delivery-lag drive: changes at a
 * steady rate, each tagged with its own X-Request-Id (which its event carries), and the time to the
 * receiver's 2xx for its event, measured two ways: from the change's 2xx at the client (the change
 * had committed by then; negative when the delivery beat the answer) and from sending the change
 * (an upper bound on commit → 2xx: it includes the change's own request, queueing included).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Target } from './protocol.ts';

export interface BenchReceiver {
  url: string;
  /** When (performance.now()) the receiver answered the delivery of the event of each request id. */
  answered: Map<string, number>;
  received: number;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const answered = new Map<string, number>();
  const receiver: BenchReceiver = { url: '', answered, received: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received++;
      const requestId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { requestId?: string } }).data?.requestId;
      response.writeHead(204).end(() => {
        if (requestId) answered.set(requestId, performance.now());
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return receiver;
}

export interface LagFigures {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LagResult {
  changes: number;
  ratePerSecond: number;
  /** From the change's 2xx at the client. */
  fromAnswer: LagFigures;
  /** From sending the change. */
  fromSend: LagFigures;
}

/** The nearest-rank `p`th percentile of ascending `sorted` (NaN when empty); bench/run.ts uses it too. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Sends `target` `rate` times a second for `seconds`, then waits (at most 60 s) for every delivery. */
export async function measureLag(base: string, target: Target, receiver: BenchReceiver, rate: number, seconds: number): Promise<LagResult> {
  const total = rate * seconds;
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const started = performance.now();
  const requests: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const id = `lag-${run}-${i}`;
    sentAt.set(id, performance.now());
    requests.push(
      fetch(base + target.path, { method: target.method, headers: { ...target.headers, 'x-request-id': id }, body: target.body ?? null }).then(async (res) => {
        await res.arrayBuffer();
        answeredAt.set(id, performance.now());
        if (!res.ok) throw new Error(`${target.name} answered ${res.status} during the lag drive`);
      }),
    );
  }
  await Promise.all(requests);
  const deadline = performance.now() + 60_000;
  while ([...sentAt.keys()].some((id) => !receiver.answered.has(id))) {
    if (performance.now() > deadline) {
      const missing = [...sentAt.keys()].filter((id) => !receiver.answered.has(id)).length;
      throw new Error(`${missing} of ${total} deliveries did not arrive within 60 s of the last change`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const figures = (from: Map<string, number>): LagFigures => {
    const lags = [...from].map(([id, at]) => (receiver.answered.get(id) as number) - at).sort((a, b) => a - b);
    return { p50Ms: percentile(lags, 50), p99Ms: percentile(lags, 99), maxMs: lags.at(-1) ?? Number.NaN };
  };
  return { changes: total, ratePerSecond: rate, fromAnswer: figures(answeredAt), fromSend: figures(sentAt) };
}
