import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as templates from '../../../domain/templates/board-templates.ts';
import { listTeamCardTemplates, MAX_TEAM_CARD_TEMPLATES } from '../../../domain/templates/card-templates.ts';
import {
  BoardFromTemplateAnswer,
  BoardTemplate,
  BoardTemplateParams,
  BoardTemplatesAnswer,
  CreateBoardFromTemplateBody,
  MadeBoardTemplateAnswer,
  MakeBoardTemplateBody,
  TeamCardTemplatesAnswer,
  TeamTemplatesParams,
  UpdateBoardTemplateBody,
} from '../../../schemas/board-templates.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { NoQuery } from '../../../schemas/common.ts';
import { operations } from '../../operation.ts';

const who = "Anyone who reaches the team (its members, the company's owners and admins); a template out of reach is a 404.";

/** Board templates kept on a team (docs/api.md, "Board templates"). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['board-templates']);
  const template = ['template', BoardTemplate] as const;

  route(
    'POST /boards/:boardId/template',
    {
      tier: 'medium',
      operationId: 'makeBoardTemplate',
      summary: 'Make Board Template',
      description: `A template of the board kept on its team: a snapshot of its open lists, its labels, custom fields and rules (cards are not part of it). A rule naming an archived list is left out, and said so in \`leftOut\`. At most ${templates.MAX_BOARD_TEMPLATES_PER_TEAM} templates per team (409 past it). Anyone who reaches the board; a board out of reach is a 404.`,
      params: BoardParams,
      querystring: NoQuery,
      optionalBody: true,
      body: MakeBoardTemplateBody,
      answer: MadeBoardTemplateAnswer,
      status: 201,
      location: (made) => `/api/v1/board-templates/${made.template._id}`,
      errors: [409],
      message: 'Board template created',
    },
    ({ caller, params, body }) => templates.makeBoardTemplate(app.services, caller, params.boardId, body),
  );

  route(
    'GET /teams/:teamId/board-templates',
    {
      tier: 'very-low',
      operationId: 'getTeamBoardTemplates',
      summary: 'Get Team Board Templates',
      description: `The team's board templates, by name. ${who}`,
      params: TeamTemplatesParams,
      querystring: NoQuery,
      answer: BoardTemplatesAnswer,
      message: 'Board templates retrieved',
    },
    async ({ caller, params }) => ({ templates: await templates.listBoardTemplates(app.services, caller, params.teamId) }),
  );

  route(
    'GET /teams/:teamId/card-templates',
    {
      tier: 'very-low',
      operationId: 'getTeamCardTemplates',
      summary: 'Get Team Card Templates',
      description: `The template cards of the team's open boards (at most ${MAX_TEAM_CARD_TEMPLATES}), by board name, then name: every board of the team may make cards from them with Copy Card, which carries a template's labels onto the labels of the same name and colour of the board it lands on. ${who}`,
      tags: ['cards'],
      params: TeamTemplatesParams,
      querystring: NoQuery,
      answer: TeamCardTemplatesAnswer,
      message: 'Card templates retrieved',
    },
    async ({ caller, params }) => ({ cardTemplates: await listTeamCardTemplates(app.services, caller, params.teamId) }),
  );

  route(
    'GET /board-templates/:templateId',
    {
      tier: 'very-low',
      operationId: 'getBoardTemplate',
      summary: 'Get Board Template',
      description: who,
      params: BoardTemplateParams,
      querystring: NoQuery,
      answer: template,
      message: 'Board template retrieved',
    },
    ({ caller, params }) => templates.getBoardTemplate(app.services, caller, params.templateId),
  );

  route(
    'PATCH /board-templates/:templateId',
    {
      tier: 'low',
      operationId: 'updateBoardTemplate',
      summary: 'Update Board Template',
      description: `Renames the template or changes its description; what it holds stays as it was made. ${who}`,
      params: BoardTemplateParams,
      querystring: NoQuery,
      body: UpdateBoardTemplateBody,
      answer: template,
      message: 'Board template updated',
    },
    ({ caller, params, body }) => templates.updateBoardTemplate(app.services, caller, params.templateId, body),
  );

  route(
    'DELETE /board-templates/:templateId',
    {
      tier: 'low',
      operationId: 'deleteBoardTemplate',
      summary: 'Delete Board Template',
      description: `Deletes the template; boards made from it keep what they were made with. ${who}`,
      params: BoardTemplateParams,
      querystring: NoQuery,
      answer: template,
      message: 'Board template deleted',
    },
    ({ caller, params }) => templates.deleteBoardTemplate(app.services, caller, params.templateId),
  );

  route(
    'POST /board-templates/:templateId/boards',
    {
      tier: 'medium',
      operationId: 'createBoardFromTemplate',
      summary: 'Create Board from Template',
      description: `A new board of the template's team with the template's lists, labels, custom fields and rules, made in one transaction (the caller is the rules' author). A rule that creates cards in a list elsewhere which the caller does not reach is left out, and said so in \`leftOut\`. ${who}`,
      params: BoardTemplateParams,
      querystring: NoQuery,
      optionalBody: true,
      body: CreateBoardFromTemplateBody,
      answer: BoardFromTemplateAnswer,
      status: 201,
      location: (made) => `/api/v1/boards/${made.board._id}`,
      message: 'Board created from template',
    },
    ({ caller, params, body }) => templates.createBoardFromTemplate(app.services, caller, params.templateId, body),
  );
};

export default routes;
