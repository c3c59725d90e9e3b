import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  createApiKey,
  getMe,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  updateMe,
} from '../../../domain/account/service.ts';
import {
  ApiKeyParams,
  ApiKeyResponse,
  ApiKeysResponse,
  CreateApiKeyBody,
  IssuedApiKeyResponse,
  MeResponse,
  UpdateMeBody,
} from '../../../schemas/account.ts';
import { errorResponses, NoQuery, success } from '../../../schemas/common.ts';
import { User } from '../../../schemas/records.ts';

const tags = ['account'];

/** The caller's own account: who it is, and its API keys. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'getMe',
        summary: 'Get Me: the caller, its companies (with its role) and its teams (with members)',
        querystring: NoQuery,
        response: { 200: MeResponse, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Current user', ...(await getMe(app.services, request.caller)) }),
  );

  app.patch(
    '/me',
    {
      config: { tier: 'low' },
      schema: {
        tags,
        summary: 'Update Me: the caller\'s full name and/or photo URL, shown at once wherever it appears (cards, comments, teams)',
        operationId: 'updateMe',
        querystring: NoQuery,
        body: UpdateMeBody,
        response: { 200: success('user', User), ...errorResponses() },
      },
    },
    async (request) => ({ message: 'User updated', user: await updateMe(app.services, request.caller, request.body) }),
  );

  app.get(
    '/api-keys',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List API Keys: the caller's live keys (never the tokens)",
        querystring: NoQuery,
        response: { 200: ApiKeysResponse, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'API keys', apiKeys: await listApiKeys(app.services, request.caller) }),
  );

  app.post(
    '/api-keys',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create API Key: the token is shown in this answer only',
        querystring: NoQuery,
        body: CreateApiKeyBody,
        response: { 201: IssuedApiKeyResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const issued = await createApiKey(app.services, request.caller, request.body);
      return reply.status(201).send({ message: 'API key created; store the token now, it is not shown again', ...issued });
    },
  );

  app.delete(
    '/api-keys/:keyId',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke API Key: its token stops working at once',
        params: ApiKeyParams,
        querystring: NoQuery,
        response: { 200: ApiKeyResponse, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'API key revoked',
      apiKey: await revokeApiKey(app.services, request.caller, request.params.keyId),
    }),
  );

  app.post(
    '/api-keys/:keyId/rotate',
    {
      config: { tier: 'secure' },
      schema: {
        tags,
        operationId: 'rotateApiKey',
        summary: 'Rotate API Key: same key, new token; the old token stops working at once',
        params: ApiKeyParams,
        querystring: NoQuery,
        response: { 200: IssuedApiKeyResponse, ...errorResponses() },
      },
    },
    async (request) => ({
      message: 'API key rotated; store the new token now, it is not shown again',
      ...(await rotateApiKey(app.services, request.caller, request.params.keyId)),
    }),
  );
};

export default routes;
