import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addTeamMember, createTeam, listTeams, removeTeamMember } from '../../../domain/companies/teams.ts';
import {
  AddTeamMemberBody,
  CompanyScopeQuery,
  CreateTeamBody,
  CreateTeamQuery,
  TeamMemberParams,
  TeamParams,
} from '../../../schemas/companies.ts';
import { errorResponses, ScopeQuery, success } from '../../../schemas/common.ts';
import { Team } from '../../../schemas/records.ts';

const tags = ['teams'];
const TeamAnswer = success('team', Team);

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/teams',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Current Teams',
        description: 'The teams the caller is a member of, oldest first, with their members; narrowed by `companyId`.',
        querystring: CompanyScopeQuery,
        response: { 200: success('teams', Type.Array(Team)), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Teams retrieved', teams: await listTeams(app.services, request.caller, request.query) }),
  );

  app.post(
    '/teams',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Create Team',
        description: 'Creates a team in the company `companyId` (required); any member of the company may, and becomes its first member.',
        querystring: CreateTeamQuery,
        body: CreateTeamBody,
        response: { 201: TeamAnswer, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const team = await createTeam(app.services, request.caller, request.query.companyId, request.body);
      return reply.status(201).send({ message: 'Team created', team });
    },
  );

  app.post(
    '/teams/:teamId/members',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Add Team Member',
        description:
          "Team members and company owners/admins add a member of the team's company (404 for anyone else; 409 when " +
          'already in the team). Answers the team with its members.',
        params: TeamParams,
        querystring: ScopeQuery,
        body: AddTeamMemberBody,
        response: { 200: TeamAnswer, ...errorResponses(409) },
      },
    },
    async (request) => ({
      message: 'Team member added',
      team: await addTeamMember(app.services, request.caller, request.params.teamId, request.query, request.body.userId),
    }),
  );

  app.delete(
    '/teams/:teamId/members/:userId',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Remove Team Member',
        description:
          "Team members and company owners/admins take a member out of the team (a member may leave). The user loses the " +
          "team's boards and cards from its next request on, unless it is a company owner or admin.",
        params: TeamMemberParams,
        querystring: ScopeQuery,
        response: { 200: TeamAnswer, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Team member removed',
      team: await removeTeamMember(app.services, request.caller, request.params.teamId, request.query, request.params.userId),
    }),
  );
};

export default routes;
