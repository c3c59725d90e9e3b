/**
 * A TCP proxy between the app and a real server (PostgreSQL), started inside a test, that injects
 * the network faults a database blip causes: every connection cut at once, connections refused,
 * or connections kept open with nothing going through (a database that accepts but never answers).
 */
import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';

interface Pair {
  client: Socket;
  /** Null while the proxy is silent: the upstream connection is opened on restore. */
  upstream: Socket | null;
  /** What silence held back, each way, delivered on restore. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #port = 0;
  #silent = false;
  #dropping = false;

  readonly targetHost: string;
  readonly targetPort: number;

  private constructor(targetHost: string, targetPort: number) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.#server = createServer((client) => this.#accept(client));
  }

  /** Listens on 127.0.0.1, on a free port, forwarding to `targetHost:targetPort`. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.#listen(0);
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  /** `url` (postgres://…) with its host and port replaced by the proxy's. */
  url(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.#port);
    return proxied.toString();
  }

  /** How many client connections are open through the proxy. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** The local ports of the upstream connections: the `client_port` of the app's backends in pg_stat_activity. */
  get upstreamPorts(): number[] {
    return [...this.#pairs].flatMap((pair) => (pair.upstream?.localPort ? [pair.upstream.localPort] : []));
  }

  /**
   * Destroys every connection at once, both ways (a crashed database, a failover). With `refuse`,
   * also stops listening, so new connections are refused until `restore()`.
   */
  async cut(options: { refuse?: boolean } = {}): Promise<void> {
    for (const pair of this.#pairs) this.#drop(pair);
    if (options.refuse && this.#server.listening) {
      this.#server.close();
      await once(this.#server, 'close');
    }
  }

  /**
   * Keeps every connection open and accepts new ones, but forwards nothing, either way. What is sent
   * meanwhile is held back for `restore()`, or with `drop` lost (a black-holed network: an answer a
   * client waits for never comes, even after the restore).
   */
  silence(options: { drop?: boolean } = {}): void {
    this.#silent = true;
    this.#dropping = options.drop ?? false;
  }

  /** Forwards again (what silence held back included) and accepts connections again. */
  async restore(): Promise<void> {
    this.#silent = false;
    for (const pair of this.#pairs) {
      if (!pair.upstream) this.#connectUpstream(pair);
      this.#flush(pair);
    }
    if (!this.#server.listening) await this.#listen(this.#port);
  }

  async close(): Promise<void> {
    for (const pair of this.#pairs) this.#drop(pair);
    if (this.#server.listening) {
      this.#server.close();
      await once(this.#server, 'close');
    }
  }

  async #listen(port: number): Promise<void> {
    this.#server.listen(port, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#port = (this.#server.address() as { port: number }).port;
  }

  #accept(client: Socket): void {
    const pair: Pair = { client, upstream: null, toUpstream: [], toClient: [] };
    this.#pairs.add(pair);
    client.on('error', () => this.#drop(pair));
    client.on('close', () => this.#drop(pair));
    client.on('data', (chunk: Buffer) => {
      if (this.#silent && this.#dropping) return;
      pair.toUpstream.push(chunk);
      this.#flush(pair);
    });
    if (!this.#silent) this.#connectUpstream(pair);
  }

  #flush(pair: Pair): void {
    if (this.#silent || !pair.upstream) return;
    for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
  }

  #connectUpstream(pair: Pair): void {
    const upstream = new Socket();
    pair.upstream = upstream;
    upstream.on('error', () => this.#drop(pair));
    upstream.on('close', () => this.#drop(pair));
    upstream.on('data', (chunk: Buffer) => {
      if (this.#silent && this.#dropping) return;
      pair.toClient.push(chunk);
      this.#flush(pair);
    });
    upstream.connect(this.targetPort, this.targetHost);
    this.#flush(pair);
  }

  #drop(pair: Pair): void {
    if (!this.#pairs.delete(pair)) return;
    // resetAndDestroy: an RST, as a crashed server's host sends, rather than a polite FIN.
    for (const socket of [pair.client, pair.upstream]) {
      if (!socket) continue;
      socket.resetAndDestroy();
      if (!socket.connecting) socket.destroy();
    }
  }
}
