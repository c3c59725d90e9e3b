/**
 * Webhooks of a company: create, list, read, change, delete, rotate the secret, and the deliveries
 * (list, redeliver). Owners and admins of the company only (src/domain/access/access.ts). The
 * secret is answered only when it is issued (creation, rotation). Delivery itself is the
 * dispatcher's (dispatcher.ts).
 */

import type { AuditKind } from '../../schemas/audit.ts';
import type { Delivery, Webhook } from '../../schemas/webhooks.ts';
import type { DeliveryStatus, Executor } from '../../storage/database.ts';
import { findBoardById } from '../../storage/repositories/boards.ts';
import { findTeamScope } from '../../storage/repositories/teams.ts';
import * as store from '../../storage/repositories/webhooks.ts';
import { adminCompanies, requireAccess } from '../access/access.ts';
import { type AuditDetail, actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { creationKey, DEFAULT_PAGE_SIZE, decodeCursor, isCreationKey, type Page, toPage } from '../shared/pagination.ts';
import { newMade } from '../shared/records.ts';
import { inTransaction } from '../shared/transaction.ts';
import { checkWebhookUrl } from './destinations.ts';
import { newSecret, previousSecretSigns } from './signing.ts';

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookInput {
  url: string;
  teams?: string[] | undefined;
  boards?: string[] | undefined;
  types: string[];
  enabled?: boolean | undefined;
}

/** What the service needs of the configuration. */
export interface WebhookPolicy {
  allowPrivateNetworks: boolean;
}

function toRecord(row: store.WebhookRow, at: string = nowIso()): Webhook {
  return {
    _id: row.id,
    company: row.company_id,
    url: row.url,
    teams: JSON.parse(row.team_ids) as string[],
    boards: JSON.parse(row.board_ids) as string[],
    types: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: previousSecretSigns(row, at) ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    __v: row.version,
  };
}

function toDelivery(row: store.DeliveryRow): Delivery {
  return {
    _id: row.id,
    webhook: row.webhook_id,
    event: row.event_id,
    type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
    createdAt: row.created_at,
  };
}

/** The teams and boards a filter names must be the company's: a 400 naming each that is not. */
async function checkFilters(ctx: ServiceContext, companyId: string, input: Partial<WebhookInput>): Promise<void> {
  const details = [];
  for (const [index, id] of (input.teams ?? []).entries()) {
    if ((await findTeamScope(ctx.db, id))?.company_id !== companyId) details.push({ field: `body.teams[${index}]`, message: 'is not a team of the company' });
  }
  for (const [index, id] of (input.boards ?? []).entries()) {
    if ((await findBoardById(ctx.db, id))?.company_id !== companyId) details.push({ field: `body.boards[${index}]`, message: 'is not a board of the company' });
  }
  if (details.length) throw new ValidationError('webhook filters name teams or boards outside the company', details);
}

const unique = (values: readonly string[] | undefined) => [...new Set(values ?? [])];

/** An audit entry of a webhook's change: its destination's host only (a URL may carry credentials in its path or query). */
function auditWebhook(
  db: Executor,
  caller: Caller,
  kind: AuditKind,
  row: { id: string; company_id: string; url: string },
  details: Record<string, AuditDetail>,
) {
  return recordAudit(db, actorOf(caller), {
    kind,
    company: row.company_id,
    target: { type: 'webhook', id: row.id },
    details: { host: new URL(row.url).host, ...details },
  });
}

export async function createWebhook(
  ctx: ServiceContext,
  policy: WebhookPolicy,
  caller: Caller,
  companyId: string,
  input: WebhookInput,
): Promise<{ webhook: Webhook; secret: string }> {
  await requireAccess(ctx.db, caller, { kind: 'company', id: companyId, admin: true });
  const url = await checkWebhookUrl(input.url, policy.allowPrivateNetworks);
  await checkFilters(ctx, companyId, input);
  const now = nowIso();
  const row: store.WebhookRow = {
    ...newMade(newId(), caller.userId, now),
    company_id: companyId,
    url,
    team_ids: JSON.stringify(unique(input.teams)),
    board_ids: JSON.stringify(unique(input.boards)),
    event_types: JSON.stringify(unique(input.types)),
    enabled: input.enabled === false ? 0 : 1,
    receiving_since: now,
    disabled_reason: null,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
  };
  await inTransaction(ctx, async (trx) => {
    await store.insertWebhook(trx, row);
    await auditWebhook(trx, caller, 'webhook.created', row, { enabled: row.enabled === 1, types: unique(input.types) });
  });
  return { webhook: toRecord(row, now), secret: row.secret };
}

/** The webhooks of the companies the caller owns or administers (or of `companyId`), oldest first. */
export async function listWebhooks(
  ctx: ServiceContext,
  caller: Caller,
  query: { companyId?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<Webhook>> {
  let companies = adminCompanies(caller);
  if (query.companyId !== undefined) {
    await requireAccess(ctx.db, caller, { kind: 'company', id: query.companyId, admin: true });
    companies = [query.companyId];
  }
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isCreationKey);
  const rows = await store.listWebhooks(ctx.db, companies, limit + 1, after);
  const page = toPage(rows, limit, creationKey);
  return { items: page.items.map((row) => toRecord(row)), nextCursor: page.nextCursor };
}

export async function getWebhook(ctx: ServiceContext, caller: Caller, webhookId: string): Promise<Webhook> {
  return toRecord(await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId }));
}

