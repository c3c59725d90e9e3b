import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { authenticate } from '../../../domain/account/service.ts';
import {
  acceptInvitation,
  createInvitation,
  describeInvitation,
  describePasswordReset,
  issueMemberPasswordReset,
  type Links,
  listInvitations,
  requestPasswordReset,
  resetPassword,
  revokeInvitation,
} from '../../../domain/people/invitations.ts';
import { authenticateSession } from '../../../domain/people/sessions.ts';
import type { Caller } from '../../../domain/shared/caller.ts';
import { sessionTokenOf } from '../../../plugins/session-cookie.ts';
import { NoQuery } from '../../../schemas/common.ts';
import {
  AcceptedInvitationResponse,
  AcceptInvitationBody,
  CompanyParams,
  CreatedInvitationResponse,
  CreateInvitationBody,
  InvitationParams,
  InvitationPreviewResponse,
  InvitationResponse,
  InvitationsResponse,
  InvitationTokenParams,
  MemberParams,
  MessageResponse,
  PasswordResetBody,
  PasswordResetParams,
  PasswordResetPreviewResponse,
  PasswordResetRequestBody,
  ResetLinkResponse,
  SignInResponse,
} from '../../../schemas/people.ts';
import { operations } from '../../operation.ts';
import { refuseCrossSite, sessionMeta, signedIn } from './auth.ts';

