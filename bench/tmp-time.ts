import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { findLiveKeyWithMemberships } from '../src/storage/repositories/api-keys.ts';
import { listLabelColors } from '../src/storage/repositories/labels.ts';
import { authenticate } from '../src/domain/account/service.ts';
import { hashToken } from '../src/domain/account/tokens.ts';
import { readFileSync } from 'node:fs';
const ready = JSON.parse(readFileSync('/work/prof/out-sqlite-0/ready.json', 'utf8').trim().split('\n').pop()!);
const token = ready.targets[0].headers.authorization.slice(7);
const config = loadConfig({ ...process.env, DATABASE_URL: 'sqlite:/work/main/.bench-cache/sqlite-1001.db', LOG_LEVEL: 'warn', RATE_LIMIT_MODE: 'off' } as any);
const app = await buildApp({ config, rateLimiter: null });
await app.ready();
const db = (app as any).storage.db;
async function time(name: string, fn: () => Promise<unknown>, n = 20000) {
  for (let i = 0; i < 2000; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  console.log(name, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'µs');
}
const h = hashToken(token);
await time('hashToken', async () => hashToken(token));
await time('findLiveKey', () => findLiveKeyWithMemberships(db, h));
await time('authenticate', () => authenticate((app as any).services, token));
await time('listLabelColors', () => listLabelColors(db));
await time('inject label-colors', () => app.inject({ method: 'GET', url: '/api/v1/label-colors', headers: { authorization: `Bearer ${token}` } }), 5000);
await app.close();
