/**
 * The import of a Trello board of N cards (each with a label, a member, a checklist of two items, a
 * comment for the first 1,000, and the fields Trello's export carries besides), into a real server
 * in a child process: the time from the POST to the import's end, the server's peak resident memory
 * over what it was before (sampled every 5 ms in the server), and the latency of Get List Card (page
 * of 50) on another board, read by BENCH_READERS loops (default 4) before and during the import,
 * and the server's event-loop delay meanwhile.
 *
 *   bash scripts/with-node.sh node --import tsx bench/import-board.ts <sqlite|postgres> [5000]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { bootstrap } from '../src/domain/account/bootstrap.ts';
import type { Engine } from '../src/storage/database-url.ts';
import { cardRow, seedBoard } from '../test/support/fixtures.ts';
import { openTestStorage, testConfig } from '../test/support/harness.ts';
import { bigTrelloExport } from '../test/support/trello.ts';

type Ready = { type: 'ready'; port: number; apiKey: string; teamId: string; listId: string };
type Peak = { type: 'peak'; beforeMB: number; peakMB: number; loopMaxMs: number; loopP99Ms: number };

const engine = (process.argv[2] === 'serve' ? process.argv[3] : process.argv[2]) as Engine;

if (process.argv[2] === 'serve') await serveChild();
else await measure();

/** The server: a tenant with another board of 200 cards to read meanwhile; RSS sampled on request. */
async function serveChild() {
  const test = await openTestStorage(engine);
  const app = await buildApp({
    config: testConfig({ rateLimit: { ...testConfig().rateLimit, enabled: false } }),
    storage: test.storage,
    rateLimiter: null,
    logger: false,
  });
  await app.ready();
  const tenant = await bootstrap(app.services, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
  const board = await seedBoard(app.services, tenant, { lists: 1 });
  const listId = board.listIds[0] as string;
  const list = { _id: listId, board: board.boardId, company: tenant.companyId, team: tenant.teamId };
  await app.services.db
    .insertInto('cards')
    .values(Array.from({ length: 200 }, (_, i) => cardRow(list, tenant.userId, `Other ${i}`, (i + 1) * 1024)))
    .execute();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  let before = 0;
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  process.on('message', (message: { type: string }) => {
    if (message.type === 'start') {
      global.gc?.();
      before = process.memoryUsage.rss();
      peak = before;
      delay.reset();
      delay.enable();
      sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      process.send?.({ type: 'started' });
    } else if (message.type === 'stop') {
      clearInterval(sampler);
      delay.disable();
      process.send?.({
        type: 'peak',
        beforeMB: before / 1e6,
        peakMB: peak / 1e6,
        loopMaxMs: delay.max / 1e6,
        loopP99Ms: delay.percentile(99) / 1e6,
      } satisfies Peak);
    } else if (message.type === 'exit') {
      void app.close().then(() => test.dispose().then(() => process.exit(0)));
    }
  });
  process.send?.({
    type: 'ready',
    port: typeof address === 'object' && address ? address.port : 0,
    apiKey: tenant.apiKey,
    teamId: tenant.teamId,
    listId,
  } satisfies Ready);
}

/** The export with what a real one carries on each card besides what the import reads. */
function realisticExport(cards: number) {
  const board = bigTrelloExport(cards) as { cards: Record<string, unknown>[] } & Record<string, unknown>;
  for (const [i, card] of board.cards.entries()) {
    Object.assign(card, {
      idBoard: board.id,
      idShort: i + 1,
      shortLink: `sL${i.toString(36).padStart(6, '0')}`,
      shortUrl: `https://trello.com/c/sL${i.toString(36).padStart(6, '0')}`,
      url: `https://trello.com/c/sL${i.toString(36).padStart(6, '0')}/${i + 1}-card-${i + 1}`,
      dateLastActivity: '2026-02-01T10:00:00.000Z',
      descData: { emoji: {} },
      badges: {
        attachmentsByType: { trello: { board: 0, card: 0 } },
        location: false,
        votes: 0,
        viewingMemberVoted: false,
        subscribed: false,
        fogbugz: '',
        checkItems: 2,
        checkItemsChecked: 1,
        comments: i < 1000 ? 1 : 0,
        attachments: 0,
        description: true,
        due: null,
        dueComplete: false,
        start: null,
      },
      idChecklists: [`d1${i.toString(16).padStart(22, '0')}`],
      idMembersVoted: [],
      checkItemStates: [],
      labels: [{ id: (board.labels as { id: string }[])[0]?.id, idBoard: board.id, name: 'Bug', color: 'red' }],
      cover: { idAttachment: null, color: null, idUploadedBackground: null, size: 'normal', brightness: 'dark', idPlugin: null },
      subscribed: false,
      manualCoverAttachment: false,
      isTemplate: false,
      cardRole: null,
    });
  }
  return JSON.stringify(board);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Reads `url` in `loops` loops until `stop()`; answers each read's milliseconds. */
async function read(url: string, key: string, loops: number, stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (!stop()) {
        const started = performance.now();
        const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`read: ${response.status}`);
        times.push(performance.now() - started);
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

function ask<T>(child: ChildProcess, type: string, answer: string): Promise<T> {
  const reply = new Promise<T>((resolve) => {
    const listener = (message: { type: string }) => {
      if (message.type === answer) {
        child.off('message', listener);
        resolve(message as T);
      }
    };
    child.on('message', listener);
  });
  child.send({ type });
  return reply;
}

async function measure() {
  const cards = Number(process.argv[3] ?? 5000);
  const readers = Number(process.env.BENCH_READERS ?? 4);
  const child = fork(fileURLToPath(import.meta.url), ['serve', engine], { execArgv: ['--expose-gc', '--import', 'tsx', '--conditions=taskboard-source'] });
  const [ready] = (await once(child, 'message')) as [Ready];
  const base = `http://127.0.0.1:${ready.port}`;
  const readUrl = `${base}/api/v1/lists/${ready.listId}/cards?limit=50`;
  const file = realisticExport(cards);
  // the other board's reads alone, first
  let quiet = false;
  const baselineStop = Date.now() + 3000;
  const baseline = await read(readUrl, ready.apiKey, readers, () => Date.now() > baselineStop || quiet);
  quiet = true;
  await ask(child, 'start', 'started');
  let done = false;
  const during = read(readUrl, ready.apiKey, readers, () => done);
  const started = performance.now();
  const form = new FormData();
  form.append('file', new Blob([file], { type: 'application/json' }), 'board.json');
  const response = await fetch(`${base}/api/v1/imports/trello?teamId=${ready.teamId}`, {
    method: 'POST',
    body: form,
    headers: { Authorization: `Bearer ${ready.apiKey}` },
  });
  if (response.status !== 202) throw new Error(`import: ${response.status} ${await response.text()}`);
  const accepted = performance.now() - started;
  const { import: started202 } = (await response.json()) as { import: { _id: string } };
  let record: { status: string; error: string | null; progress: { cardsDone: number } };
  for (;;) {
    const res = await fetch(`${base}/api/v1/imports/${started202._id}`, { headers: { Authorization: `Bearer ${ready.apiKey}` } });
    record = ((await res.json()) as { import: typeof record }).import;
    if (record.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ms = performance.now() - started;
  done = true;
  const reads = await during;
  const peak = await ask<Peak>(child, 'stop', 'peak');
  child.send({ type: 'exit' });
  await once(child, 'exit');
  if (record.status !== 'done') throw new Error(`the import failed: ${record.error}`);
  console.log(
    JSON.stringify({
      engine,
      cards,
      fileMB: +(Buffer.byteLength(file) / 1e6).toFixed(1),
      ms: Math.round(ms),
      acceptedMs: Math.round(accepted),
      rssBeforeMB: Math.round(peak.beforeMB),
      rssGrowthMB: +(peak.peakMB - peak.beforeMB).toFixed(1),
      // the server's longest wait of its event loop during the import: what a request could wait at most
      eventLoopDelay: { p99: Math.round(peak.loopP99Ms), max: Math.round(peak.loopMaxMs) },
      otherBoard: {
        readers,
        before: { reads: baseline.length, p50: +percentile(baseline, 50).toFixed(1), p99: +percentile(baseline, 99).toFixed(1) },
        during: { reads: reads.length, p50: +percentile(reads, 50).toFixed(1), p99: +percentile(reads, 99).toFixed(1), max: +(reads.at(-1) ?? 0).toFixed(1) },
      },
    }),
  );
}
