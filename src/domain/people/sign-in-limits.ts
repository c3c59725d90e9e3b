import type { User } from '../../schemas/records.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { DomainError } from '../shared/errors.ts';
import type { StartedSession } from './sessions.ts';

/** How many failed sign-ins are admitted, per email and per client address, in a window. */
export interface SignInLimits {
  perEmail: number;
  perAddress: number;
  windowSeconds: number;
}

/** Too many failed sign-ins: a 429 with the seconds until the oldest counted failure leaves the window. */
export class SignInThrottled extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Too many failed sign-ins; try again later');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The SignInThrottled of the first subject (`email:…`, then `ip:…`) past its limit of failed
 * sign-ins in the window, if any.
 */
export async function refuseIfThrottled(ctx: ServiceContext, limits: SignInLimits, subjects: readonly string[], now: number): Promise<void> {
  const since = new Date(now - limits.windowSeconds * 1000).toISOString();
  const counts = await Promise.all(subjects.map((subject) => sessions.countSignInFailures(ctx.db, subject, since)));
  for (const [index, counted] of counts.entries()) {
    const limit = subjects[index]!.startsWith('email:') ? limits.perEmail : limits.perAddress;
    if (counted.count >= limit) {
      const oldest = counted.oldest ? Date.parse(counted.oldest) : now;
      throw new SignInThrottled(Math.max(1, Math.ceil((oldest + limits.windowSeconds * 1000 - now) / 1000)));
    }
  }
}

export interface SignedIn {
  user: User;
  session: StartedSession;
}