/** Invitations to a company, and password resets (docs/people.md). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['people']);
  const links = (request: FastifyRequest): Links => ({
    baseUrl: app.config.people.publicUrl ?? `${request.protocol}://${request.host}`,
    mail: app.config.people.mail.smtpUrl !== undefined,
  });

  route(
    'POST /companies/:companyId/invitations',
    {
      tier: 'secure',
      operationId: 'createInvitation',
      summary: 'Create Invitation: owners and admins invite an email to the company (and teams); the link is answered, and mailed when mail is set up',
      params: CompanyParams,
      querystring: NoQuery,
      body: CreateInvitationBody,
      answer: CreatedInvitationResponse,
      status: 201,
      location: (created) => `/api/v1/companies/${created.invitation.company}/invitations`,
      errors: [403, 409],
      message: 'Invitation created',
    },
    ({ caller, params, body, request }) => createInvitation(app.services, caller, params.companyId, body, links(request)),
  );

  route(
    'GET /companies/:companyId/invitations',
    {
      tier: 'very-low',
      operationId: 'listInvitations',
      summary: "List Invitations: the company's invitations not accepted nor revoked (owners and admins)",
      params: CompanyParams,
      querystring: NoQuery,
      answer: InvitationsResponse,
      errors: [403],
      message: 'Invitations',
    },
    async ({ caller, params }) => ({ invitations: await listInvitations(app.services, caller, params.companyId) }),
  );

  route(
    'DELETE /companies/:companyId/invitations/:invitationId',
    {
      tier: 'secure',
      operationId: 'revokeInvitation',
      summary: 'Revoke Invitation: its link stops working',
      params: InvitationParams,
      querystring: NoQuery,
      answer: InvitationResponse,
      errors: [403],
      message: 'Invitation revoked',
    },
    async ({ caller, params }) => ({ invitation: await revokeInvitation(app.services, caller, params.companyId, params.invitationId) }),
  );

  route(
    'GET /invitations/:token',
    {
      tier: 'secure',
      public: true,
      operationId: 'getInvitation',
      summary: "Get Invitation: the company's and inviter's names, the email and the expiry (no authentication)",
      params: InvitationTokenParams,
      querystring: NoQuery,
      answer: InvitationPreviewResponse,
      message: 'Invitation',
    },
    ({ params }) => describeInvitation(app.services, params.token),
  );

  route(
    'POST /invitations/:token/accept',
    {
      tier: 'secure',
      public: true,
      operationId: 'acceptInvitation',
      summary: 'Accept Invitation: joins the company and its teams and signs in; a person signed in with the invited email joins without a password',
      params: InvitationTokenParams,
      querystring: NoQuery,
      body: AcceptInvitationBody,
      optionalBody: true,
      answer: AcceptedInvitationResponse,
      errors: [403, 409],
      message: 'Invitation accepted',
    },
    async ({ request, reply, params, body }) => {
      refuseCrossSite(request);
      const caller = await optionalCaller(request);
      const result = await acceptInvitation(app.services, app.sessionPolicy, params.token, body, caller, sessionMeta(request));
      if (!result.session) return { user: result.user, csrfToken: null };
      return signedIn(request, reply, { user: result.user, session: result.session });
    },
  );

  route(
    'POST /auth/password-reset',
    {
      tier: 'secure',
      public: true,
      operationId: 'requestPasswordReset',
      summary: 'Request Password Reset: mails a reset link when the email has an account and mail is set up; always 202',
      querystring: NoQuery,
      body: PasswordResetRequestBody,
      answer: MessageResponse,
      status: 202,
      message: 'If the email has an account, a reset link is on its way',
    },
    async ({ request, body }) => {
      refuseCrossSite(request);
      await requestPasswordReset(app.services, body.email, links(request));
      return {};
    },
  );

  route(
    'GET /auth/password-reset/:token',
    {
      tier: 'secure',
      public: true,
      operationId: 'getPasswordReset',
      summary: 'Get Password Reset: the email whose password the link sets, or why it no longer works (no authentication)',
      params: PasswordResetParams,
      querystring: NoQuery,
      answer: PasswordResetPreviewResponse,
      message: 'Password reset link',
    },
    ({ params }) => describePasswordReset(app.services, params.token),
  );

  route(
    'POST /auth/password-reset/:token',
    {
      tier: 'secure',
      public: true,
      operationId: 'resetPassword',
      summary: "Reset Password: the link's token, once, and a new password; every other session of the user ends and a new one starts",
      params: PasswordResetParams,
      querystring: NoQuery,
      description: 'A person with a second factor gets no session but `secondFactor`, as from Sign In: the code then finishes the sign-in (Finish Sign In).',
      body: PasswordResetBody,
      answer: SignInResponse,
      errors: [403],
      message: (_input, result) => ('secondFactor' in result ? 'Password changed; now the code of your second factor' : 'Password changed; you are signed in'),
    },
    async ({ request, reply, params, body }) => {
      refuseCrossSite(request);
      const result = await resetPassword(app.services, app.sessionPolicy, params.token, body.password, sessionMeta(request));
      reply.header('cache-control', 'no-store');
      if ('secondFactor' in result) return { secondFactor: result.secondFactor } as never;
      return signedIn(request, reply, result) as never;
    },
  );

  route(
    'POST /companies/:companyId/members/:userId/password-reset',
    {
      tier: 'secure',
      operationId: 'issueMemberPasswordReset',
      summary: "Issue Member Password Reset: an owner's or admin's reset link for a member, to hand over when no mail is set up",
      params: MemberParams,
      querystring: NoQuery,
      optionalBody: true,
      answer: ResetLinkResponse,
      status: 201,
      location: () => '/api/v1/companies',
      errors: [403],
      message: 'Password reset link created; it works once, within an hour',
    },
    ({ caller, params, request }) => issueMemberPasswordReset(app.services, caller, params.companyId, params.userId, links(request)),
  );

  /** The caller of a public route's request, when it carries a live session or key (accepting as the signed-in user). */
  async function optionalCaller(request: FastifyRequest): Promise<Caller | undefined> {
    try {
      const session = request.headers.authorization === undefined ? sessionTokenOf(request) : undefined;
      if (session) return await authenticateSession(app.services, app.sessionPolicy, session);
      const header = request.headers.authorization;
      const token = header ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(header)?.[1] : undefined;
      const caller = token ? await authenticate(app.services, token, request.ip) : undefined;
      // a key made to do less never joins its person to a company
      return caller?.keyLimits ? undefined : caller;
    } catch {
      return undefined;
    }
  }
};

export default routes;
