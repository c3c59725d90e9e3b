import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createLabel, deleteLabel, listBoardLabels, listLabelColors, updateLabel } from '../../../domain/boards/labels.ts';
import { BoardParams, CreateLabelBody, LabelParams, UpdateLabelBody } from '../../../schemas/boards.ts';
import { errorResponses, NoQuery, ScopeQuery, success } from '../../../schemas/common.ts';
import { Label, LabelColor } from '../../../schemas/records.ts';

const tags = ['labels'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/label-colors',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getLabelColors',
        summary: 'Get Label Colors',
        description: 'The fixed palette of label colours; their ids are stable.',
        querystring: NoQuery,
        response: { 200: success('colors', Type.Array(LabelColor)), ...errorResponses() },
      },
    },
    async () => ({ message: 'Label colors retrieved', colors: await listLabelColors(app.services) }),
  );

  app.get(
    '/boards/:boardId/labels',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getBoardLabels',
        summary: 'Get Board Labels',
        description: 'The labels of the board, oldest first.',
        params: BoardParams,
        querystring: ScopeQuery,
        response: { 200: success('labels', Type.Array(Label)), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Labels retrieved',
      labels: await listBoardLabels(app.services, request.caller, request.params.boardId, request.query),
    }),
  );

  app.post(
    '/boards/:boardId/labels',
    {
      config: { tier: 'medium' },
      schema: {
        tags,
        operationId: 'createLabel',
        summary: 'Create Label',
        description: 'Adds a label to the board; `color` is the `_id` of a palette colour (GET /api/v1/label-colors).',
        params: BoardParams,
        querystring: ScopeQuery,
        body: CreateLabelBody,
        response: { 201: success('label', Label), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const label = await createLabel(app.services, request.caller, request.params.boardId, request.body, request.query);
      return reply.status(201).send({ message: 'Label created', label });
    },
  );

  app.patch(
    '/labels/:labelId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'updateLabel',
        summary: 'Update Label',
        description: 'Renames and/or recolours the label. Cards carrying it show the change; their own `__v` does not move.',
        params: LabelParams,
        querystring: ScopeQuery,
        body: UpdateLabelBody,
        response: { 200: success('label', Label), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Label updated',
      label: await updateLabel(app.services, request.caller, request.params.labelId, request.body, request.query),
    }),
  );

  app.delete(
    '/labels/:labelId',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        operationId: 'deleteLabel',
        summary: 'Delete Label',
        description: 'Deletes the label and takes it off every card that carried it (each such card\'s `__v` grows by one), in one step. Answers the deleted label.',
        params: LabelParams,
        querystring: ScopeQuery,
        response: { 200: success('label', Label), ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'Label deleted',
      label: await deleteLabel(app.services, request.caller, request.params.labelId, request.query),
    }),
  );
};

export default routes;
