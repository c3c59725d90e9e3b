import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getMe } from '../../../domain/account/service.ts';
import { Directory } from '../../../domain/people/directory.ts';
import type { SecurityMail } from '../../../domain/people/mail.ts';
import {
  finishPasskeyRegistration,
  finishPasskeySignIn,
  listPasskeys,
  type RelyingParty,
  removePasskey,
  startPasskeyRegistration,
  startPasskeySignIn,
} from '../../../domain/people/passkeys.ts';
import { Sealer } from '../../../domain/people/sealing.ts';
import {
  beginEnrolmentAtSignIn,
  beginTotpEnrolment,
  confirmTotpEnrolment,
  disableTotp,
  finishSignIn,
  getSecondFactors,
  type SecondFactorPolicy,
  startPasskeyAtSignIn,
} from '../../../domain/people/second-factor.ts';
import { endSession, listSessions, type SessionMeta } from '../../../domain/people/sessions.ts';
import { checkSetupToken, completeSetup } from '../../../domain/people/setup.ts';
import { changePassword, type SignedIn, SignInThrottled, signIn, signOut } from '../../../domain/people/sign-in.ts';
import { ForbiddenError, NotFoundError } from '../../../domain/shared/errors.ts';
import { allowedOrigin, clearSessionCookie, setSessionCookie } from '../../../plugins/session-cookie.ts';
import { errorResponses, NoQuery } from '../../../schemas/common.ts';
import {
  ChallengeBody,
  ChangePasswordBody,
  ConfirmTotpBody,
  CurrentSessionResponse,
  DisableTotpBody,
  FinishedSignInResponse,
  FinishSignInBody,
  MessageResponse,
  Passkey,
  PasskeyOptionsResponse,
  PasskeyParams,
  PasskeySignInBody,
  PasskeySignInOptionsResponse,
  PasskeysResponse,
  RecoveryCodesResponse,
  RegisterPasskeyBody,
  SecondFactorsResponse,
  SessionParams,
  SessionsResponse,
  SetupBody,
  SetupCheckResponse,
  SetupParams,
  SetupResponse,
  SignedInResponse,
  SignInBody,
  SignInResponse,
  TotpEnrolmentResponse,
} from '../../../schemas/people.ts';
import { operations } from '../../operation.ts';

/** What a new session records of the browser that opened it. */
export function sessionMeta(request: FastifyRequest): SessionMeta {
  const agent = request.headers['user-agent'];
  return { userAgent: typeof agent === 'string' ? agent : undefined, ip: request.ip };
}

/** Sets the new session's cookie and answers what the browser needs next: the user and the CSRF token. */
export function signedIn(request: FastifyRequest, reply: FastifyReply, result: SignedIn) {
  setSessionCookie(request, reply, result.session.token, result.session.expiresAt);
  // an answer that sets a session cookie is never stored by a cache
  reply.header('cache-control', 'no-store');
  return { user: result.user, csrfToken: result.session.csrfToken };
}

/** A public change made from a browser (sign-in, setup, accept) must come from an allowed origin: no login CSRF. */
export function refuseCrossSite(request: FastifyRequest): void {
  if (!allowedOrigin(request)) throw new ForbiddenError("Cross-site request refused: its Origin is not this service's");
}

/** Where a security notice's link points, when the server sends mail; undefined: no mail is set up. */
export function securityMail(app: FastifyInstance, request: FastifyRequest): SecurityMail | undefined {
  const people = app.config.people;
  return people.mail.smtpUrl === undefined ? undefined : { baseUrl: people.publicUrl ?? `${request.protocol}://${request.host}` };
}

