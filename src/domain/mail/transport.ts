import { createRequire } from 'node:module';

// nodemailer is loaded where SMTP_URL is set: a server that sends no mail never holds it.
const require = createRequire(import.meta.url);

/** One mail as the worker hands it over: plain text, to one address. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** Where the mail worker sends (SMTP in a server; tests may give their own). */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Nodemailer over SMTP (`SMTP_URL`, `smtps:` for TLS from the start; a server that offers STARTTLS
 * gets it). Every wait is bounded by `timeoutMs`: the connection, the greeting, DNS, and each
 * silence of the socket; a connection per send (no pool), so a server that died between two sends
 * costs nothing but the next attempt. Nodemailer's own logger stays off: its debug output holds
 * the message, and a message may hold a sign-in link.
 */
export function smtpTransport(options: { url: string; from: string; timeoutMs: number }): MailTransport {
  const { url, from, timeoutMs } = options;
  const { createTransport } = require('nodemailer') as typeof import('nodemailer');
  const transporter = createTransport(
    { url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs, dnsTimeout: timeoutMs, logger: false, debug: false },
    { from },
  );
  return {
    async send(mail) {
      await transporter.sendMail({ to: mail.to, subject: mail.subject, text: mail.text });
    },
    close() {
      transporter.close();
    },
  };
}
