/**
 * One HTTP attempt of a delivery, with undici: a POST bounded by the timeout from connect to the
 * end of the response, no redirect followed (a 3xx is a failed attempt), the response body read
 * and dropped. Sockets connect only to addresses `guardedLookup` allows.
 */
import { createRequire } from 'node:module';
import type { Agent } from 'undici';
import { checkLiteralHost, guardedLookup, RefusedDestination } from './destinations.ts';

export interface AttemptOutcome {
  /** The response status, when a response came. */
  statusCode: number | null;
  /** Why the attempt failed, when it did (a non-2xx status, a timeout, a refused destination...). */
  error: string | null;
}

// undici is loaded at the first delivery: a server without webhooks never holds it.
const require = createRequire(import.meta.url);
const undici = () => require('undici') as typeof import('undici');

export class WebhookSender {
  #agent: Agent | undefined;
  readonly #timeoutMs: number;
  readonly #allowPrivate: boolean;

  constructor(options: { timeoutMs: number; allowPrivateNetworks: boolean }) {
    this.#timeoutMs = options.timeoutMs;
    this.#allowPrivate = options.allowPrivateNetworks;
  }

  #dispatcher(): Agent {
    this.#agent ??= new (undici().Agent)({
      connect: { lookup: guardedLookup(this.#allowPrivate), timeout: this.#timeoutMs },
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
    return this.#agent;
  }

  async post(target: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    try {
      const url = new URL(target);
      checkLiteralHost(url, this.#allowPrivate);
      const response = await undici().request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Taskboard-Webhooks/1', ...headers },
        body,
        dispatcher: this.#dispatcher(),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await response.body.dump();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return { statusCode: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
    } catch (error) {
      return { statusCode: null, error: describe(error, this.#timeoutMs) };
    }
  }

  async close(): Promise<void> {
    await this.#agent?.close();
  }
}

function describe(error: unknown, timeoutMs: number): string {
  const found = [error, (error as { cause?: unknown })?.cause].find((e) => e instanceof RefusedDestination);
  if (found) return `refused: ${(found as Error).message}`;
  const name = (error as { name?: string })?.name;
  const code = (error as { code?: string })?.code;
  if (name === 'TimeoutError' || name === 'AbortError' || code?.includes('TIMEOUT')) return `timed out after ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}` : message;
}
