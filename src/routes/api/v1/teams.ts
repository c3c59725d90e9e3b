import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addTeamMember, createTeam, leaveTeam, listTeams, removeTeamMember, updateTeam } from '../../../domain/companies/teams.ts';
import {
  AddTeamMemberBody,
  CompanyScopeQuery,
  CreateTeamBody,
  CreateTeamQuery,
  TeamMemberParams,
  TeamParams,
  UpdateTeamBody,
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
        operationId: 'getCurrentTeams',
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
        operationId: 'createTeam',
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
        operationId: 'addTeamMember',
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
        operationId: 'removeTeamMember',
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

  app.delete(
    '/teams/:teamId/members/me',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Leave Team',
        operationId: 'leaveTeam',
        description: "The caller leaves the team (404 when it is not a member); it keeps the team's boards only as a company owner or admin.",
        params: TeamParams,
        querystring: ScopeQuery,
        response: { 200: TeamAnswer, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Left the team', team: await leaveTeam(app.services, request.caller, request.params.teamId, request.query) }),
  );

  app.patch(
    '/teams/:teamId',
    {
      config: { tier: 'high' },
      schema: {
        tags,
        summary: 'Update Team',
        operationId: 'updateTeam',
        description: 'Company owners and admins rename the team (403 for members).',
        params: TeamParams,
        querystring: ScopeQuery,
        body: UpdateTeamBody,
        response: { 200: TeamAnswer, ...errorResponses(403) },
      },
    },
    async (request) => ({ message: 'Team updated', team: await updateTeam(app.services, request.caller, request.params.teamId, request.query, request.body) }),
  );
};

export default routes;
