import { type App, buildApp } from './app.ts';
import type { AppConfig } from './config.ts';

/**
 * Closes the app with a deadline: in-flight requests get `timeoutMs` to finish, then every
 * connection still open is cut (an upload cut this way removes its `.partial` file). Resolves
 * whether the close was clean (true) or had to cut connections (false).
 */
export async function closeWithDeadline(app: App, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const closed = app.close().then(() => true);
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const clean = await Promise.race([closed, deadline]);
  clearTimeout(timer);
  if (!clean) {
    app.log.warn({ timeoutMs }, 'shutdown: requests still running at the deadline, cutting their connections');
    app.server.closeAllConnections();
    await closed;
  }
  return clean;
}

/** Starts listening and stops on SIGINT/SIGTERM within SHUTDOWN_TIMEOUT_MS. */
export async function startServer(config: AppConfig) {
  const app = await buildApp({ config });
  const close = async (signal: string) => {
    app.log.info({ signal, timeoutMs: config.http.shutdownTimeoutMs }, 'shutting down');
    await closeWithDeadline(app, config.http.shutdownTimeoutMs);
    process.exit(0);
  };
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Close what the start opened (database, Redis), so the process can exit with the error.
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}
