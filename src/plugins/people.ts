import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type SetupToken, setupTokenIfEmpty } from '../domain/people/setup.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The first-run token while the database has no user (docs/people.md, "First run"). */
    setupToken: SetupToken | undefined;
    /** The first-run link, once the server listens and has no user. */
    setupLink: string | undefined;
  }
}

/** People sign in: the first-run setup link. */
export default fp(
  async function peoplePlugin(app: FastifyInstance) {
    app.decorate('setupToken', undefined as SetupToken | undefined);
    app.decorate('setupLink', undefined as string | undefined);
    app.addHook('onReady', async () => {
      app.setupToken = await setupTokenIfEmpty(app.services);
    });
    // The one line that lets the first person in; the token in it works once.
    app.addHook('onListen', async () => {
      if (!app.setupToken) return;
      const address = app.server.address() as AddressInfo | null;
      const host = !address || ['0.0.0.0', '::'].includes(address.address) ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const base = app.config.people.publicUrl ?? `http://${host}:${address?.port ?? app.config.port}`;
      app.setupLink = `${base}/setup#${app.setupToken.token}`;
      app.log.info(`No user yet: open ${app.setupLink} to create the first company, team and owner (the link works once)`);
    });
  },
  { name: 'people', dependencies: ['services'] },
);
