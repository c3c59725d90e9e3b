import type { Language } from '../../schemas/records.ts';
import type { Executor } from '../../storage/database.ts';
import { findCompanyById } from '../../storage/repositories/companies.ts';
import { insertMail } from '../../storage/repositories/invitations.ts';
import { findUserById } from '../../storage/repositories/users.ts';
import { mailLanguage, mailText } from '../mail/messages.ts';
import type { ClientMeta } from '../shared/caller.ts';
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

/** Where the account page is, when the server sends mail; absent: no mail is set up. */
export interface SecurityMail {
  baseUrl: string;
}

/** A sign-in factor that went away: the person's app turned off, a passkey removed, or every factor reset by an owner. */
export type FactorNotice =
  | { kind: 'app_off'; client?: ClientMeta | undefined }
  | { kind: 'passkey_removed'; name: string; client?: ClientMeta | undefined }
  | { kind: 'reset'; ownerId: string; companyId: string; required: boolean };

/**
 * Tells a person by mail that a factor of their sign-in went away, in the transaction that removed it:
 * someone who took over the session or an owner acting wrongly is then seen by the person, who can act
 * (OWASP's MFA cheat sheet: notify the user of changes to their factors). Nothing when no mail is set up.
 */
export async function mailFactorNotice(trx: Executor, mail: SecurityMail | undefined, userId: string, notice: FactorNotice): Promise<void> {
  if (!mail) return;
  const user = await findUserById(trx, userId);
  if (!user) return;
  const language = mailLanguage(user.locale);
  const account = `${mail.baseUrl}/account`;
  if (notice.kind === 'reset') {
    const [owner, company] = await Promise.all([findUserById(trx, notice.ownerId), findCompanyById(trx, notice.companyId)]);
    const words = {
      owner: owner?.full_name ?? mailText(language, 'someone'),
      company: company?.name ?? '',
      email: user.email,
      required: notice.required ? 'yes' : 'no',
      url: account,
    };
    await enqueueMail(trx, {
      to: user.email,
      language,
      subject: mailText(language, 'factorsResetSubject'),
      body: mailText(language, 'factorsResetBody', words),
    });
    return;
  }
  const address = notice.client?.ip;
  const words = {
    email: user.email,
    hasAddress: address ? 'yes' : 'no',
    address: address ?? '',
    name: notice.kind === 'passkey_removed' ? notice.name : '',
    url: account,
  };
  const [subject, body] = notice.kind === 'app_off' ? (['appOffSubject', 'appOffBody'] as const) : (['passkeyRemovedSubject', 'passkeyRemovedBody'] as const);
  await enqueueMail(trx, { to: user.email, language, subject: mailText(language, subject), body: mailText(language, body, words) });
}
