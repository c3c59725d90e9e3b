/**
 * Real mail servers for the mail tests: an SMTP server (the `smtp-server` package) on 127.0.0.1
 * that keeps every message it accepts, parsed; and a server that accepts connections and never says
 * a word (for the timeouts). A message is kept before the server answers its DATA, so once the
 * worker's send has resolved the test reads it here without waiting.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  from: string;
  subject: string;
  text: string;
}

export interface TestSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Starts an SMTP server on `port` (0: any free port). */
export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // plain SMTP on loopback: no TLS to set up, no credentials
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    async onData(stream, session, callback) {
      try {
        const parsed = await simpleParser(stream);
        received.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          subject: parsed.subject ?? '',
          text: parsed.text ?? '',
        });
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  server.listen(port, '127.0.0.1');
  await once(server.server, 'listening');
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface SilentServer {
  /** Connections it accepted, and how many of them the other side has closed (it never closes one). */
  accepted: number;
  closedByPeer: number;
  close(): Promise<void>;
}

/** A server on `port` that accepts connections and never answers (a mail server stuck before its greeting). */
export async function startSilentServer(port: number): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let closing = false;
  const silent: SilentServer = {
    accepted: 0,
    closedByPeer: 0,
    async close() {
      closing = true;
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  const server = createServer((socket) => {
    silent.accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (!closing) silent.closedByPeer++;
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return silent;
}

/** A port nothing listens on now (taken from the system, then let go). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
