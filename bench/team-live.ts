/**
 * How fast a team hears of each other (`npm run bench:team`; BENCH_ENGINE=sqlite (default) or
 * postgres): two people on one served app, over real HTTP and Server-Sent Events.
 * - presence: one person's board stream is open; the other opens theirs (`?presence=true`): the time
 *   until the first stream's `presence` frame names them (joined), and after they close it, until a
 *   frame leaves them out (left);
 * - mention: one person's notifications stream is open; the other comments `@Name` on a card: the
 *   time from the comment's request to the `notification.created` frame on the first stream.
 * Prints one JSON object (p50 / p95 / max of `BENCH_ROUNDS`, default 30). Not a test: nothing is asserted.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { addMember, seedBoard } from '../test/support/fixtures.ts';
import { bearer, buildTestApp } from '../test/support/harness.ts';
import { openSse, type SseStream } from '../test/support/sse.ts';
import { percentile } from './webhook-lag.ts';

const engine = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const t = await buildTestApp(engine);
await t.app.listen({ port: 0, host: '127.0.0.1' });
const address = t.app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const ana = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: 'ana@acme.test', fullName: 'Ana Lopez' });
const { boardId, listIds } = await seedBoard(t.services, t.tenant, { lists: 1 });

async function call(method: 'POST', url: string, payload: unknown, key = t.tenant.apiKey) {
  const res = await fetch(`${base}${url}`, { method, headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, { _id: string }>;
}

const viewersIn = (frame: EventSourceMessage): string[] =>
  frame.event === 'presence' ? (JSON.parse(frame.data) as { viewers: { _id: string }[] }).viewers.map((one) => one._id) : [];
/** Resolves when a frame after the first `from` frames satisfies `check`. */
const frameAfter = (stream: SseStream, from: number, check: (frame: EventSourceMessage) => boolean, what: string) =>
  stream.until((s) => s.events.slice(from).some(check), what);
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { p50Ms: round(percentile(sorted, 50)), p95Ms: round(percentile(sorted, 95)), maxMs: round(sorted.at(-1) ?? Number.NaN) };
};

// presence: the owner watches; Ana comes and goes
const watching = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(t.tenant.apiKey));
await frameAfter(watching, 0, (frame) => viewersIn(frame).includes(t.tenant.userId), 'the owner sees themself');
const joined: number[] = [];
const left: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let from = watching.events.length;
  let start = performance.now();
  const visiting = await openSse(base, `/api/v1/boards/${boardId}/events?presence=true`, bearer(ana.apiKey));
  await frameAfter(watching, from, (frame) => viewersIn(frame).includes(ana.userId), 'Ana joins');
  joined.push(performance.now() - start);
  from = watching.events.length;
  start = performance.now();
  visiting.close();
  await frameAfter(watching, from, (frame) => frame.event === 'presence' && !viewersIn(frame).includes(ana.userId), 'Ana leaves');
  left.push(performance.now() - start);
}
watching.close();

// mentions: Ana's bell listens; the owner mentions her
const cardId = (await call('POST', '/api/v1/cards', { list: listIds[0], name: 'Launch' })).card!._id;
const bell = await openSse(base, '/api/v1/notifications/stream', bearer(ana.apiKey));
// the stream is listening once it has said so (its first comment frame or event)
await bell.until((s) => s.comments.length > 0 || s.events.length > 0, 'the bell listens');
const told: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const from = bell.events.length;
  const start = performance.now();
  await call('POST', `/api/v1/cards/${cardId}/comments`, { content: `Round ${round}: @AnaLopez please look` });
  await frameAfter(bell, from, (frame) => (JSON.parse(frame.data) as { type?: string }).type === 'notification.created', 'Ana is told');
  told.push(performance.now() - start);
}
bell.close();

console.log(JSON.stringify({ engine, rounds: ROUNDS, presenceJoined: summary(joined), presenceLeft: summary(left), mentionToBell: summary(told) }, null, 2));
await t.app.close();
await t.dispose();
