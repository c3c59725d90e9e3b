import type { Readable } from 'node:stream';
import type { Attachment, Card } from '../../schemas/records.ts';
import type { Executor, NewRow } from '../../storage/database.ts';
import * as attachments from '../../storage/repositories/attachments.ts';
import { recordCardChange } from '../../storage/repositories/cards.ts';
import { loadCard, reachableCard } from '../cards/service.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, PayloadTooLargeError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';

export interface IncomingFile {
  stream: Readable;
  filename: string;
  mimeType: string;
}

/** A new attachment row on the card; `fields` says what kind of attachment it is. */
function attachmentRow(
  card: { company_id: string; team_id: string },
  cardId: string,
  creatorId: string,
  at: string,
  fields: Pick<NewRow<'attachments'>, 'id' | 'kind' | 'name' | 'original_name' | 'link_url' | 'storage_key' | 'mime_type' | 'size_bytes'>,
): NewRow<'attachments'> {
  return {
    ...fields,
    company_id: card.company_id,
    team_id: card.team_id,
    card_id: cardId,
    checklist_item_id: null,
    creator_id: creatorId,
    is_deleted: 0,
    deleted_at: null,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** The attachment as the card record shows it. */
function attachmentOf(card: Card, attachmentId: string): Attachment {
  const attachment = card.attachments.find((a) => a._id === attachmentId);
  if (!attachment) throw new NotFoundError('Attachment');
  return attachment;
}

/**
 * Stores an uploaded file and records it on the card. The bytes go to disk first; the record is
 * written only once they are complete, and the file is removed again if the record cannot be.
 */
export async function uploadFile(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  file: IncomingFile,
  name: string | undefined,
): Promise<{ attachment: Attachment; card: Card }> {
  const card = await reachableCard(ctx.db, caller, cardId, scope);
  const stored = await ctx.files.save(card.company_id, file.stream).catch((error: { code?: string }) => {
    if (error.code === 'FILE_TOO_LARGE') throw new PayloadTooLargeError('The file is larger than this server accepts (MAX_UPLOAD_BYTES)');
    throw error;
  });
  const id = newId();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const now = nowIso();
      if (!(await recordCardChange(trx, cardId, now))) throw new NotFoundError('Card');
      await attachments.insertAttachment(
        trx,
        attachmentRow(card, cardId, caller.userId, now, {
          id,
          kind: 'file',
          name: (name ?? file.filename).trim() || 'file',
          original_name: file.filename,
          link_url: null,
          storage_key: stored.key,
          mime_type: file.mimeType || 'application/octet-stream',
          size_bytes: stored.size,
        }),
      );
      const updated = await loadCard(ctx, cardId, trx);
      return { attachment: attachmentOf(updated, id), card: updated };
    });
  } catch (error) {
    await ctx.files.remove(stored.key);
    throw error;
  }
}

/** Records a link (a URL, no bytes) as an attachment. */
export async function addLink(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; card: Card }> {
  const id = newId();
  return ctx.db.transaction().execute(async (trx) => {
    const card = await reachableCard(trx, caller, cardId, scope);
    const now = nowIso();
    await recordCardChange(trx, cardId, now);
    await attachments.insertAttachment(
      trx,
      attachmentRow(card, cardId, caller.userId, now, {
        id,
        kind: 'link',
        name: (link.name ?? link.url).trim(),
        original_name: link.url,
        link_url: link.url,
        storage_key: null,
        mime_type: 'text/uri-list',
        size_bytes: 0,
      }),
    );
    const updated = await loadCard(ctx, cardId, trx);
    return { attachment: attachmentOf(updated, id), card: updated };
  });
}

/** The bytes of a live file attachment of the card. */
export async function openFile(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope) {
  await reachableCard(ctx.db, caller, cardId, scope);
  const attachment = await attachments.findCardAttachment(ctx.db, cardId, attachmentId);
  if (!attachment || attachment.kind !== 'file' || !attachment.storage_key) throw new NotFoundError('Attachment');
  if (!(await ctx.files.exists(attachment.storage_key))) throw new NotFoundError('Attachment file');
  return {
    stream: ctx.files.open(attachment.storage_key),
    mimeType: attachment.mime_type,
    name: attachment.name,
    size: Number(attachment.size_bytes),
  };
}

/**
 * One change to an attachment that sits on this very card, with the card's `__v` + 1, in one
 * transaction; answers the card as the change left it. A deleted attachment, or one of another
 * card, is a 404.
 */
async function changeCardAttachment(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  attachmentId: string,
  scope: Scope,
  change: (trx: Executor, at: string) => Promise<unknown>,
): Promise<Card> {
  return ctx.db.transaction().execute(async (trx) => {
    await reachableCard(trx, caller, cardId, scope);
    const now = nowIso();
    await recordCardChange(trx, cardId, now);
    if (!(await attachments.findCardAttachment(trx, cardId, attachmentId))) throw new NotFoundError('Attachment');
    await change(trx, now);
    return loadCard(ctx, cardId, trx);
  });
}

/** Update Attachment Name on Card: the attachment's and the card's `__v` grow. */
export function renameCardAttachment(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  attachmentId: string,
  scope: Scope,
  name: string,
): Promise<Card> {
  return changeCardAttachment(ctx, caller, cardId, attachmentId, scope, (trx, at) =>
    attachments.renameAttachment(trx, attachmentId, name.trim(), at),
  );
}

/** Delete Attachment from Card: marks it deleted (it leaves `card.attachments`); the file stays. */
export function deleteCardAttachment(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  attachmentId: string,
  scope: Scope,
): Promise<Card> {
  return changeCardAttachment(ctx, caller, cardId, attachmentId, scope, (trx, at) =>
    attachments.markAttachmentDeleted(trx, attachmentId, at),
  );
}
