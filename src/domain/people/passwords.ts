import { createRequire } from 'node:module';
import { ValidationError } from '../shared/errors.ts';

/**
 * Password hashing: argon2id with OWASP's Password Storage Cheat Sheet parameters (19 MiB, 2
 * passes, 1 lane). A stored hash made with other parameters is made again at the next sign-in
 * (`needsRehash`), so raising them needs no reset of anyone's password.
 */
export const ARGON2_PARAMETERS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

// argon2 and the common-passwords list are loaded on their first use: a server that nobody signs
// in to (API keys only) never holds them.
const require = createRequire(import.meta.url);
const argon2 = () => require('@node-rs/argon2') as typeof import('@node-rs/argon2');

/** The common-passwords list zxcvbn-ts maintains (the most used passwords of public breaches). */
let common: ReadonlySet<string> | undefined;
const commonPasswords = () => {
  common ??= new Set((require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common')).dictionary['passwords-common']);
  return common;
};

export function hashPassword(password: string): Promise<string> {
  return argon2().hash(password, ARGON2_PARAMETERS as never);
}

export function verifyPassword(stored: string, password: string): Promise<boolean> {
  return argon2()
    .verify(stored, password)
    .catch(() => false);
}

export function needsRehash(stored: string): boolean {
  try {
    const used = argon2().parseOptions(stored);
    return (
      (used.algorithm as number) !== ARGON2_PARAMETERS.algorithm ||
      used.memoryCost !== ARGON2_PARAMETERS.memoryCost ||
      used.timeCost !== ARGON2_PARAMETERS.timeCost ||
      used.parallelism !== ARGON2_PARAMETERS.parallelism
    );
  } catch {
    return true;
  }
}

/**
 * A hash of no one's password, verified when the email is unknown, so that an unknown email and a
 * wrong password take the same time.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(`decoy-${Math.random()}-${Date.now()}`);
  return decoy;
}

/** Refuses a password outside 12–256 characters or on the common list; `field` names it in the 400. */
export function checkNewPassword(password: string, field = 'body.password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new ValidationError(`The password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, [
      { field, message: `must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
    ]);
  }
  if (commonPasswords().has(password.toLowerCase())) {
    throw new ValidationError('This password is among the most common ones; choose another', [{ field, message: 'is a common password' }]);
  }
}
