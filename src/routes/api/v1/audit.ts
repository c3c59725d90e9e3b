import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { exportAuditLog, listAuditLog } from '../../../domain/audit/service.ts';
import { AuditCompanyParams, AuditExportQuery, AuditLogQuery, AuditLogResponse } from '../../../schemas/audit.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { keyedPage, operations } from '../../operation.ts';

/** A company's audit log, for its owners (docs/people.md, "Audit log"). */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['audit']);

  route(
    'GET /companies/:companyId/audit-log',
    {
      tier: 'very-low',
      operationId: 'getAuditLog',
      summary: "Get Audit Log: the company's security and administration events, newest first (owners only)",
      params: AuditCompanyParams,
      querystring: AuditLogQuery,
      answer: AuditLogResponse,
      errors: [403],
      message: 'Audit log',
    },
    async ({ caller, params, query }) => keyedPage('entries', await listAuditLog(app.services, caller, params.companyId, query)),
  );

  app.get(
    '/companies/:companyId/audit-log/export',
    {
      config: { tier: 'low' },
      schema: {
        tags: ['audit'],
        operationId: 'exportAuditLog',
        summary: 'Export Audit Log: every entry the filters keep, as CSV or JSON Lines (owners only; the export is itself logged)',
        params: AuditCompanyParams,
        querystring: AuditExportQuery,
        response: {
          200: {
            description: 'CSV with a header row, or one AuditEntry per line; `Content-Disposition` names a file',
            content: { 'text/csv': { schema: { type: 'string' } }, 'application/jsonl': { schema: { type: 'string' } } },
          },
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const { format = 'jsonl', ...filter } = request.query;
      const lines = await exportAuditLog(app.services, request.caller, request.params.companyId, filter, format);
      return reply
        .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="audit-log.${format}"`)
        .header('Cache-Control', 'private, no-store')
        .send(Readable.from(lines) as never);
    },
  );
};

export default routes;
