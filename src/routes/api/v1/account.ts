import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createApiKey, getMe, listApiKeys, revokeApiKey, rotateApiKey, updateMe } from '../../../domain/account/service.ts';
import { ApiKeyParams, ApiKeyResponse, ApiKeysResponse, CreateApiKeyBody, IssuedApiKeyResponse, MeResponse, UpdateMeBody } from '../../../schemas/account.ts';
import { NoQuery } from '../../../schemas/common.ts';
import { User } from '../../../schemas/records.ts';
import { operations } from '../../operation.ts';

/** The caller's own account: who it is, and its API keys. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['account']);

  route(
    'GET /me',
    {
      tier: 'very-low',
      operationId: 'getMe',
      summary: 'Get Me: the caller, its companies (with its role) and its teams (with members)',
      querystring: NoQuery,
      answer: MeResponse,
      message: 'Current user',
    },
    ({ caller }) => getMe(app.services, caller),
  );

  route(
    'PATCH /me',
    {
      tier: 'low',
      operationId: 'updateMe',
      summary:
        "Update Me: the caller's full name and/or photo URL, shown at once wherever it appears (cards, comments, teams), whether their notifications are mailed, their language (locale), and/or their time zone",
      querystring: NoQuery,
      body: UpdateMeBody,
      answer: ['user', User],
      message: 'User updated',
    },
    ({ caller, body }) => updateMe(app.services, caller, body),
  );

  route(
    'GET /api-keys',
    {
      tier: 'very-low',
      operationId: 'listApiKeys',
      summary: "List API Keys: the caller's live keys (never the tokens)",
      querystring: NoQuery,
      answer: ApiKeysResponse,
      message: 'API keys',
    },
    async ({ caller }) => ({ apiKeys: await listApiKeys(app.services, caller) }),
  );

  route(
    'POST /api-keys',
    {
      tier: 'secure',
      operationId: 'createApiKey',
      summary: 'Create API Key: the token is shown in this answer only',
      querystring: NoQuery,
      body: CreateApiKeyBody,
      answer: IssuedApiKeyResponse,
      status: 201,
      location: () => '/api/v1/api-keys',
      errors: [409],
      message: 'API key created; store the token now, it is not shown again',
    },
    ({ caller, body }) => createApiKey(app.services, caller, body),
  );

  route(
    'DELETE /api-keys/:keyId',
    {
      tier: 'secure',
      operationId: 'revokeApiKey',
      summary: 'Revoke API Key: its token stops working at once',
      params: ApiKeyParams,
      querystring: NoQuery,
      answer: ApiKeyResponse,
      message: 'API key revoked',
    },
    async ({ caller, params }) => ({ apiKey: await revokeApiKey(app.services, caller, params.keyId) }),
  );

  route(
    'POST /api-keys/:keyId/rotate',
    {
      tier: 'secure',
      operationId: 'rotateApiKey',
      summary: 'Rotate API Key: same key, new token; the old token stops working at once',
      params: ApiKeyParams,
      querystring: NoQuery,
      answer: IssuedApiKeyResponse,
      message: 'API key rotated; store the new token now, it is not shown again',
    },
    ({ caller, params }) => rotateApiKey(app.services, caller, params.keyId),
  );
};

export default routes;
