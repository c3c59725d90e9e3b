/**
 * The Taskboard client in a few lines: create a card, toggle labels on it, and see how a 429 is met.
 *
 *   TASKBOARD_URL=http://127.0.0.1:3000 TASKBOARD_API_KEY=tb_… node --import tsx examples/quickstart.ts
 */
import { createTaskboardClient } from '../packages/client/src/index.ts';

const baseUrl = process.env.TASKBOARD_URL ?? 'http://127.0.0.1:3000';
const apiKey = process.env.TASKBOARD_API_KEY;
if (!apiKey) {
  console.error('set TASKBOARD_API_KEY (taskboard bootstrap prints one)');
  process.exit(2);
}

// Retries of 429/503 are built in: at most 4, never sooner than Retry-After, within a budget.
const api = createTaskboardClient({ baseUrl, apiKey, retry: { maxRetries: 4 } });

/** Answers the data of a successful call, or stops with the error body the server sent. */
function ok<T>(answer: { data?: T; error?: { code: string; message: string }; response: Response }): T {
  if (answer.data !== undefined) return answer.data;
  const { status, headers } = answer.response;
  if (status === 429) {
    // The client waited and retried already; this is what is left: wait as the server says, or slow down.
    console.error(`still rate limited after retrying: retry after ${headers.get('Retry-After')} s (${JSON.stringify(api.rateLimit)})`);
  }
  throw new Error(`${status} ${answer.error?.code}: ${answer.error?.message}`);
}

const me = ok(await api.GET('/api/v1/me'));
const team = me.teams[0];
if (!team) throw new Error('the key reaches no team');

const { board } = ok(await api.POST('/api/v1/boards', { params: { query: { teamId: team._id } }, body: { name: 'Quickstart' } }));
const { list } = ok(await api.POST('/api/v1/lists', { body: { board: board._id, name: 'To do' } }));
const { card } = ok(await api.POST('/api/v1/cards', { body: { list: list._id, name: 'Try the client' } }));
console.log(`created card ${card._id} "${card.name}"`);

const { colors } = ok(await api.GET('/api/v1/label-colors'));
const labels = [];
for (const [name, color] of [
  ['client', colors[0]],
  ['docs', colors[1]],
] as const) {
  labels.push(ok(await api.POST('/api/v1/boards/{boardId}/labels', { params: { path: { boardId: board._id } }, body: { name, color: color!._id } })).label);
}
const toggled = ok(await api.POST('/v2/cards/{cardId}/labels', { params: { path: { cardId: card._id } }, body: { labels: labels.map((l) => l._id) } }));
console.log(`labels now: ${toggled.card.labels.map((l) => l.name).join(', ')}`);

// The rate-limit state of the last answer: pace yourself before the server has to refuse.
const state = api.rateLimit;
if (state) console.log(`rate limit: tier ${state.tier}, ${state.remaining} left, a slot frees in ${state.resetIn} s`);
