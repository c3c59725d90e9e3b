import { buildApp } from './app.ts';
import type { AppConfig } from './config.ts';

/** Starts listening and stops cleanly on SIGINT/SIGTERM. */
export async function startServer(config: AppConfig) {
  const app = await buildApp({ config });
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', close);
  process.once('SIGTERM', close);
  await app.listen({ host: config.host, port: config.port });
  return app;
}
