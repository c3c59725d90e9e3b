import { hash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as OpenId from 'openid-client';
import * as invitations from '../../storage/repositories/invitations.ts';
import { insertOidcLogin, takeOidcLogin } from '../../storage/repositories/oidc-logins.ts';
import * as sessions from '../../storage/repositories/sessions.ts';
import { findUserByEmail } from '../../storage/repositories/users.ts';
import { userRecord } from '../account/records.ts';
import { recordAudit } from '../audit/log.ts';
import { findOrCreateUser, retryOnceOnUniqueViolation } from '../companies/companies.ts';
import { applyGroupMapping, type GroupRule, matchesGroup } from '../companies/group-mapping.ts';
import type { ServiceContext } from '../context.ts';
import { type Clock, systemClock } from '../shared/clock.ts';
import { joinInvited } from './invitations.ts';
import { secondFactorChallenge } from './second-factor.ts';
import { type SessionMeta, type SessionPolicy, startSession } from './sessions.ts';
import { refuseIfThrottled, type SecondFactorNeeded, type SignedIn, type SignInLimits, SignInThrottled } from './sign-in.ts';

// openid-client is loaded at the first single sign-on: a server without a provider never holds it.
const require = createRequire(import.meta.url);
const openId = () => require('openid-client') as typeof OpenId;

/**
 * Single sign-on with an OpenID Connect provider (docs/people.md): the authorization code flow
 * with PKCE, state and nonce, by `openid-client`. The provider's verified email is the person:
 * it signs in the user of that email, or accepts the email's pending invitations, or, when sign-up
 * is allowed, makes a new user; anyone else is refused.
 */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** None: a public client, which PKCE alone protects. */
  clientSecret?: string | undefined;
  redirectUrl: string;
  allowSignUp: boolean;
  /** The bound of every request to the provider (discovery, token, userinfo). */
  timeoutMs: number;
  /** The scopes asked for; default `openid email profile`. */
  scopes?: string | undefined;
  /** The claim listing the person's groups; default `groups`. */
  groupsClaim?: string | undefined;
  /** The claim's values to company roles and teams, applied at each sign-on; none: memberships are left alone. */
  groupRules?: readonly GroupRule[] | undefined;
}

/** The values of the groups claim: a list of strings, or one string; undefined when the provider sent no such claim. */
function groupsOf(claims: Record<string, unknown>, claim: string): string[] | undefined {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((one): one is string => typeof one === 'string');
  return undefined;
}

/** Why a single sign-on did not sign anyone in: the code the sign-in page shows a sentence for. */
export type SingleSignOnProblem =
  /** The provider did not answer in time, or not at all. */
  | 'sso_unavailable'
  /** The person cancelled at the provider (or it refused them). */
  | 'sso_cancelled'
  /** The answer did not check out: wrong or missing state, an expired or reused start, a bad token. */
  | 'sso_failed'
  /** The provider does not vouch for the email. */
  | 'sso_email_unverified'
  /** A verified email with no account and no invitation, and sign-up is off. */
  | 'sso_not_invited'
  /** Too many failed sign-ins from this address. */
  | 'sso_throttled';

export class SingleSignOnRefused extends Error {
  readonly problem: SingleSignOnProblem;
  constructor(problem: SingleSignOnProblem, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SingleSignOnRefused';
    this.problem = problem;
  }
}

/** Refusals that count as a failed sign-in of the address: not the provider's being down, nor a person's cancelling there. */
const COUNTED_AS_FAILURE: ReadonlySet<SingleSignOnProblem> = new Set(['sso_failed', 'sso_email_unverified', 'sso_not_invited']);

/** How long a sign-in begun waits for its callback: a person typing a password and a second factor at the provider. */
export const OIDC_LOGIN_LIFETIME_MS = 10 * 60_000;

export interface BegunSignIn {
  /** The provider's authorization URL to send the browser to. */
  url: string;
  /** The browser's proof that it began this sign-in (a cookie until the callback): stored as its SHA-256 only. */
  handle: string;
}

export type FinishedSignIn = (SignedIn | SecondFactorNeeded) & {
  /** The same-origin path to go to now. */
  next: string;
};

const hashOf = (value: string) => hash('sha256', value, 'hex');

/** Errors of reaching the provider at all (network, timeout), as against answers that do not check out. */
function unreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON';
}

