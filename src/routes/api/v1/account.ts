import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  createApiKey,
  getMe,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
} from '../../../domain/account/service.ts';
import {
  ApiKeyParams,
  ApiKeyResponse,
  ApiKeysResponse,
  CreateApiKeyBody,
  IssuedApiKeyResponse,
  MeResponse,
} from '../../../schemas/account.ts';
import { errorResponses, NoQuery } from '../../../schemas/common.ts';

const tags = ['account'];

/** The caller's own account: who it is, and its API keys. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/me',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
        summary: 'Get Me: the caller, its companies (with its role) and its teams (with members)',
        querystring: NoQuery,
        response: { 200: MeResponse, ...errorResponses() },
      },
    },
    async (request) => ({ message: 'Current user', ...(await getMe(app.services, request.caller)) }),
  );

  app.get(
    '/api-keys',
    {
      config: { tier: 'very-low' },
      schema: {
        tags,
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
