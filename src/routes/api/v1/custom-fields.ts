import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { setCustomFieldValues } from '../../../domain/fields/card-values.ts';
import { createCustomField, deleteCustomField, listCustomFields, updateCustomField } from '../../../domain/fields/definitions.ts';
import { BoardParams } from '../../../schemas/boards.ts';
import { CardParams } from '../../../schemas/cards.ts';
import { ScopeQuery } from '../../../schemas/common.ts';
import {
  CreateCustomFieldBody,
  CustomField,
  CustomFieldParams,
  DeletedCustomField,
  SetCustomFieldValuesBody,
  UpdateCustomFieldBody,
} from '../../../schemas/custom-fields.ts';
import { Card } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

/** A board's custom fields, and the values cards hold (docs/api.md, "Custom fields"). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['custom fields']);
  const field = ['customField', CustomField] as const;

  route(
    'GET /boards/:boardId/custom-fields',
    {
      tier: 'very-low',
      operationId: 'getBoardCustomFields',
      summary: 'Get Board Custom Fields',
      description: "The board's custom fields in their order, each with its options and how many cards hold a value of it.",
      params: BoardParams,
      querystring: ScopeQuery,
      answer: ['customFields', Type.Array(CustomField)],
      message: 'Custom fields retrieved',
    },
    ({ caller, params, query }) => listCustomFields(app.services, caller, params.boardId, query),
  );

  route(
    'POST /boards/:boardId/custom-fields',
    {
      tier: 'medium',
      operationId: 'createCustomField',
      summary: 'Create Custom Field',
      description:
        'Adds a field to the board: `type` text, number (with an optional `unit`), date, select or multiselect (with coloured `options`), checkbox, person or url. ' +
        'Names are unique within a board (409).',
      params: BoardParams,
      querystring: ScopeQuery,
      body: CreateCustomFieldBody,
      answer: field,
      status: 201,
      location: (created) => `/api/v1/boards/${created.board}/custom-fields`,
      errors: [409],
      message: 'Custom field created',
    },
    ({ caller, params, query, body }) => createCustomField(app.services, caller, params.boardId, body, query),
  );

  route(
    'PATCH /custom-fields/:fieldId',
    {
      tier: 'low',
      operationId: 'updateCustomField',
      summary: 'Update Custom Field',
      description:
        'Renames, reorders (`position`), changes the unit, whether card faces show it, its options (the whole list; an option left out is cleared from the cards that chose it) ' +
        'or its type. A type change converts the values cards hold, and is refused (409, naming how many cards) where one would not convert; every card whose value changed changes (`__v` + 1).',
      params: CustomFieldParams,
      querystring: ScopeQuery,
      body: UpdateCustomFieldBody,
      answer: field,
      errors: [409],
      message: 'Custom field updated',
    },
    ({ caller, params, query, body }) => updateCustomField(app.services, caller, params.fieldId, body, query),
  );

  route(
    'DELETE /custom-fields/:fieldId',
    {
      tier: 'low',
      operationId: 'deleteCustomField',
      summary: 'Delete Custom Field',
      description:
        'Deletes the field and every value of it, in one step; each card that held one changes (`__v` + 1). Answers the field as it was and `clearedCards`, how many cards held a value ' +
        "(the field's `cardsWithValue` tells it before, for a confirmation).",
      params: CustomFieldParams,
      querystring: ScopeQuery,
      answer: DeletedCustomField,
      message: 'Custom field deleted',
    },
    ({ caller, params, query }) => deleteCustomField(app.services, caller, params.fieldId, query),
  );

  route(
    'PATCH /cards/:cardId/custom-fields',
    {
      tier: 'low',
      operationId: 'setCardCustomFieldValues',
      summary: 'Set Card Custom Field Values',
      description:
        "Sets or clears (`value: null`) several of the card's custom fields in one change (`__v` + 1; `If-Match` applies). A value that does not fit its field " +
        "(wrong type, unknown option, a person outside the board's team, a field of another board) rejects the whole request: 400, details name each value and its field.",
      params: CardParams,
      querystring: ScopeQuery,
      body: SetCustomFieldValuesBody,
      answer: ['card', Card],
      message: 'Custom field values set',
    },
    ({ caller, params, query, body }) => setCustomFieldValues(app.services, caller, params.cardId, query, body.values),
  );
};

export default routes;
