import { Type } from 'typebox';

/** Single sign-on (docs/people.md): what the sign-in page asks, and the two browser routes. */

export const SignInProvidersResponse = Type.Object({
  message: Type.String(),
  singleSignOn: Type.Boolean({ description: 'whether GET /api/v1/auth/oidc/start signs people in with the configured OpenID Connect provider' }),
  mail: Type.Boolean({ description: 'whether the server sends mail: without it a reset link comes from a company owner or admin' }),
});

export const OidcStartQuery = Type.Object(
  {
    next: Type.Optional(
      Type.String({
        maxLength: 2000,
        // a path of this site: "//host" or a backslash would let a browser leave it
        pattern: '^/(?![/])[^\\s\\\\]*$',
        description: 'a path of this site to go to once signed in (default /)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The provider's answer: its parameters are checked by the sign-in itself, which reads the whole
 * query. OAuth 2.0 (RFC 6749, 4.1.2) lets a provider add parameters the client must ignore
 * (session_state, scope, authuser, ...): any other string is admitted, not refused.
 */
export const OidcCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    iss: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false, patternProperties: { '^[A-Za-z0-9_.-]{1,100}$': Type.String() } },
);
