/**
 * The card dialog's measure for `bench/web.ts`: a card with 50 comments, 5 checklists of 20 items
 * and 20 attachments (10 images, 10 text files) on a board of its own; from the click on the card
 * in a freshly loaded board page to the dialog usable (its checklists, first page of comments and
 * attachments on screen), and to the dialog shown (its title). Each run is a fresh page: the first
 * clicks as soon as the card shows (the dialog's code is fetched then), the others once the board's
 * idle time has fetched it, as when a person looks at the board before opening a card.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from '@playwright/test';
import { percentile } from './webhook-lag.ts';

type Call = <T = Record<string, { _id: string }>>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => Promise<T>;

declare const document: { querySelectorAll(selector: string): { length: number } };

/** A 1×1 GIF: an image attachment the list shows as a thumbnail. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export async function measureCardDialog(options: { call: Call; base: string; key: string; teamId: string; context: BrowserContext; runs?: number }) {
  const { call, base, key, context } = options;
  const boardId = (await call('POST', `/api/v1/boards?teamId=${options.teamId}`, { name: 'Card dialog bench' })).board!._id;
  const listId = (await call('POST', '/api/v1/lists', { board: boardId, name: 'Busy' })).list!._id;
  const cardId = (await call('POST', '/api/v1/cards', { list: listId, name: 'A busy card', description: 'Everything **at once**.' })).card!._id;
  for (let i = 0; i < 50; i++)
    await call('POST', `/api/v1/cards/${cardId}/comments`, { content: `Comment ${i + 1} with *some* Markdown and a [link](https://example.com)` });
  for (let c = 0; c < 5; c++) {
    const checklistId = (await call('POST', `/api/v1/cards/${cardId}/checklists`, { name: `Checklist ${c + 1}` })).checklist!._id;
    for (let i = 0; i < 20; i++) await call('POST', `/api/v1/checklists/${checklistId}/items`, { name: `Item ${c + 1}.${i + 1}` });
  }
  for (let i = 0; i < 20; i++) {
    const form = new FormData();
    form.append(
      'file',
      i % 2 ? new Blob([`notes ${i}`], { type: 'text/plain' }) : new Blob([GIF], { type: 'image/gif' }),
      i % 2 ? `notes-${i}.txt` : `image-${i}.gif`,
    );
    const response = await fetch(`${base}/api/v1/cards/${cardId}/attachments`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  }

  const times: number[] = [];
  const shown: number[] = [];
  const reads = new Map<string, { start: number[]; end: number[] }>();
  for (let run = 0; run < (options.runs ?? 6); run++) {
    const page = await context.newPage();
    await page.goto(`/boards/${boardId}`);
    const card = page.locator(`[data-card-id="${cardId}"]`);
    await card.waitFor();
    // After the first run, click once the board has settled: its idle time fetched the dialog's code.
    // (a function, not a string: polling a string evaluates it, which the page's CSP refuses)
    if (run > 0) await page.waitForFunction(() => performance.getEntriesByType('resource').some((entry) => entry.name.includes('/assets/CardDialog-')));
    // Timed in the page, from the click event to the first frame that shows the state: the
    // driver's own round trips (it is slow on a loaded machine) are not the dialog's.
    await page.evaluate(`void (globalThis.__opened = new Promise((resolve) => {
      document.addEventListener('click', (event) => {
        const start = event.timeStamp;
        let shown = 0;
        const frame = () => {
          const now = performance.now();
          if (!shown && document.querySelector('.card-dialog .dialog-title')) shown = now - start;
          const usable =
            document.querySelectorAll('.card-dialog .checklist').length === 5 &&
            document.querySelectorAll('.card-dialog .item').length === 100 &&
            document.querySelectorAll('.card-dialog .comment-list > li').length >= 20 &&
            document.querySelectorAll('.card-dialog .attachment').length === 20;
          if (usable) {
            // where the time went: each request of the page after the click, from the click to its start and to its end
            const reads = performance.getEntriesByType('resource')
              .filter((entry) => entry.startTime >= start)
              .map((entry) => ({ what: new URL(entry.name).pathname.replace(/[0-9a-f]{24}/g, ':id'), start: entry.startTime - start, end: entry.responseEnd - start }));
            resolve({ shown, usable: now - start, reads });
          }
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }, { capture: true, once: true });
    }))`);
    const profiling = process.env.BENCH_PROFILE && run === 2 ? await context.newCDPSession(page) : undefined;
    if (profiling) {
      await profiling.send('Profiler.enable');
      await profiling.send('Profiler.setSamplingInterval', { interval: 100 });
      await profiling.send('Profiler.start');
    }
    await card.click();
    if (profiling) {
      await page.evaluate('globalThis.__opened');
      const { profile } = (await profiling.send('Profiler.stop')) as unknown as {
        profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] };
      };
      const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
      const self = new Map<string, number>();
      profile.samples.forEach((id, i) => {
        const frame = byNode.get(id)?.callFrame;
        const key = `${frame?.functionName || '(anon)'} ${frame?.url.split('/').pop()}:${frame?.lineNumber}`;
        self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
      });
      process.stderr.write(
        `${[...self]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 40)
          .map(([k, v]) => `${v.toFixed(1)} ms ${k}`)
          .join('\n')}\n`,
      );
    }
    const opened = (await page.evaluate('globalThis.__opened')) as { shown: number; usable: number; reads: { what: string; start: number; end: number }[] };
    shown.push(opened.shown);
    // the runs with the dialog's code already fetched
    if (run > 0)
      for (const read of opened.reads) {
        const known = reads.get(read.what) ?? { start: [], end: [] };
        known.start.push(read.start);
        known.end.push(read.end);
        reads.set(read.what, known);
      }
    times.push(opened.usable);
    await page.close();
  }
  const first = times[0] ?? 0;
  const rest = times.slice(1).sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const shownRest = shown.slice(1).sort((a, b) => a - b);
  const upload = await measureUpload(context, boardId, cardId);
  return {
    upload,
    runs: times.length,
    firstMs: round(first),
    p50Ms: round(percentile(rest, 50)),
    maxMs: round(rest.at(-1) ?? 0),
    // the dialog with the card's name, before its parts arrive
    shownFirstMs: round(shown[0] ?? 0),
    shownP50Ms: round(percentile(shownRest, 50)),
    // each request after the click (runs with the code fetched): p50 of its start and its end, from the click
    readsP50Ms: Object.fromEntries(
      [...reads].map(([what, { start, end }]) => [
        what,
        {
          n: start.length,
          start: round(
            percentile(
              [...start].sort((a, b) => a - b),
              50,
            ),
          ),
          end: round(
            percentile(
              [...end].sort((a, b) => a - b),
              50,
            ),
          ),
        },
      ]),
    ),
  };
}

/**
 * A 20 MB file attached through the dialog's picker: how long it took, how many distinct progress
 * values the bar showed, the longest gap between two frames of the page meanwhile (a blocked page
 * shows as a long gap), and how much the bench process's RSS (the server is in it) grew at its peak.
 */
