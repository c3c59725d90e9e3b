/** A real SSE client over HTTP for the live-stream suites: it parses frames with eventsource-parser. */
import { request } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseStream {
  status: number;
  /** The body of a refused request (no stream), whole: such a stream is answered once it has ended. */
  body: string;
  events: EventSourceMessage[];
  comments: string[];
  /** Resolves once `condition` holds over what has arrived (checked at each frame), or rejects when the stream ends first. */
  until(condition: (stream: SseStream) => boolean, what: string): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openSse(baseUrl: string, path: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let endedResolve!: () => void;
      const waiters = new Set<{ check: () => boolean; resolve: () => void; reject: (error: Error) => void; what: string }>();
      let finished = false;
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        body: '',
        events: [],
        comments: [],
        until(condition, what) {
          if (condition(stream)) return Promise.resolve();
          if (finished) return Promise.reject(new Error(`the stream ended before: ${what}`));
          return new Promise((resolve, reject) => waiters.add({ check: () => condition(stream), resolve, reject, what }));
        },
        ended: new Promise((resolve) => (endedResolve = resolve)),
        close: () => req.destroy(),
      };
      const settle = () => {
        for (const waiter of [...waiters]) {
          if (waiter.check()) {
            waiters.delete(waiter);
            waiter.resolve();
          } else if (finished) {
            waiters.delete(waiter);
            waiter.reject(new Error(`the stream ended before: ${waiter.what}`));
          }
        }
      };
      const parser = createParser({
        onEvent: (event) => stream.events.push(event),
        onComment: (comment) => stream.comments.push(comment),
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) stream.body += chunk;
        else parser.feed(chunk);
        settle();
      });
      const finish = () => {
        if (finished) return;
        finished = true;
        settle();
        endedResolve();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      // A refused request has no stream: answer it once its body has arrived, which may come in a
      // later chunk than the head under load.
      if (stream.status === 200) resolve(stream);
      else void stream.ended.then(() => resolve(stream));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The parsed `data` of each event received. */
export function eventsOf(stream: SseStream): Array<{ _id: string; type: string; card: string | null; board: string | null }> {
  return stream.events.map((event) => JSON.parse(event.data));
}