/**
 * Changes the URL, filters or `enabled`. Enabling a disabled webhook clears why it was disabled,
 * makes its pending deliveries due now, each with a fresh retry window, and has it receive the
 * events recorded from now on (none of those recorded while it was disabled).
 */
export async function updateWebhook(
  ctx: ServiceContext,
  policy: WebhookPolicy,
  caller: Caller,
  webhookId: string,
  input: Partial<WebhookInput>,
): Promise<Webhook> {
  const webhook = await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId });
  const url = input.url === undefined ? undefined : await checkWebhookUrl(input.url, policy.allowPrivateNetworks);
  await checkFilters(ctx, webhook.company_id, input);
  const now = nowIso();
  return inTransaction(ctx, async (trx) => {
    const changes = {
      ...(url !== undefined ? { url } : {}),
      ...(input.teams !== undefined ? { team_ids: JSON.stringify(unique(input.teams)) } : {}),
      ...(input.boards !== undefined ? { board_ids: JSON.stringify(unique(input.boards)) } : {}),
      ...(input.types !== undefined ? { event_types: JSON.stringify(unique(input.types)) } : {}),
      ...(input.enabled === true && webhook.enabled === 0 ? { enabled: 1 as const, disabled_reason: null, receiving_since: now } : {}),
      ...(input.enabled === false ? { enabled: 0 as const } : {}),
      updated_at: now,
    };
    const row = await store.updateWebhook(trx, webhookId, changes);
    if (!row) throw new NotFoundError('Webhook');
    if (input.enabled === true && webhook.enabled === 0) await store.restartPending(trx, webhookId, now);
    await auditWebhook(trx, caller, 'webhook.updated', row, { fields: Object.keys(input), enabled: row.enabled === 1 });
    return toRecord(row, now);
  });
}

/** Deletes the webhook and its deliveries (pending ones are never sent); answers what it was. */
export async function deleteWebhook(ctx: ServiceContext, caller: Caller, webhookId: string): Promise<Webhook> {
  const webhook = await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId });
  await inTransaction(ctx, async (trx) => {
    await store.deleteWebhook(trx, webhookId);
    await auditWebhook(trx, caller, 'webhook.deleted', webhook, {});
  });
  return toRecord(webhook);
}

/** Issues a new secret; the one it replaces keeps signing beside it for ROTATION_OVERLAP_MS. */
export async function rotateSecret(ctx: ServiceContext, caller: Caller, webhookId: string): Promise<{ webhook: Webhook; secret: string }> {
  const webhook = await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId });
  const now = nowIso();
  const secret = newSecret();
  const expiresAt = new Date(Date.parse(now) + ROTATION_OVERLAP_MS).toISOString();
  const row = await inTransaction(ctx, async (trx) => {
    const changes = { secret, previous_secret: webhook.secret, previous_secret_expires_at: expiresAt, updated_at: now };
    const changed = await store.updateWebhook(trx, webhookId, changes);
    if (!changed) throw new NotFoundError('Webhook');
    await auditWebhook(trx, caller, 'webhook.secret.rotated', changed, {});
    return changed;
  });
  return { webhook: toRecord(row, now), secret };
}

const isOrdinal = (key: unknown): key is number => Number.isSafeInteger(key);

/** The webhook's deliveries, newest first, optionally of one status. */
export async function listDeliveries(
  ctx: ServiceContext,
  caller: Caller,
  webhookId: string,
  query: { status?: DeliveryStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<Delivery>> {
  await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId });
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isOrdinal);
  const rows = await store.listDeliveries(ctx.db, webhookId, limit + 1, before, query.status);
  const page = toPage(rows, limit, (row) => Number(row.ordinal));
  return { items: page.items.map(toDelivery), nextCursor: page.nextCursor };
}

/**
 * Sends the delivery again (same `webhook-id`, same body): it becomes pending and due now, with a
 * fresh retry window. It goes in its place in the webhook's order, and only while the webhook is enabled.
 */
export async function redeliver(ctx: ServiceContext, caller: Caller, webhookId: string, deliveryId: string): Promise<Delivery> {
  await requireAccess(ctx.db, caller, { kind: 'webhook', id: webhookId });
  const now = nowIso();
  return inTransaction(ctx, async (trx) => {
    const delivery = await store.updateDelivery(trx, webhookId, deliveryId, {
      status: 'pending',
      next_attempt_at: now,
      first_attempt_at: null,
      delivered_at: null,
    });
    if (!delivery) throw new NotFoundError('Delivery');
    return toDelivery(delivery);
  });
}
