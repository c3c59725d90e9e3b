import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createLabel, deleteLabel, listBoardLabels, listLabelColors, updateLabel } from '../../../domain/boards/labels.ts';
import { BoardParams, CreateLabelBody, LabelParams, UpdateLabelBody } from '../../../schemas/boards.ts';
import { NoQuery, ScopeQuery } from '../../../schemas/common.ts';
import { Label, LabelColor } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['labels']);
  const label = ['label', Label] as const;

  route(
    'GET /label-colors',
    {
      tier: 'very-low',
      operationId: 'getLabelColors',
      summary: 'Get Label Colors',
      description: 'The fixed palette of label colours; their ids are stable.',
      querystring: NoQuery,
      answer: ['colors', Type.Array(LabelColor)],
      message: 'Label colors retrieved',
    },
    () => listLabelColors(app.services),
  );

  route(
    'GET /boards/:boardId/labels',
    {
      tier: 'very-low',
      operationId: 'getBoardLabels',
      summary: 'Get Board Labels',
      description: 'The labels of the board, oldest first.',
      params: BoardParams,
      querystring: ScopeQuery,
      answer: ['labels', Type.Array(Label)],
      message: 'Labels retrieved',
    },
    ({ caller, params, query }) => listBoardLabels(app.services, caller, params.boardId, query),
  );

  route(
    'POST /boards/:boardId/labels',
    {
      tier: 'medium',
      operationId: 'createLabel',
      summary: 'Create Label',
      description: 'Adds a label to the board; `color` is the `_id` of a palette colour (GET /api/v1/label-colors).',
      params: BoardParams,
      querystring: ScopeQuery,
      body: CreateLabelBody,
      answer: label,
      status: 201,
      location: (label) => `/api/v1/boards/${label.board}/labels`,
      message: 'Label created',
    },
    ({ caller, params, query, body }) => createLabel(app.services, caller, params.boardId, body, query),
  );

  route(
    'PATCH /labels/:labelId',
    {
      tier: 'low',
      operationId: 'updateLabel',
      summary: 'Update Label',
      description: 'Renames and/or recolours the label. Cards carrying it show the change; their own `__v` does not move.',
      params: LabelParams,
      querystring: ScopeQuery,
      body: UpdateLabelBody,
      answer: label,
      message: 'Label updated',
    },
    ({ caller, params, query, body }) => updateLabel(app.services, caller, params.labelId, body, query),
  );

  route(
    'DELETE /labels/:labelId',
    {
      tier: 'low',
      operationId: 'deleteLabel',
      summary: 'Delete Label',
      description:
        "Deletes the label and takes it off every card that carried it (each such card's `__v` grows by one), in one step. Answers the deleted label.",
      params: LabelParams,
      querystring: ScopeQuery,
      answer: label,
      message: 'Label deleted',
    },
    ({ caller, params, query }) => deleteLabel(app.services, caller, params.labelId, query),
  );
};

export default routes;
