import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { anyUserExists, lockSetup, setPasswordHash } from '../../storage/repositories/people.ts';
import { userRecord } from '../account/records.ts';
import { findOrCreateUser, insertCompanyOwnedBy, normaliseEmail } from '../companies/companies.ts';
import { insertTeamWithCreator } from '../companies/teams.ts';
import type { ServiceContext } from '../context.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';
import { inTransaction } from '../shared/transaction.ts';
import { checkNewPassword, hashPassword } from './passwords.ts';
import { type SessionMeta, type SessionPolicy, startSession } from './sessions.ts';
import type { SignedIn } from './sign-in.ts';

/**
 * First run: while the database has no user, the server holds one setup token (in memory, its
 * hash only) and logs a link with it. The token creates the first company, team and owner once;
 * it is refused as soon as any user exists, whoever made it.
 */
export class SetupToken {
  readonly token: string;
  readonly #hash: Buffer;
  constructor(token = randomBytes(32).toString('base64url')) {
    this.token = token;
    this.#hash = digest(token);
  }
  matches(presented: string): boolean {
    return timingSafeEqual(this.#hash, digest(presented));
  }
}

function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** A setup token when the database has no user yet, else undefined. */
export async function setupTokenIfEmpty(ctx: ServiceContext): Promise<SetupToken | undefined> {
  return (await anyUserExists(ctx.db)) ? undefined : new SetupToken();
}

function refused(): NotFoundError {
  return new NotFoundError('Setup link (already used, or this server has users)');
}

/** Whether `presented` still sets the service up. */
export async function checkSetupToken(ctx: ServiceContext, held: SetupToken | undefined, presented: string): Promise<boolean> {
  return Boolean(held?.matches(presented)) && !(await anyUserExists(ctx.db));
}

export interface SetupInput {
  token: string;
  companyName: string;
  teamName: string;
  fullName: string;
  email: string;
  password: string;
}

/** Creates the first company, team and owner (with a password) and signs the owner in. */
export async function completeSetup(
  ctx: ServiceContext,
  policy: SessionPolicy,
  held: SetupToken | undefined,
  input: SetupInput,
  meta: SessionMeta,
): Promise<SignedIn & { companyId: string; teamId: string }> {
  if (!held?.matches(input.token)) throw refused();
  const email = normaliseEmail(input.email);
  for (const [field, value] of [
    ['companyName', input.companyName],
    ['teamName', input.teamName],
    ['fullName', input.fullName],
  ] as const) {
    if (!value.trim()) throw new ValidationError(`${field} must not be blank`, [{ field: `body.${field}`, message: 'must not be blank' }]);
  }
  checkNewPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  return inTransaction(ctx, async (trx) => {
    // one setup at a time: the second finds the first's user and is refused
    await lockSetup(trx);
    if (await anyUserExists(trx)) throw refused();
    const at = nowIso();
    const user = await findOrCreateUser(trx, email, input.fullName, at);
    await setPasswordHash(trx, user.id, passwordHash);
    const company = await insertCompanyOwnedBy(trx, null, input.companyName, user.id, at);
    const team = await insertTeamWithCreator(trx, null, company.id, input.teamName, user.id, at);
    const session = await startSession(trx, policy, user.id, meta);
    return { user: userRecord(user), session, companyId: company.id, teamId: team.id };
  });
}
