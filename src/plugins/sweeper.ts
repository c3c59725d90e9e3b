import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config.ts';
import { sweepDeleted } from '../domain/boards/sweep.ts';

/**
 * Runs the sweep of deleted lists and boards (src/domain/boards/sweep.ts) once the server listens
 * (finishing what a crash left) and then every `SWEEP_INTERVAL_MS`. One sweep at a time; closing
 * the app stops it between batches and waits for the batch under way.
 */
export default fp(
  async function sweeperPlugin(app: FastifyInstance, opts: { config: AppConfig }) {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let closing = false;
    const sweep = () => {
      if (running || closing) return;
      running = sweepDeleted(app.services, { batchCards: opts.config.sweep.batchCards, goOn: () => !closing })
        .then(
          (result) => {
            if (result.cards + result.lists + result.boards > 0) app.log.info({ sweep: result }, 'sweep: removed deleted lists and boards');
          },
          (error: unknown) => app.log.error({ err: error }, 'sweep: failed; the next sweep goes on from where it stopped'),
        )
        .finally(() => {
          running = undefined;
        });
    };
    app.addHook('onListen', async () => {
      sweep();
      timer = setInterval(sweep, opts.config.sweep.intervalMs);
      timer.unref();
    });
    app.addHook('preClose', async () => {
      closing = true;
      clearInterval(timer);
      await running;
    });
  },
  { name: 'sweeper', dependencies: ['services'] },
);