async function measureUpload(context: BrowserContext, boardId: string, cardId: string) {
  const bytes = 20 * 1024 * 1024;
  const path = join(tmpdir(), `taskboard-bench-${process.pid}.bin`);
  writeFileSync(path, Buffer.alloc(bytes, 1));
  const page = await context.newPage();
  await page.goto(`/boards/${boardId}?card=${cardId}`);
  await page.locator('.card-dialog .dialog-title').waitFor();
  // A string, not a function: tsx's transform would add helpers the page does not have.
  await page.evaluate(`(() => {
    const seen = { gaps: 0, values: new Set(), last: 0 };
    globalThis.__uploadWatch = seen;
    const frame = (time) => {
      if (seen.last) seen.gaps = Math.max(seen.gaps, time - seen.last);
      seen.last = time;
      const bar = document.querySelector('.uploads progress');
      if (bar) seen.values.add(bar.value);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })()`);
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  await page.locator('.card-dialog .attachments input[type=file]').setInputFiles(path);
  await page.locator('.card-dialog .attachment-name', { hasText: `taskboard-bench-${process.pid}.bin` }).waitFor({ timeout: 120_000 });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const watch = (await page.evaluate('({ gaps: globalThis.__uploadWatch.gaps, values: globalThis.__uploadWatch.values.size })')) as {
    gaps: number;
    values: number;
  };
  await page.close();
  rmSync(path, { force: true });
  return {
    megabytes: 20,
    seconds: Math.round(seconds * 100) / 100,
    progressValuesShown: watch.values,
    longestFrameGapMs: Math.round(watch.gaps),
    processRssGrowthMB: Math.round(((peak - baseline) / 1024 / 1024) * 10) / 10,
  };
}
