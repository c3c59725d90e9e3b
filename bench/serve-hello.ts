/** The baseline: a bare Fastify app with one route, served like the real app (bench/serve-app.ts). */
import Fastify from 'fastify';
import { failed, serve } from './protocol.ts';

try {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  await serve(app, [{ name: 'bare Fastify: GET /hello', method: 'GET', path: '/hello' }], `Fastify ${app.version}, no plugins`);
} catch (error) {
  failed(error);
}
