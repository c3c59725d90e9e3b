import { Type } from 'typebox';
import { Id, Text, Timestamp } from './common.ts';
import { User } from './records.ts';

/** People sign in (docs/people.md): passwords, sessions, setup, invitations, resets. */

// Text refuses control characters (PostgreSQL cannot store U+0000): an email or a name with one is a 400, not a failed query.
const Email = Text({ maxLength: 254, blank: false, description: 'matched without regard to case' });
/** 12–256 characters and not a common password (checked by the service, which names the rule). */
const Password = Type.String({ minLength: 1, maxLength: 1024, description: '12 to 256 characters, not one of the most common passwords' });
const Name = Text({ maxLength: 200, blank: false });
const CsrfToken = Type.String({ description: 'send it back in the X-CSRF-Token header of every change made with the session cookie' });
const Token = Text({ maxLength: 200, blank: false });

export const SignInBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false });

export const SignedInResponse = Type.Object({ message: Type.String(), user: User, csrfToken: CsrfToken });

export const Session = Type.Object(
  {
    _id: Id,
    createdAt: Timestamp,
    lastSeenAt: Timestamp,
    userAgent: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'the session of this request' }),
  },
  { additionalProperties: false },
);

export const SessionsResponse = Type.Object({ message: Type.String(), sessions: Type.Array(Session) });

export const CurrentSessionResponse = Type.Object({
  message: Type.String(),
  user: User,
  session: Type.Object({ _id: Id, expiresAt: Timestamp }),
  csrfToken: CsrfToken,
});

export const SessionParams = Type.Object({ sessionId: Id }, { additionalProperties: false });

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 1024 }), newPassword: Password },
  { additionalProperties: false },
);

export const MessageResponse = Type.Object({ message: Type.String() });

export const SetupCheckResponse = Type.Object({ message: Type.String(), valid: Type.Boolean() });
export const SetupParams = Type.Object({ token: Token }, { additionalProperties: false });
export const SetupBody = Type.Object(
  { token: Token, companyName: Name, teamName: Name, fullName: Name, email: Email, password: Password },
  { additionalProperties: false },
);
export const SetupResponse = Type.Object({ message: Type.String(), user: User, csrfToken: CsrfToken, companyId: Id, teamId: Id });

export const PasswordResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export const PasswordResetParams = Type.Object({ token: Token }, { additionalProperties: false });
export const PasswordResetBody = Type.Object({ password: Password }, { additionalProperties: false });

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);

export const Invitation = Type.Object(
  {
    _id: Id,
    company: Id,
    email: Type.String(),
    role: Role,
    teams: Type.Array(Id),
    invitedBy: Type.Union([Id, Type.Null()]),
    board: Type.Union([Id, Type.Null()], { description: 'the board it was made from (its Share button): the invitee lands there' }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
  },
  { additionalProperties: false },
);

export const CompanyParams = Type.Object({ companyId: Id }, { additionalProperties: false });
export const InvitationParams = Type.Object({ companyId: Id, invitationId: Id }, { additionalProperties: false });
export const MemberParams = Type.Object({ companyId: Id, userId: Id }, { additionalProperties: false });
export const InvitationTokenParams = Type.Object({ token: Token }, { additionalProperties: false });

export const CreateInvitationBody = Type.Object(
  {
    email: Email,
    role: Role,
    teams: Type.Optional(Type.Array(Id, { maxItems: 100, description: 'teams of the company the invitee joins' })),
    board: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export const CreatedInvitationResponse = Type.Object({
  message: Type.String(),
  invitation: Invitation,
  url: Type.String({ description: 'the link to hand over (also mailed when mail is set up); shown once' }),
  mailed: Type.Boolean({ description: 'whether the link is also mailed (the server has mail set up); false: hand the link over yourself' }),
});
export const InvitationsResponse = Type.Object({ message: Type.String(), invitations: Type.Array(Invitation) });
export const InvitationResponse = Type.Object({ message: Type.String(), invitation: Invitation });
export const InvitationPreviewResponse = Type.Object({
  message: Type.String(),
  companyName: Type.String(),
  inviterName: Type.Union([Type.String(), Type.Null()]),
  email: Type.String(),
  role: Role,
  expiresAt: Timestamp,
  teams: Type.Array(Type.Object({ _id: Id, name: Type.String() }), { description: 'the teams the invitee joins' }),
  board: Type.Union([Type.Object({ _id: Id, name: Type.String() }), Type.Null()], { description: 'the board the invitee lands on' }),
  hasPassword: Type.Boolean({ description: 'the invited email has an account with a password: sign in as it, then accept' }),
});
export const AcceptInvitationBody = Type.Object(
  { fullName: Type.Optional(Name), password: Type.Optional(Password) },
  { additionalProperties: false, description: 'both, unless the caller is signed in with the invited email' },
);
export const AcceptedInvitationResponse = Type.Object({
  message: Type.String(),
  user: User,
  csrfToken: Type.Union([CsrfToken, Type.Null()], { description: 'null when the caller was signed in already (its session goes on)' }),
});
export const PasswordResetPreviewResponse = Type.Object({ message: Type.String(), email: Type.String(), expiresAt: Timestamp });
export const ResetLinkResponse = Type.Object({ message: Type.String(), url: Type.String({ description: 'the reset link to hand over; valid 1 hour' }) });

/** Second factors (docs/people.md, "Second factor"). */
const Challenge = Type.String({ minLength: 1, maxLength: 200, description: 'the challenge of the password step; single-use, valid 5 minutes' });
const OneTimeCode = Type.String({ minLength: 1, maxLength: 20, description: 'the 6 digits the authenticator app shows now' });
const RecoveryCode = Type.String({ minLength: 1, maxLength: 40, description: 'one of the recovery codes (each works once)' });

export const SecondFactorNeededResponse = Type.Object({
  message: Type.String(),
  secondFactor: Type.Object(
    {
      challenge: Challenge,
      expiresAt: Timestamp,
      methods: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code'), Type.Literal('passkey')]), {
        description: 'what may finish the sign-in',
      }),
      enrol: Type.Boolean({ description: 'a company of the person requires a second factor and they have none: set one up to finish signing in' }),
    },
    { additionalProperties: false },
  ),
});

export const SignInResponse = Type.Union([SignedInResponse, SecondFactorNeededResponse], {
  description: 'signed in; or, for a person with a second factor, the challenge to send with the code (no session yet)',
});

export const FinishSignInBody = Type.Object(
  {
    challenge: Challenge,
    code: Type.Optional(OneTimeCode),
    recoveryCode: Type.Optional(RecoveryCode),
    passkey: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "a passkey's answer to Start Passkey At Sign In (AuthenticationResponseJSON)" }),
    ),
  },
  { additionalProperties: false, description: 'the challenge, and one of the code, a recovery code, or a passkey’s answer' },
);
export const FinishedSignInResponse = Type.Object({
  message: Type.String(),
  user: User,
  csrfToken: CsrfToken,
  recoveryCodes: Type.Optional(Type.Array(Type.String(), { description: 'made when this sign-in set up the app: shown once' })),
});
export const ChallengeBody = Type.Object({ challenge: Challenge }, { additionalProperties: false });

