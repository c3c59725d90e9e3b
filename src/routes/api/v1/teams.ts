import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addTeamMember, createTeam, leaveTeam, listCompanyTeams, listTeams, removeTeamMember, updateTeam } from '../../../domain/companies/teams.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import {
  AddTeamMemberBody,
  CompanyParams,
  CompanyScopeQuery,
  CreateTeamBody,
  CreateTeamQuery,
  TeamMemberParams,
  TeamParams,
  UpdateTeamBody,
} from '../../../schemas/companies.ts';
import { Team } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['teams']);
  const team = ['team', Team] as const;

  route(
    'GET /teams',
    {
      tier: 'very-low',
      operationId: 'getCurrentTeams',
      summary: 'Get Current Teams',
      description: 'The teams the caller is a member of, oldest first, with their members; narrowed by `companyId`.',
      querystring: CompanyScopeQuery,
      answer: ['teams', Type.Array(Team)],
      message: 'Teams retrieved',
    },
    ({ caller, query }) => listTeams(app.services, caller, query),
  );

  route(
    'GET /companies/:companyId/teams',
    {
      tier: 'very-low',
      operationId: 'listCompanyTeams',
      summary: 'List Company Teams',
      description:
        'Owners and admins read every team of the company, oldest first, with its members: those they are not in too, ' +
        'unlike Get Current Teams (403 for members).',
      params: CompanyParams,
      querystring: CompanyScopeQuery,
      answer: ['teams', Type.Array(Team)],
      errors: [403],
      message: 'Teams retrieved',
    },
    ({ caller, params, query }) => listCompanyTeams(app.services, caller, params.companyId, query),
  );

  route(
    'POST /teams',
    {
      tier: 'high',
      operationId: 'createTeam',
      summary: 'Create Team',
      description: 'Creates a team in the company `companyId` (required); any member of the company may, and becomes its first member.',
      querystring: CreateTeamQuery,
      body: CreateTeamBody,
      answer: team,
      status: 201,
      location: (team) => `/api/v1/teams?companyId=${team.company}`,
      message: 'Team created',
    },
    ({ caller, query, body }) => createTeam(app.services, caller, query.companyId, body),
  );

  route(
    'POST /teams/:teamId/members',
    {
      tier: 'high',
      operationId: 'addTeamMember',
      summary: 'Add Team Member',
      description:
        "Team members and company owners/admins add a member of the team's company (404 for anyone else; 409 when " +
        'already in the team). Answers the team with its members.',
      params: TeamParams,
      querystring: ScopeQuery,
      body: AddTeamMemberBody,
      answer: team,
      errors: [409],
      message: 'Team member added',
    },
    ({ caller, params, query, body }) => addTeamMember(app.services, caller, params.teamId, query, body.userId),
  );

  route(
    'DELETE /teams/:teamId/members/:userId',
    {
      tier: 'high',
      operationId: 'removeTeamMember',
      summary: 'Remove Team Member',
      description:
        'Team members and company owners/admins take a member out of the team (a member may leave). The user loses the ' +
        "team's boards and cards from its next request on, unless it is a company owner or admin.",
      params: TeamMemberParams,
      querystring: ScopeQuery,
      answer: team,
      message: 'Team member removed',
    },
    ({ caller, params, query }) => removeTeamMember(app.services, caller, params.teamId, query, params.userId),
  );

  route(
    'DELETE /teams/:teamId/members/me',
    {
      tier: 'high',
      operationId: 'leaveTeam',
      summary: 'Leave Team',
      description: "The caller leaves the team (404 when it is not a member); it keeps the team's boards only as a company owner or admin.",
      params: TeamParams,
      querystring: ScopeQuery,
      answer: team,
      message: 'Left the team',
    },
    ({ caller, params, query }) => leaveTeam(app.services, caller, params.teamId, query),
  );

  route(
    'PATCH /teams/:teamId',
    {
      tier: 'high',
      operationId: 'updateTeam',
      summary: 'Update Team',
      description: 'Company owners and admins rename the team (403 for members).',
      params: TeamParams,
      querystring: ScopeQuery,
      body: UpdateTeamBody,
      answer: team,
      errors: [403],
      message: 'Team updated',
    },
    ({ caller, params, query, body }) => updateTeam(app.services, caller, params.teamId, query, body),
  );
};

export default routes;
