/**
 * A real webhook receiver: an HTTP server on 127.0.0.1 that keeps every request it gets (headers,
 * raw body, whether the sender closed it) and answers as the test tells it (a status, or never).
 * Tests wait on what it received, never on time.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** Set when the sender closed the connection before the receiver answered. */
  closedEarly: boolean;
  /** Answered, or still held open (`respond` returned 'hang'). */
  answered: boolean;
}

/** What the receiver answers to the n-th request (0-based): a status (now or later), or 'hang' (never answers). */
export type Respond = (received: Received, index: number) => number | Promise<number> | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  respond: Respond;
  /** Resolves once `predicate` holds of what was received, checked at each request and each close; fails after `ms`. */
  until(predicate: (received: Received[]) => boolean, ms?: number, what?: string): Promise<void>;
  /** The bodies it received, each verified with the package's own verifier and `secret` (throws if one fails). */
  verified(secret: string, from?: Received[]): unknown[];
  close(): Promise<void>;
}

export async function startReceiver(respond: Respond = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const waiter of waiters) waiter();
  };
  const held = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    respond,
    until(predicate, ms = 20_000, what = 'the receiver to get what the test waits for') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; received ${received.length}: ${JSON.stringify(received.map((r) => r.headers['webhook-id']))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    verified(secret, from = received) {
      const webhook = new Webhook(secret);
      return from.map((r) => webhook.verify(r.body, r.headers));
    },
    async close() {
      for (const response of held) response.socket?.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const entry: Received = {
      headers: request.headers as Record<string, string>,
      body: Buffer.concat(chunks).toString('utf8'),
      closedEarly: false,
      answered: false,
    };
    const index = received.push(entry) - 1;
    response.on('close', () => {
      if (!response.writableFinished) entry.closedEarly = true;
      held.delete(response);
      changed();
    });
    const answer = receiver.respond(entry, index);
    if (answer === 'hang') {
      held.add(response);
    } else {
      const status = await answer;
      entry.answered = true;
      response.writeHead(status).end();
    }
    changed();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/**
 * Resolves with the first value `check` answers that `done` accepts, asking again every 20 ms (for
 * state another process or the dispatcher writes, which has no event to wait on); fails after `ms`.
 */
export async function eventually<T>(check: () => Promise<T>, done: (value: T) => boolean, ms = 20_000, what = 'the condition'): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
