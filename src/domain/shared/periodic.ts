/**
 * The one shape of the server's background work (the sweeper, event retention, reminders,
 * notification delivery, the webhook dispatcher, the pruning of idempotency keys): a pass, run again
 * `everyMs` after the previous one ended, never two at once, and a stop that waits for the pass under
 * way. What a pass does at a given moment is decided by the service context's Clock, so a test moves
 * the clock and runs a pass (`tick`) instead of waiting for a timer.
 *
 * Hand-written rather than toad-scheduler: the dispatcher must be woken early (a commit, an attempt
 * that ended), tests need a pass's result, and the stop must wait for the pass under way; the
 * scheduler's jobs do none of these.
 */

/** Where a job reports a failed pass (the app's logger). */
export interface JobLog {
  error(detail: object, message: string): void;
}

export interface JobOptions<T> {
  /** For the log. */
  name: string;
  /** Between the end of one pass and the start of the next; 0: only when ticked or woken. */
  everyMs: number;
  /** Whether `start` runs a pass at once (default), or only after `everyMs`. */
  atStart?: boolean;
  /** One pass; `signal` aborts when the job stops (a long pass checks it between batches). */
  pass(signal: AbortSignal): Promise<T>;
  /** After the last pass has ended, on stop: what the passes left running (sockets, sends). */
  stopped?: () => Promise<void>;
}

export class PeriodicJob<T = unknown> {
  readonly name: string;
  readonly #options: JobOptions<T>;
  readonly #log: JobLog;
  readonly #stopping = new AbortController();
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<T> | undefined;
  /** Woken while a pass ran: another goes at once after it. */
  #again = false;

  constructor(options: JobOptions<T>, log: JobLog) {
    this.name = options.name;
    this.#options = options;
    this.#log = log;
  }

  /** Whether `stop` was called: work a pass started checks it between its steps. */
  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Starts the passes (once; a stopped job stays stopped). */
  start(): void {
    if (this.#started || this.#stopping.signal.aborted) return;
    this.#started = true;
    if (this.#options.atStart === false) this.#schedule(this.#options.everyMs);
    else this.wake();
  }

  /** A pass as soon as the one under way (if any) has ended; a started job only. */
  wake(): void {
    if (!this.#started || this.#stopping.signal.aborted) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.tick().catch(() => {});
  }

  /** One pass now (after the one under way), started or not; answers its result. */
  async tick(): Promise<T> {
    while (this.#running) await this.#running.catch(() => {});
    clearTimeout(this.#timer);
    const pass = this.#options.pass(this.#stopping.signal);
    this.#running = pass;
    try {
      return await pass;
    } catch (error) {
      this.#log.error({ err: error, job: this.name }, `${this.name}: pass failed; the next pass tries again`);
      throw error;
    } finally {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      } else this.#schedule(this.#options.everyMs);
    }
  }

  #schedule(ms: number): void {
    if (!this.#started || this.#stopping.signal.aborted || ms <= 0) return;
    clearTimeout(this.#timer);
    // The process does not stay up for a timer; the server's socket keeps it alive.
    this.#timer = setTimeout(() => this.wake(), ms).unref();
  }

  /** Stops the passes; resolves once the one under way, and the job's own `stopped`, have ended. */
  async stop(): Promise<void> {
    if (this.#stopping.signal.aborted) return;
    this.#stopping.abort();
    clearTimeout(this.#timer);
    await this.#running?.catch(() => {});
    await this.#options.stopped?.();
  }
}

/** The background jobs of one app: one start, one stop. */
export class PeriodicJobs {
  readonly #jobs: PeriodicJob[] = [];
  #started = false;

  /** Adds a job; one added after the start starts at once. */
  add<T>(job: PeriodicJob<T>): PeriodicJob<T> {
    this.#jobs.push(job as PeriodicJob);
    if (this.#started) job.start();
    return job;
  }

  start(): void {
    this.#started = true;
    for (const job of this.#jobs) job.start();
  }

  /** Stops every job together; resolves when all have ended. */
  async stop(): Promise<void> {
    await Promise.all(this.#jobs.map((job) => job.stop()));
  }
}
