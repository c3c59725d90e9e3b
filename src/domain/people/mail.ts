import type { Language } from '../../schemas/records.ts';
import type { Executor } from '../../storage/database.ts';
import { insertMail } from '../../storage/repositories/invitations.ts';
import { newId } from '../shared/ids.ts';

/**
 * The mail outbox: a mail is a row written in the same transaction as its cause, and the mail
 * worker (src/domain/mail/worker.ts) sends it later with bounded waits and retries, so a slow or
 * dead mail server never slows a request and a crash loses nothing.
 */
export async function enqueueMail(trx: Executor, mail: { to: string; subject: string; body: string; language: Language }): Promise<void> {
  const now = new Date().toISOString();
  await insertMail(trx, {
    id: newId(),
    to_address: mail.to,
    // sent alone, at once (notifications are gathered by src/domain/mail/notification-mail.ts)
    kind: 'message',
    user_id: null,
    subject: mail.subject,
    body: mail.body,
    language: mail.language,
    created_at: now,
    next_attempt_at: now,
    sent_at: null,
    last_error: null,
  });
}