/** The connection closed under the request (not refused, not timed out): a fetch on a kept-alive socket the other side had just closed. */
function socketClosed(error: unknown): boolean {
  const code = (error instanceof TypeError ? (error.cause as { code?: unknown } | undefined) : undefined)?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

/** The provider's word on the email: OpenID Connect says a boolean; a few providers send the string. */
function verified(value: unknown): boolean {
  return value === true || value === 'true';
}

function fullNameOf(claims: Record<string, unknown>, email: string): string {
  const name = typeof claims.name === 'string' ? claims.name.trim() : '';
  if (name) return name.slice(0, 200);
  const parts = [claims.given_name, claims.family_name].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return (parts.join(' ').trim() || email.split('@')[0] || email).slice(0, 200);
}

/** One configured provider. Discovery is lazy (the server starts when the provider is down) and kept once it succeeds. */
export class SingleSignOn {
  readonly #settings: OidcSettings;
  readonly #clock: Clock;
  #configuration: Promise<OpenId.Configuration> | undefined;

  constructor(settings: OidcSettings, clock: Clock = systemClock) {
    this.#settings = settings;
    this.#clock = clock;
  }

  /** The provider's metadata, read once; a failed read is forgotten, so the next sign-in tries again. */
  #configured(): Promise<OpenId.Configuration> {
    if (!this.#configuration) {
      const { issuer, clientId, clientSecret, timeoutMs } = this.#settings;
      const server = new URL(issuer);
      const discover = () =>
        openId().discovery(server, clientId, clientSecret, clientSecret ? openId().ClientSecretPost(clientSecret) : openId().None(), {
          timeout: timeoutMs / 1000,
          // an http:// issuer is the administrator's own choice (a provider on the same host or in tests)
          ...(server.protocol === 'http:' ? { execute: [openId().allowInsecureRequests] } : {}),
        });
      // A kept-alive connection the provider closed just as it was reused fails at once: one more try.
      const discovered = discover()
        .catch((error: unknown) => (socketClosed(error) ? discover() : Promise.reject(error)))
        .catch((error: unknown) => {
          this.#configuration = undefined;
          throw new SingleSignOnRefused('sso_unavailable', `The sign-on provider ${issuer} could not be reached`, { cause: error });
        });
      this.#configuration = discovered;
    }
    return this.#configuration;
  }

  /** Begins a sign-in: a row of what the callback must find, and the provider's URL with the PKCE challenge. */
  async begin(ctx: ServiceContext, next: string | undefined): Promise<BegunSignIn> {
    const configuration = await this.#configured();
    const handle = randomBytes(32).toString('base64url');
    const state = openId().randomState();
    const nonce = openId().randomNonce();
    const codeVerifier = openId().randomPKCECodeVerifier();
    const now = this.#clock.now();
    await insertOidcLogin(
      ctx.db,
      {
        handle_hash: hashOf(handle),
        state,
        nonce,
        code_verifier: codeVerifier,
        next_path: next ?? '/',
        expires_at: new Date(now + OIDC_LOGIN_LIFETIME_MS).toISOString(),
      },
      new Date(now).toISOString(),
    );
    const url = openId().buildAuthorizationUrl(configuration, {
      redirect_uri: this.#settings.redirectUrl,
      scope: this.#settings.scopes ?? 'openid email profile',
      code_challenge: await openId().calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, handle };
  }

  /**
   * Finishes a sign-in at the callback: the browser's handle finds its row (once), the provider's
   * answer is checked against it (state, PKCE, nonce, the ID token) and exchanged, and the verified
   * email decides who signs in. A refusal of the answer or of the person counts as a failed sign-in
   * of the client address, as a wrong password does; a success clears the email's count.
   */
  async finish(
    ctx: ServiceContext,
    policy: SessionPolicy,
    limits: SignInLimits,
    handle: string | undefined,
    query: string,
    meta: SessionMeta,
  ): Promise<FinishedSignIn> {
    const now = this.#clock.now();
    const address = meta.ip ? [`ip:${meta.ip}`] : [];
    try {
      await refuseIfThrottled(ctx, limits, address, now);
    } catch (error) {
      if (error instanceof SignInThrottled) throw new SingleSignOnRefused('sso_throttled', error.message);
      throw error;
    }
    try {
      return await this.#finish(ctx, policy, handle, query, meta, now);
    } catch (error) {
      if (error instanceof SingleSignOnRefused && COUNTED_AS_FAILURE.has(error.problem) && address.length) {
        await sessions.recordSignInFailures(ctx.db, address, new Date(now).toISOString());
      }
      if (error instanceof SingleSignOnRefused) {
        await recordAudit(ctx.db, { userId: null, client: meta }, { kind: 'sign_in.failed', company: null, details: { reason: error.problem, method: 'sso' } });
      }
      throw error;
    }
  }

  async #finish(
    ctx: ServiceContext,
    policy: SessionPolicy,
    handle: string | undefined,
    query: string,
    meta: SessionMeta,
    now: number,
  ): Promise<FinishedSignIn> {
    const login = handle ? await takeOidcLogin(ctx.db, hashOf(handle), new Date(now).toISOString()) : undefined;
    if (!login) throw new SingleSignOnRefused('sso_failed', 'This sign-in was not begun in this browser, or took too long: start again');
    const configuration = await this.#configured();
    const callback = new URL(this.#settings.redirectUrl);
    callback.search = query;
    let tokens: Awaited<ReturnType<typeof OpenId.authorizationCodeGrant>>;
    try {
      tokens = await openId().authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: login.code_verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof openId().AuthorizationResponseError) {
        const cancelled = error.error === 'access_denied';
        throw new SingleSignOnRefused(cancelled ? 'sso_cancelled' : 'sso_failed', `The sign-on provider answered ${error.error}`, { cause: error });
      }
      if (unreachable(error)) throw new SingleSignOnRefused('sso_unavailable', 'The sign-on provider could not be reached', { cause: error });
      throw new SingleSignOnRefused('sso_failed', "The sign-on provider's answer did not check out", { cause: error });
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new SingleSignOnRefused('sso_failed', 'The sign-on provider sent no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    const groupsClaim = this.#settings.groupsClaim ?? 'groups';
    const mapping = this.#settings.groupRules ?? [];
    // Providers that follow the specification to the letter put the email (and often the groups) in the userinfo answer only.
    if (typeof claims.email !== 'string' || claims.email_verified === undefined || (mapping.length && claims[groupsClaim] === undefined)) {
      try {
        claims = { ...(await openId().fetchUserInfo(configuration, tokens.access_token, idClaims.sub)), ...idClaims };
      } catch (error) {
        if (unreachable(error)) throw new SingleSignOnRefused('sso_unavailable', 'The sign-on provider could not be reached', { cause: error });
        throw new SingleSignOnRefused('sso_failed', "The sign-on provider's userinfo did not check out", { cause: error });
      }
    }
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!email) throw new SingleSignOnRefused('sso_email_unverified', 'The sign-on provider gave no email');
    if (!verified(claims.email_verified)) throw new SingleSignOnRefused('sso_email_unverified', `The sign-on provider has not verified ${email}`);
    const signedIn = await this.#signInByEmail(ctx, policy, email, fullNameOf(claims, email), meta, groupsOf(claims, groupsClaim));
    return { ...signedIn, next: login.next_path };
  }

  /**
   * The user of the email signs in; else its pending invitations are accepted; else sign-up, when
   * allowed (or when the groups give the person a company). Then the groups decide the person's
   * companies and teams, when a mapping is set and the provider sent the claim. One transaction.
   */
  async #signInByEmail(
    ctx: ServiceContext,
    policy: SessionPolicy,
    email: string,
    fullName: string,
    meta: SessionMeta,
    groups: string[] | undefined,
  ): Promise<SignedIn | SecondFactorNeeded> {
    const rules = groups === undefined ? [] : (this.#settings.groupRules ?? []);
    return retryOnceOnUniqueViolation(ctx, async (trx) => {
      const at = new Date(this.#clock.now()).toISOString();
      let user = await findUserByEmail(trx, email);
      const linked = user === undefined;
      if (!user) {
        const invited = await invitations.findLiveInvitationsOfEmail(trx, email, at);
        const grouped = groups !== undefined && rules.some((rule) => matchesGroup(rule, groups));
        if (!invited.length && !grouped && !this.#settings.allowSignUp)
          throw new SingleSignOnRefused('sso_not_invited', `${email} has no account here and no invitation: ask an administrator to invite you`);
        user = await findOrCreateUser(trx, email, fullName, at);
        for (const invitation of invited) {
          if (await invitations.markAccepted(trx, invitation.id, at)) await joinInvited(trx, invitation, user.id, at);
        }
      }
      // the groups decide before the second factor is asked (a company they give may require one)
      const unresolved = rules.length && groups ? (await applyGroupMapping(trx, rules, user.id, groups, at)).unresolved : [];
      // a second factor is asked after single sign-on too: the provider's word replaces the password only
      const secondFactor = await secondFactorChallenge(ctx, user.id, 'sso', trx);
      if (secondFactor) return { secondFactor };
      await sessions.clearSignInFailures(trx, `email:${email}`);
      await recordAudit(
        trx,
        { userId: user.id, client: meta },
        {
          kind: 'sign_in.succeeded',
          company: { ofUser: user.id },
          target: { type: 'user', id: user.id },
          details: { method: 'sso', email, newAccount: linked, ...(unresolved.length ? { unmappedRules: unresolved } : {}) },
        },
        at,
      );
      return { user: userRecord(user), session: await startSession(trx, policy, user.id, meta) };
    });
  }
}
