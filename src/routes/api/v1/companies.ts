import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addCompanyMember, createCompany, listCompanies } from '../../../domain/companies/companies.ts';
import {
  AddCompanyMemberBody,
  CompanyMember,
  CompanyParams,
  CompanyScopeQuery,
  CreateCompanyBody,
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
};

export default routes;
