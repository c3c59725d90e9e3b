import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OIDC_LOGIN_LIFETIME_MS, SingleSignOn, SingleSignOnRefused } from '../../../domain/people/oidc.ts';
import { NotFoundError } from '../../../domain/shared/errors.ts';
import { hostCookieOf, setHostCookie, setSessionCookie } from '../../../plugins/session-cookie.ts';
import { errorResponses, NoQuery } from '../../../schemas/common.ts';
import { OidcCallbackQuery, OidcStartQuery, SignInProvidersResponse } from '../../../schemas/oidc.ts';
import { operations } from '../../operation.ts';
import { sessionMeta } from './auth.ts';

/**
 * The browser's handle on a sign-in begun at the provider, until the callback: a cookie like the
 * session's (HttpOnly; SameSite=Lax, which the provider's top-level redirect back carries; over
 * HTTPS Secure with the `__Host-` prefix).
 */
const LOGIN_COOKIE = 'taskboard_oidc';
const SIGN_IN_PAGE = '/sign-in';

/** A refused sign-on goes back to the sign-in page, whose sentence for the code says what happened. */
function backToSignIn(request: FastifyRequest, reply: FastifyReply, error: SingleSignOnRefused) {
  request.log.info({ problem: error.problem, cause: (error.cause as Error | undefined)?.message }, `single sign-on refused: ${error.message}`);
  return reply.header('cache-control', 'no-store').redirect(`${SIGN_IN_PAGE}?error=${error.problem}`, 303);
}

const redirect = (description: string) => ({ 303: { description, headers: { Location: { type: 'string', description: 'where the browser goes next' } } } });

/** Single sign-on with an OpenID Connect provider (docs/people.md): whether it is on, its start and its callback. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const { issuer, clientId, clientSecret, redirectUrl, allowSignUp, timeoutMs, scopes, groupsClaim, groupMap } = app.config.people.oidc;
  const sso =
    issuer && clientId && redirectUrl
      ? new SingleSignOn({ issuer, clientId, clientSecret, redirectUrl, allowSignUp, timeoutMs, scopes, groupsClaim, groupRules: groupMap }, app.services.clock)
      : undefined;
  const configured = (): SingleSignOn => {
    if (!sso) throw new NotFoundError('Single sign-on (not set up on this server: OIDC_ISSUER)');
    return sso;
  };

  operations(app, ['people'])(
    'GET /auth/providers',
    {
      tier: 'very-low',
      public: true,
      operationId: 'listSignInProviders',
      summary: 'List Sign-In Providers: whether single sign-on is on, for the sign-in page',
      querystring: NoQuery,
      answer: SignInProvidersResponse,
      message: 'Sign-in providers',
    },
    async () => ({ singleSignOn: sso !== undefined, mail: app.config.people.mail.smtpUrl !== undefined }),
  );

  app.get(
    '/auth/oidc/start',
    {
      config: { tier: 'secure', public: true },
      schema: {
        tags: ['people'],
        operationId: 'startSingleSignOn',
        // a page a browser navigates to: its answer is a redirect, never JSON (the OpenAPI tests know the mark)
        'x-browser-redirect': true,
        summary: 'Start Single Sign-On: redirects the browser to the OpenID Connect provider',
        description:
          'Sets a short-lived HttpOnly cookie naming this sign-in (state, nonce and PKCE verifier stay on the server) and answers 303 to the provider. ' +
          'When the provider cannot be reached, 303 to `/sign-in?error=sso_unavailable`. 404 when single sign-on is not set up.',
        querystring: OidcStartQuery,
        response: { ...redirect("the provider's authorization page, or the sign-in page with an error code"), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const provider = configured();
      try {
        const begun = await provider.begin(app.services, request.query.next);
        setHostCookie(request, reply, LOGIN_COOKIE, begun.handle, { maxAge: OIDC_LOGIN_LIFETIME_MS / 1000 });
        return reply.header('cache-control', 'no-store').redirect(begun.url, 303);
      } catch (error) {
        if (error instanceof SingleSignOnRefused) return backToSignIn(request, reply, error);
        throw error;
      }
    },
  );

  app.get(
    '/auth/oidc/callback',
    {
      config: { tier: 'secure', public: true },
      schema: {
        tags: ['people'],
        operationId: 'finishSingleSignOn',
        // a page a browser navigates to: its answer is a redirect, never JSON (the OpenAPI tests know the mark)
        'x-browser-redirect': true,
        summary: "Finish Single Sign-On: the provider's redirect back; signs the person in",
        description:
          'Checks the answer against the sign-in this browser began (state, PKCE, nonce, ID token), then signs in the user of the verified email, ' +
          'or accepts its pending invitations, or (OIDC_ALLOW_SIGN_UP=true) makes a new user. Success: the session cookie and 303 to the `next` path. ' +
          'Refused: 303 to `/sign-in?error=<code>` (sso_unavailable, sso_cancelled, sso_failed, sso_email_unverified, sso_not_invited, sso_throttled).',
        querystring: OidcCallbackQuery,
        response: { ...redirect('the page to go to once signed in, or the sign-in page with an error code'), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const provider = configured();
      const handle = hostCookieOf(request, LOGIN_COOKIE);
      // the handle is good for one callback, whatever it answers
      if (handle) setHostCookie(request, reply, LOGIN_COOKIE, '', { maxAge: 0 });
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      try {
        const result = await provider.finish(app.services, app.sessionPolicy, app.config.people.signInFailures, handle, query, sessionMeta(request));
        reply.header('cache-control', 'no-store');
        if ('secondFactor' in result) {
          // the sign-in page asks for the code; the challenge rides in the fragment, never sent to a server or a Referer
          const { challenge, enrol } = result.secondFactor;
          return reply.redirect(`/sign-in#challenge=${encodeURIComponent(challenge)}${enrol ? '&enrol=1' : ''}`, 303);
        }
        setSessionCookie(request, reply, result.session.token, result.session.expiresAt);
        return reply.redirect(result.next, 303);
      } catch (error) {
        if (error instanceof SingleSignOnRefused) return backToSignIn(request, reply, error);
        throw error;
      }
    },
  );
};

export default routes;
