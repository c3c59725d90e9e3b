/**
 * The few browser globals the web app's modules touch when imported (`window.location`, storage,
 * `navigator.onLine`), so their logic can be tested under node's test runner; and a stand-in for the
 * API behind `fetch`. Import this before any module of `web/src`.
 */
class MemoryStorage {
  #items = new Map<string, string>();
  getItem = (key: string) => this.#items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.#items.set(key, String(value));
  removeItem = (key: string) => void this.#items.delete(key);
  clear = () => this.#items.clear();
}

export const ORIGIN = 'http://board.test';
const page = new EventTarget() as EventTarget & { location: { origin: string } };
page.location = { origin: ORIGIN };
Object.assign(globalThis, { window: page, localStorage: new MemoryStorage(), sessionStorage: new MemoryStorage() });
Object.defineProperty(globalThis.navigator, 'onLine', { configurable: true, get: () => true });

export interface Answer {
  status: number;
  body: unknown;
}
/** The requests the page made (`PATCH /api/v1/cards/c1/position`), and the answer each got from `answer`. */
export function fakeApi(answer: (method: string, path: string, body: unknown) => Answer): string[] {
  const asked: string[] = [];
  globalThis.fetch = async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const path = new URL(request.url).pathname;
    asked.push(`${request.method} ${path}`);
    const text = await request.text();
    const { status, body } = answer(request.method, path, text ? JSON.parse(text) : undefined);
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  };
  return asked;
}