export const TotpEnrolmentResponse = Type.Object({
  message: Type.String(),
  secret: Type.String({ description: 'Base32, for an app that cannot scan the code' }),
  otpauthUrl: Type.String(),
  qrCode: Type.String({ description: 'the otpauth URL as a QR code: an SVG data URL' }),
});
export const SecondFactorsResponse = Type.Object({
  message: Type.String(),
  totp: Type.Object({ enabled: Type.Boolean(), confirmedAt: Type.Union([Timestamp, Type.Null()]) }, { additionalProperties: false }),
  recoveryCodesLeft: Type.Integer({ minimum: 0 }),
});
export const ConfirmTotpBody = Type.Object({ code: OneTimeCode }, { additionalProperties: false });
export const RecoveryCodesResponse = Type.Object({
  message: Type.String(),
  recoveryCodes: Type.Array(Type.String(), { description: 'ten single-use codes, shown once (only their hashes are kept)' }),
});
export const DisableTotpBody = Type.Object(
  {
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    code: Type.String({ minLength: 1, maxLength: 40, description: 'a code of the app, or a recovery code' }),
  },
  { additionalProperties: false },
);

export const CompanyFactorsResponse = Type.Object({
  message: Type.String(),
  required: Type.Boolean({ description: 'every member must have a second factor: one without sets one up at their next sign-in' }),
  members: Type.Array(
    Type.Object(
      {
        user: Id,
        email: Type.String(),
        fullName: Type.String(),
        role: Role,
        methods: Type.Array(Type.String(), { description: 'the second factors set up (`totp`); empty: none' }),
      },
      { additionalProperties: false },
    ),
  ),
});
export const SetCompanyFactorsBody = Type.Object({ required: Type.Boolean() }, { additionalProperties: false });

/** A company's sign-in policy (docs/people.md, "Single sign-on only"). */
export const SignInPolicyResponse = Type.Object({
  message: Type.String(),
  singleSignOnOnly: Type.Boolean({
    description: "members sign in through the directory or the OpenID Connect provider only; the company's owners keep their passwords (break-glass)",
  }),
  singleSignOnAvailable: Type.Boolean({
    description: 'this server has single sign-on set up (LDAP or OpenID Connect); without it the policy cannot be turned on',
  }),
});
export const SetSignInPolicyBody = Type.Object({ singleSignOnOnly: Type.Boolean() }, { additionalProperties: false });

/** Passkeys (docs/people.md, "Passkeys"): what WebAuthn's browser API takes and gives, as JSON. */
const WebAuthnJson = (description: string) => Type.Object({}, { additionalProperties: true, description });
export const Passkey = Type.Object(
  { _id: Id, name: Type.String(), createdAt: Timestamp, lastUsedAt: Type.Union([Timestamp, Type.Null()]) },
  { additionalProperties: false },
);
export const PasskeysResponse = Type.Object({ message: Type.String(), passkeys: Type.Array(Passkey) });
export const PasskeyResponse = Type.Object({ message: Type.String(), passkey: Passkey });
export const PasskeyParams = Type.Object({ passkeyId: Id }, { additionalProperties: false });
export const PasskeyOptionsResponse = Type.Object({
  message: Type.String(),
  options: WebAuthnJson('the options of navigator.credentials (PublicKeyCredentialCreationOptionsJSON or …RequestOptionsJSON)'),
});
export const RegisterPasskeyBody = Type.Object(
  { name: Text({ maxLength: 100, blank: false }), response: WebAuthnJson("the authenticator's answer (RegistrationResponseJSON)") },
  { additionalProperties: false },
);
export const PasskeySignInOptionsResponse = Type.Object({
  message: Type.String(),
  handle: Type.String({ description: 'sent back with the answer; single-use, valid 5 minutes' }),
  options: WebAuthnJson('PublicKeyCredentialRequestOptionsJSON, for a discoverable credential'),
});
export const PasskeySignInBody = Type.Object(
  { handle: Type.String({ minLength: 1, maxLength: 200 }), response: WebAuthnJson("the authenticator's answer (AuthenticationResponseJSON)") },
  { additionalProperties: false },
);