/** Signing in and out, the caller's sessions and password, first-run setup (docs/people.md). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['people']);
  const policy = () => app.sessionPolicy;
  const secondFactor: SecondFactorPolicy = {
    sealer: new Sealer(app.config.people.secondFactor.key),
    issuer: app.config.people.secondFactor.issuer,
  };
  const people = app.config.people;
  const { ldap } = people;
  const directory = ldap.url
    ? new Directory(
        {
          url: ldap.url,
          bindDn: ldap.bindDn,
          bindPassword: ldap.bindPassword,
          searchBase: ldap.searchBase,
          searchFilter: ldap.searchFilter,
          startTls: ldap.startTls,
          timeoutMs: ldap.timeoutMs,
          groupSearchBase: ldap.groupSearchBase,
          groupFilter: ldap.groupFilter,
        },
        ldap.groupMap,
      )
    : undefined;
  /** Whom passkeys are made for: the configured domain and origins, else PUBLIC_URL's, else the request's own. */
  const relyingParty = (request: FastifyRequest): RelyingParty => {
    const publicUrl = people.publicUrl ? new URL(people.publicUrl) : undefined;
    const configured = people.secondFactor.passkeyOrigins;
    return {
      id: people.secondFactor.passkeyRpId ?? publicUrl?.hostname ?? request.hostname,
      origins: configured.length ? configured : [publicUrl?.origin ?? `${request.protocol}://${request.host}`],
      name: people.secondFactor.issuer,
    };
  };
  const throttled = (reply: FastifyReply, error: unknown) => {
    if (error instanceof SignInThrottled) reply.header('retry-after', String(error.retryAfterSeconds));
    return error;
  };

  route(
    'POST /auth/sign-in',
    {
      tier: 'secure',
      public: true,
      operationId: 'signIn',
      summary: 'Sign In: email and password → the session cookie and the CSRF token, or the challenge of the second factor',
      description:
        'Sets the session cookie (`taskboard_session`, or `__Host-taskboard_session` over HTTPS: HttpOnly, SameSite=Lax). ' +
        'A wrong password and an unknown email answer the same 401. Failed sign-ins are limited per email and per client address (429 with Retry-After). ' +
        'A person with a second factor (or whose company requires one) gets no cookie but `secondFactor`: send its challenge with a code to Finish Sign In.',
      querystring: NoQuery,
      body: SignInBody,
      answer: SignInResponse,
      errors: [403],
      message: (_input, result) => ('secondFactor' in result ? 'Your password is right: now the code of your second factor' : 'Signed in'),
    },
    async ({ request, reply, body }) => {
      refuseCrossSite(request);
      try {
        const result = await signIn(app.services, policy(), app.config.people.signInFailures, body, sessionMeta(request), directory);
        reply.header('cache-control', 'no-store');
        if ('secondFactor' in result) return { secondFactor: result.secondFactor } as never;
        return signedIn(request, reply, result) as never;
      } catch (error) {
        throw throttled(reply, error);
      }
    },
  );

  route(
    'POST /auth/sign-in/second-factor',
    {
      tier: 'secure',
      public: true,
      operationId: 'finishSignIn',
      summary: 'Finish Sign In: the challenge of the password step and a code of the app (or a recovery code) → the session cookie',
      description:
        'A wrong code is a failed sign-in of the email and the address (the limits of Sign In, 429 with Retry-After); a challenge admits 5 wrong codes, ' +
        'lives 5 minutes and works once. A code once accepted is refused after (no reuse); a recovery code works once. ' +
        'For a person who must enrol (`enrol: true`), the code of the app just set up (Start App Setup At Sign In) finishes it, and the answer holds the recovery codes.',
      querystring: NoQuery,
      body: FinishSignInBody,
      answer: FinishedSignInResponse,
      errors: [403],
      message: 'Signed in',
    },
    async ({ request, reply, body }) => {
      refuseCrossSite(request);
      try {
        const result = await finishSignIn(
          app.services,
          secondFactor,
          policy(),
          app.config.people.signInFailures,
          body as never,
          sessionMeta(request),
          relyingParty(request),
        );
        return { ...signedIn(request, reply, result), ...(result.recoveryCodes ? { recoveryCodes: result.recoveryCodes } : {}) };
      } catch (error) {
        throw throttled(reply, error);
      }
    },
  );

  route(
    'POST /auth/sign-in/totp',
    {
      tier: 'secure',
      public: true,
      operationId: 'startSignInTotpSetup',
      summary: 'Start App Setup At Sign In: for a person whose company requires a second factor, the secret and QR code of their app',
      description: 'Only with a challenge whose `enrol` is true (else 409). The app is on once its code finishes the sign-in.',
      querystring: NoQuery,
      body: ChallengeBody,
      answer: TotpEnrolmentResponse,
      errors: [403, 409],
      message: 'Scan the code with your authenticator app',
    },
    async ({ request, reply, body }) => {
      refuseCrossSite(request);
      reply.header('cache-control', 'no-store');
      return beginEnrolmentAtSignIn(app.services, secondFactor, body.challenge);
    },
  );

  route(
    'POST /auth/sign-in/passkey',
    {
      tier: 'secure',
      public: true,
      operationId: 'startSignInPasskey',
      summary: "Start Passkey At Sign In: the options to answer the password step's challenge with one of the person's passkeys",
      description: 'Then Finish Sign In with `{challenge, passkey}`. 404 when the person has no passkey.',
      querystring: NoQuery,
      body: ChallengeBody,
      answer: PasskeyOptionsResponse,
      errors: [403, 409],
      message: 'Use one of your passkeys',
    },
    async ({ request, body }) => {
      refuseCrossSite(request);
      return { options: (await startPasskeyAtSignIn(app.services, relyingParty(request), body.challenge)) as never };
    },
  );

  route(
    'POST /auth/passkey/options',
    {
      tier: 'secure',
      public: true,
      operationId: 'startPasskeySignIn',
      summary: 'Start Passkey Sign In: the options for signing in with a passkey alone (a discoverable credential)',
      querystring: NoQuery,
      optionalBody: true,
      answer: PasskeySignInOptionsResponse,
      errors: [403],
      message: 'Choose a passkey',
    },
    async ({ request }) => {
      refuseCrossSite(request);
      const started = await startPasskeySignIn(app.services, relyingParty(request));
      return { handle: started.handle, options: started.options as never };
    },
  );

  route(
    'POST /auth/passkey',
    {
      tier: 'secure',
      public: true,
      operationId: 'signInWithPasskey',
      summary: 'Sign In With Passkey: the handle and the authenticator’s answer → the session cookie and the CSRF token',
      description:
        'The passkey must verify its person (user verification), so it stands for both factors; a company requiring a second factor accepts it. ' +
        'A refused answer counts as a failed sign-in of the address (429 with Retry-After past the limit).',
      querystring: NoQuery,
      body: PasskeySignInBody,
      answer: SignedInResponse,
      errors: [403],
      message: 'Signed in',
    },
    async ({ request, reply, body }) => {
      refuseCrossSite(request);
      try {
        const result = await finishPasskeySignIn(
          app.services,
          relyingParty(request),
          policy(),
          app.config.people.signInFailures,
          body as never,
          sessionMeta(request),
        );
        return signedIn(request, reply, result);
      } catch (error) {
        throw throttled(reply, error);
      }
    },
  );

  route(
    'GET /me/passkeys',
    {
      tier: 'very-low',
      operationId: 'listPasskeys',
      summary: "List Passkeys: the caller's passkeys, by name (never a key)",
      querystring: NoQuery,
      answer: PasskeysResponse,
      message: 'Passkeys',
    },
    async ({ caller }) => ({ passkeys: await listPasskeys(app.services, caller) }),
  );

  route(
    'POST /me/passkeys/options',
    {
      tier: 'secure',
      operationId: 'startPasskeyRegistration',
      summary: 'Start Passkey Registration: the options for navigator.credentials.create (a discoverable credential, user verified)',
      description: 'A person signed in only (an API key: 403). Then Add Passkey with the answer, within 5 minutes.',
      querystring: NoQuery,
      optionalBody: true,
      answer: PasskeyOptionsResponse,
      message: 'Create a passkey',
    },
    async ({ caller, request }) => ({ options: (await startPasskeyRegistration(app.services, relyingParty(request), caller)) as never }),
  );

  route(
    'POST /me/passkeys',
    {
      tier: 'secure',
      operationId: 'addPasskey',
      summary: "Add Passkey: the authenticator's answer to the registration just started, kept under a name",
      querystring: NoQuery,
      body: RegisterPasskeyBody,
      answer: ['passkey', Passkey],
      status: 201,
      location: () => '/api/v1/me/passkeys',
      message: 'Passkey added',
    },
    async ({ caller, request, body }) => finishPasskeyRegistration(app.services, relyingParty(request), caller, body as never),
  );

  route(
    'DELETE /me/passkeys/:passkeyId',
    {
      tier: 'secure',
      operationId: 'removePasskey',
      summary: "Remove Passkey: one of the caller's passkeys no longer signs in",
      params: PasskeyParams,
      querystring: NoQuery,
      answer: ['passkey', Passkey],
      message: 'Passkey removed',
    },
    async ({ caller, params, request }) => removePasskey(app.services, caller, params.passkeyId, securityMail(app, request)),
  );

  route(
    'GET /me/second-factors',
    {
      tier: 'very-low',
      operationId: 'getSecondFactors',
      summary: "Get Second Factors: whether the caller's authenticator app is on, and how many recovery codes are left",
      querystring: NoQuery,
      answer: SecondFactorsResponse,
      message: 'Second factors',
    },
    async ({ caller }) => getSecondFactors(app.services, caller),
  );

  route(
    'POST /me/second-factors/totp',
    {
      tier: 'secure',
      operationId: 'startTotpSetup',
      summary: 'Start App Setup: a new secret and its QR code; not asked for until a code confirms it',
      description: 'A person signed in only (an API key: 403). 409 when an app is on already. Starting again replaces an unconfirmed secret.',
      querystring: NoQuery,
      optionalBody: true,
      answer: TotpEnrolmentResponse,
      errors: [409],
      message: 'Scan the code with your authenticator app',
    },
    async ({ caller, reply }) => {
      reply.header('cache-control', 'no-store');
      return beginTotpEnrolment(app.services, secondFactor, caller);
    },
  );

  route(
    'POST /me/second-factors/totp/confirm',
    {
      tier: 'secure',
      operationId: 'confirmTotpSetup',
      summary: 'Confirm App Setup: a code the app shows turns the second factor on, and answers ten recovery codes (once)',
      querystring: NoQuery,
      body: ConfirmTotpBody,
      answer: RecoveryCodesResponse,
      errors: [409],
      message: 'Your authenticator app is on. Keep the recovery codes somewhere safe: each works once',
    },
    async ({ caller, body, reply }) => {
      reply.header('cache-control', 'no-store');
      return confirmTotpEnrolment(app.services, secondFactor, caller, body.code);
    },
  );

  route(
    'POST /me/second-factors/totp/disable',
    {
      tier: 'secure',
      operationId: 'disableTotp',
      summary: 'Disable App: the password and a code of the app (or a recovery code) turn the second factor off',
      querystring: NoQuery,
      body: DisableTotpBody,
      answer: MessageResponse,
      message: 'Your authenticator app is off',
    },
    async ({ caller, body, request }) => {
      await disableTotp(app.services, secondFactor, caller, body, securityMail(app, request));
      return {};
    },
  );

  app.route({
    method: 'POST',
    url: '/auth/sign-out',
    config: { tier: 'low' },
    schema: {
      tags: ['people'],
      operationId: 'signOut',
      summary: 'Sign Out: ends the session of this request and clears its cookie',
      querystring: NoQuery,
      response: { 204: { type: 'null' }, ...errorResponses(403) },
    },
    handler: async (request, reply) => {
      await signOut(app.services, request.caller);
      clearSessionCookie(request, reply);
      return reply.status(204).send(null as never);
    },
  });

  route(
    'GET /auth/session',
    {
      tier: 'very-low',
      operationId: 'getCurrentSession',
      summary: 'Get Current Session: who is signed in, and the CSRF token to send with changes',
      querystring: NoQuery,
      answer: CurrentSessionResponse,
      message: 'Current session',
    },
    async ({ caller }) => {
      if (!caller.session) throw new NotFoundError('Session (this request uses an API key)');
      const me = await getMe(app.services, caller);
      const session = (await listSessions(app.services, policy(), caller)).find((s) => s.current);
      if (!session) throw new NotFoundError('Session');
      const expiresAt = new Date(Date.parse(session.createdAt) + app.sessionPolicy.absoluteMs).toISOString();
      return { user: me.user, session: { _id: caller.session.id, expiresAt }, csrfToken: caller.session.csrfToken };
    },
  );

  route(
    'GET /auth/sessions',
    {
      tier: 'very-low',
      operationId: 'listSessions',
      summary: "List Sessions: the caller's own live sessions (never a token)",
      querystring: NoQuery,
      answer: SessionsResponse,
      message: 'Sessions',
    },
    async ({ caller }) => ({ sessions: await listSessions(app.services, policy(), caller) }),
  );

  app.route({
    method: 'DELETE',
    url: '/auth/sessions/:sessionId',
    config: { tier: 'secure' },
    schema: {
      tags: ['people'],
      operationId: 'endSession',
      summary: "End Session: one of the caller's sessions; its cookie is refused from now on, on every instance",
      params: SessionParams,
      querystring: NoQuery,
      response: { 204: { type: 'null' }, ...errorResponses(403) },
    },
    handler: async (request, reply) => {
      const { sessionId } = request.params as { sessionId: string };
      await endSession(app.services, request.caller, sessionId);
      if (sessionId === request.caller.session?.id) clearSessionCookie(request, reply);
      return reply.status(204).send(null as never);
    },
  });

  route(
    'PATCH /me/password',
    {
      tier: 'secure',
      operationId: 'changePassword',
      summary: "Change Password: the current one, then the new one; the caller's other sessions end",
      querystring: NoQuery,
      body: ChangePasswordBody,
      answer: MessageResponse,
      message: 'Password changed; your other sessions have ended',
    },
    async ({ caller, body }) => {
      await changePassword(app.services, caller, body);
      return {};
    },
  );

  route(
    'GET /setup/:token',
    {
      tier: 'secure',
      public: true,
      operationId: 'checkSetup',
      summary: 'Check Setup Link: whether this first-run token still sets the service up',
      params: SetupParams,
      querystring: NoQuery,
      answer: SetupCheckResponse,
      message: 'Setup link',
    },
    async ({ params }) => {
      if (!(await checkSetupToken(app.services, app.setupToken, params.token))) throw new NotFoundError('Setup link (already used, or this server has users)');
      return { valid: true };
    },
  );

  route(
    'POST /setup',
    {
      tier: 'secure',
      public: true,
      operationId: 'completeSetup',
      summary: 'Complete Setup: the first company, team and owner (with a password); signs the owner in',
      querystring: NoQuery,
      body: SetupBody,
      answer: SetupResponse,
      status: 201,
      location: () => '/api/v1/auth/session',
      errors: [403],
      message: 'Welcome to Taskboard',
    },
    async ({ request, reply, body }) => {
      refuseCrossSite(request);
      const result = await completeSetup(app.services, policy(), app.setupToken, body, sessionMeta(request));
      app.setupToken = undefined;
      return { ...signedIn(request, reply, result), companyId: result.companyId, teamId: result.teamId };
    },
  );
};

export default routes;
