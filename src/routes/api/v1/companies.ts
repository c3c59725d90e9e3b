import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addCompanyMember, createCompany, listCompanies } from '../../../domain/companies/companies.ts';
import { changeMemberRole, leaveCompany, listCompanyMembers, removeCompanyMember, updateCompany } from '../../../domain/companies/members.ts';
import { getCompanyFactors, resetMemberFactors, setSecondFactorRequired } from '../../../domain/people/company-factors.ts';
import { getSignInPolicy, setSingleSignOnOnly } from '../../../domain/people/single-sign-on-only.ts';
import { NoQuery } from '../../../schemas/common.ts';
import {
  AddCompanyMemberBody,
  ChangeMemberRoleBody,
  CompanyMember,
  CompanyMemberParams,
  CompanyParams,
  CompanyScopeQuery,
  CreateCompanyBody,
  UpdateCompanyBody,
} from '../../../schemas/companies.ts';
import { CompanyFactorsResponse, MessageResponse, SetCompanyFactorsBody, SetSignInPolicyBody, SignInPolicyResponse } from '../../../schemas/people.ts';
import { Company } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';
import { securityMail } from './auth.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['companies']);
  const company = ['company', Company] as const;
  const member = ['member', CompanyMember] as const;

  route(
    'GET /companies',
    {
      tier: 'very-low',
      operationId: 'getCompanies',
      summary: 'Get Companies',
      description: "The caller's companies, oldest first, each with the caller's `role` there.",
      querystring: NoQuery,
      answer: ['companies', Type.Array(Company)],
      message: 'Companies retrieved',
    },
    ({ caller }) => listCompanies(app.services, caller),
  );

  route(
    'POST /companies',
    {
      tier: 'high',
      operationId: 'createCompany',
      summary: 'Create Company',
      description: 'Creates a company; the caller becomes its owner.',
      querystring: NoQuery,
      body: CreateCompanyBody,
      answer: company,
      status: 201,
      location: () => '/api/v1/companies',
      message: 'Company created',
    },
    ({ caller, body }) => createCompany(app.services, caller, body),
  );

  route(
    'GET /companies/:companyId/members',
    {
      tier: 'very-low',
      operationId: 'listCompanyMembers',
      summary: 'List Company Members',
      description:
        "Owners and admins read the company's members, each with its email and role, in the order they joined (403 for " +
        "members: the listing carries everyone's email).",
      params: CompanyParams,
      querystring: CompanyScopeQuery,
      answer: ['members', Type.Array(CompanyMember)],
      errors: [403],
      message: 'Members retrieved',
    },
    ({ caller, params, query }) => listCompanyMembers(app.services, caller, params.companyId, query),
  );

  route(
    'POST /companies/:companyId/members',
    {
      tier: 'high',
      operationId: 'addCompanyMember',
      summary: 'Add Company Member',
      description:
        'Owners and admins add a user by email (403 for members; only owners may add owners). A new email creates the ' +
        'user with `fullName`; an existing user keeps its name. 409 when the user is already a member. The new user gets ' +
        'no API key: an administrator issues one with `taskboard keys create`.',
      params: CompanyParams,
      querystring: CompanyScopeQuery,
      body: AddCompanyMemberBody,
      answer: member,
      status: 201,
      location: () => '/api/v1/companies',
      errors: [403, 409],
      message: 'Member added',
    },
    ({ caller, params, query, body }) => addCompanyMember(app.services, caller, params.companyId, query, body),
  );

  route(
    'PATCH /companies/:companyId',
    {
      tier: 'high',
      operationId: 'updateCompany',
      summary: 'Update Company',
      description: 'Owners and admins rename the company (403 for members).',
      params: CompanyParams,
      querystring: CompanyScopeQuery,
      body: UpdateCompanyBody,
      answer: company,
      errors: [403],
      message: 'Company updated',
    },
    ({ caller, params, query, body }) => updateCompany(app.services, caller, params.companyId, query, body),
  );

  route(
    'PATCH /companies/:companyId/members/:userId',
    {
      tier: 'secure',
      operationId: 'changeCompanyMemberRole',
      summary: 'Change Company Member Role',
      description:
        "Owners change anyone's role; admins change a member's role to member or admin (403 otherwise). Demoting the company's " + 'last owner is a 409.',
      params: CompanyMemberParams,
      querystring: CompanyScopeQuery,
      body: ChangeMemberRoleBody,
      answer: member,
      errors: [403, 409],
      message: 'Role changed',
    },
    ({ caller, params, query, body }) => changeMemberRole(app.services, caller, params.companyId, params.userId, query, body.role),
  );

  route(
    'GET /companies/:companyId/second-factors',
    {
      tier: 'very-low',
      operationId: 'getCompanySecondFactors',
      summary: 'Get Company Second Factors: whether the company requires one, and which members have set one up (owners)',
      tags: ['people'],
      params: CompanyParams,
      querystring: NoQuery,
      answer: CompanyFactorsResponse,
      errors: [403],
      message: 'Second factors of the members',
    },
    ({ caller, params }) => getCompanyFactors(app.services, caller, params.companyId),
  );

  route(
    'PATCH /companies/:companyId/second-factors',
    {
      tier: 'secure',
      operationId: 'setCompanySecondFactors',
      summary: 'Require Second Factor: every member must have one; those without set one up at their next sign-in (owners)',
      tags: ['people'],
      params: CompanyParams,
      querystring: NoQuery,
      body: SetCompanyFactorsBody,
      answer: CompanyFactorsResponse,
      message: ({ body }) => (body.required ? 'Members must now sign in with a second factor' : 'A second factor is now up to each member'),
    },
    ({ caller, params, body }) => setSecondFactorRequired(app.services, caller, params.companyId, body.required),
  );

  // single sign-on is there when the server has a directory or a provider set up
  const singleSignOn = Boolean(app.config.people.ldap.url || app.config.people.oidc.issuer);

  route(
    'GET /companies/:companyId/sign-in-policy',
    {
      tier: 'very-low',
      operationId: 'getCompanySignInPolicy',
      summary: 'Get Company Sign-In Policy: whether its members sign in with single sign-on only (owners)',
      tags: ['people'],
      params: CompanyParams,
      querystring: NoQuery,
      answer: SignInPolicyResponse,
      errors: [403],
      message: 'Sign-in policy',
    },
    ({ caller, params }) => getSignInPolicy(app.services, caller, params.companyId, singleSignOn),
  );

  route(
    'PATCH /companies/:companyId/sign-in-policy',
    {
      tier: 'secure',
      operationId: 'setCompanySignInPolicy',
      summary: 'Set Company Sign-In Policy: single sign-on only for its members, owners excepted (owners)',
      description:
        "On: the company's members other than its owners are refused passwords of this server, password resets and passkeys alone (403); " +
        'they sign in through the directory or the OpenID Connect provider. Recorded in the audit log. 409 when the server has no single sign-on.',
      tags: ['people'],
      params: CompanyParams,
      querystring: NoQuery,
      body: SetSignInPolicyBody,
      answer: SignInPolicyResponse,
      errors: [409],
      message: ({ body }) => (body.singleSignOnOnly ? 'Members now sign in with single sign-on only' : 'Members may sign in with a password again'),
    },
    ({ caller, params, body }) => setSingleSignOnOnly(app.services, caller, params.companyId, body.singleSignOnOnly, singleSignOn),
  );

  route(
    'DELETE /companies/:companyId/members/:userId/second-factors',
    {
      tier: 'secure',
      operationId: 'resetMemberSecondFactors',
      summary: "Reset Member's Second Factors: removes their app and recovery codes (a lost phone); recorded in the audit log (owners)",
      tags: ['people'],
      params: CompanyMemberParams,
      querystring: NoQuery,
      answer: MessageResponse,
      message: 'Their second factors are removed: they sign in with the password alone, or set one up again where it is required',
    },
    async ({ caller, params, request }) => {
      await resetMemberFactors(app.services, caller, params.companyId, params.userId, securityMail(app, request));
      return {};
    },
  );

  route(
    'DELETE /companies/:companyId/members/:userId',
    {
      tier: 'secure',
      operationId: 'removeCompanyMember',
      summary: 'Remove Company Member',
      description:
        "Owners remove anyone; admins remove members and admins (403 otherwise). The user leaves the company's teams too and " +
        'loses reach from its next request; what it wrote stays, with its name. Removing the last owner is a 409.',
      params: CompanyMemberParams,
      querystring: CompanyScopeQuery,
      answer: member,
      errors: [403, 409],
      message: 'Member removed',
    },
    ({ caller, params, query }) => removeCompanyMember(app.services, caller, params.companyId, params.userId, query),
  );

  route(
    'DELETE /companies/:companyId/members/me',
    {
      tier: 'high',
      operationId: 'leaveCompany',
      summary: 'Leave Company',
      description: "The caller leaves the company and its teams; the company's last owner cannot (409).",
      params: CompanyParams,
      querystring: CompanyScopeQuery,
      answer: member,
      errors: [409],
      message: 'Left the company',
    },
    ({ caller, params, query }) => leaveCompany(app.services, caller, params.companyId, query),
  );
};

export default routes;
