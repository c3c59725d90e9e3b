import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addCompanyMember, createCompany, listCompanies } from '../../../domain/companies/companies.ts';
import { changeMemberRole, leaveCompany, removeCompanyMember, updateCompany } from '../../../domain/companies/members.ts';
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
import { errorResponses, NoQuery, success } from '../../../schemas/common.ts';
import { Company } from '../../../schemas/records.ts';

const tags = ['companies'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/companies',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getCompanies',
        summary: 'Get Companies',
        description: "The caller's companies, oldest first, each with the caller's `role` there.",
        querystring: NoQuery,
        response: { 200: success('companies', Type.Array(Company)), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Companies retrieved', companies: await listCompanies(app.services, request.caller) }),
  );

  app.post(
    '/companies',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        operationId: 'createCompany',
        summary: 'Create Company',
        description: 'Creates a company; the caller becomes its owner.',
        querystring: NoQuery,
        body: CreateCompanyBody,
        response: { 201: success('company', Company), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const company = await createCompany(app.services, request.caller, request.body);
      return reply.status(201).send({ message: 'Company created', company });
    },
  );

  app.post(
    '/companies/:companyId/members',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        operationId: 'addCompanyMember',
        summary: 'Add Company Member',
        description:
          'Owners and admins add a user by email (403 for members; only owners may add owners). A new email creates the ' +
          "user with `fullName`; an existing user keeps its name. 409 when the user is already a member. The new user gets " +
          'no API key: an administrator issues one with `taskboard keys create`.',
        params: CompanyParams,
        querystring: CompanyScopeQuery,
        body: AddCompanyMemberBody,
        response: { 201: success('member', CompanyMember), ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => {
      const member = await addCompanyMember(app.services, request.caller, request.params.companyId, request.query, request.body);
      return reply.status(201).send({ message: 'Member added', member });
    },
  );

  app.patch(
    '/companies/:companyId',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Update Company',
        operationId: 'updateCompany',
        description: 'Owners and admins rename the company (403 for members).',
        params: CompanyParams,
        querystring: CompanyScopeQuery,
        body: UpdateCompanyBody,
        response: { 200: success('company', Company), ...errorResponses(403) },
      },
    },
    async (request) => ({
      message: 'Company updated',
      company: await updateCompany(app.services, request.caller, request.params.companyId, request.query, request.body),
    }),
  );

  app.patch(
    '/companies/:companyId/members/:userId',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        summary: 'Change Company Member Role',
        operationId: 'changeCompanyMemberRole',
        description:
          "Owners change anyone's role; admins change a member's role to member or admin (403 otherwise). Demoting the company's " +
          'last owner is a 409.',
        params: CompanyMemberParams,
        querystring: CompanyScopeQuery,
        body: ChangeMemberRoleBody,
        response: { 200: success('member', CompanyMember), ...errorResponses(403, 409) },
      },
    },
    async (request) => ({
      message: 'Role changed',
      member: await changeMemberRole(app.services, request.caller, request.params.companyId, request.params.userId, request.query, request.body.role),
    }),
  );

  app.delete(
    '/companies/:companyId/members/:userId',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        summary: 'Remove Company Member',
        operationId: 'removeCompanyMember',
        description:
          'Owners remove anyone; admins remove members and admins (403 otherwise). The user leaves the company\'s teams too and ' +
          'loses reach from its next request; what it wrote stays, with its name. Removing the last owner is a 409.',
        params: CompanyMemberParams,
        querystring: CompanyScopeQuery,
        response: { 200: success('member', CompanyMember), ...errorResponses(403, 409) },
      },
    },
    async (request) => ({
      message: 'Member removed',
      member: await removeCompanyMember(app.services, request.caller, request.params.companyId, request.params.userId, request.query),
    }),
  );

  app.delete(
    '/companies/:companyId/members/me',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Leave Company',
        operationId: 'leaveCompany',
        description: "The caller leaves the company and its teams; the company's last owner cannot (409).",
        params: CompanyParams,
        querystring: CompanyScopeQuery,
        response: { 200: success('member', CompanyMember), ...errorResponses(409) },
      },
    },
    async (request) => ({ message: 'Left the company', member: await leaveCompany(app.services, request.caller, request.params.companyId, request.query) }),
  );
};

export default routes;
