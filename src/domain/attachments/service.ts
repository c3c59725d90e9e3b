import type { Readable } from 'node:stream';
import type { ChecklistItem } from '../../schemas/checklists.ts';
import type { Attachment, Card } from '../../schemas/records.ts';
import { type AttachmentStore, type ByteRange, StoredObjectMissing } from '../../storage/attachment-store.ts';
import type { NewRow, Transaction } from '../../storage/database.ts';
import * as attachments from '../../storage/repositories/attachments.ts';
import { requireAccess } from '../access/access.ts';
import { changeCard } from '../cards/change.ts';
import type { ChangeData } from '../cards/recorder.ts';
import { changeItem } from '../checklists/items.ts';
import type { ServiceContext } from '../context.ts';
import { changedFields } from '../events/record.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, PayloadTooLargeError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { newMade } from '../shared/records.ts';

export interface IncomingFile {
  /** The bytes; a stream that fails (the request was refused) leaves nothing recorded. */
  stream: Readable;
  filename: string;
  mimeType: string;
}

/** Where an attachment sits: its company and team, its card, and its checklist item (or null). */
export interface AttachmentOwner {
  company_id: string;
  team_id: string;
  card_id: string;
  checklist_item_id: string | null;
}

/** The owner an attachment of the card itself has. */
function cardOwner(card: { id: string; company_id: string; team_id: string }): AttachmentOwner {
  return { company_id: card.company_id, team_id: card.team_id, card_id: card.id, checklist_item_id: null };
}

/** The owner an attachment of the checklist item has. */
function itemOwner(item: { id: string; company_id: string; team_id: string; card_id: string }): AttachmentOwner {
  return { company_id: item.company_id, team_id: item.team_id, card_id: item.card_id, checklist_item_id: item.id };
}

export type AttachmentFields = Pick<
  NewRow<'attachments'>,
  'id' | 'kind' | 'name' | 'original_name' | 'link_url' | 'storage_key' | 'mime_type' | 'size_bytes' | 'sha256'
>;

/** A new attachment row for the owner; `fields` says what kind of attachment it is. */
export function attachmentRow(owner: AttachmentOwner, creatorId: string, at: string, fields: AttachmentFields): NewRow<'attachments'> {
  return { ...fields, ...owner, ...newMade(fields.id, creatorId, at), is_deleted: 0, deleted_at: null };
}

/**
 * Renames a live attachment of this owner: 404 when it is not one. Its name before is read under the
 * card's lock the change holds, so the event's `before` is the name this rename replaced.
 */
async function renameAttachment(trx: Transaction, owner: AttachmentOwner, attachmentId: string, name: string, at: string): Promise<ChangeData> {
  const attachment = await attachments.findOwnedAttachment(trx, owner, attachmentId);
  if (!attachment || !(await attachments.changeOwnedAttachment(trx, owner, attachmentId, at, { name: name.trim() }))) throw new NotFoundError('Attachment');
  return { attachment: attachmentId, ...changedFields({ name: attachment.name }, { name: name.trim() }) };
}

/** What an `attachment.created` event tells of the new attachment: ids and names, never its bytes. */
function attachmentFacts(fields: AttachmentFields) {
  return { attachment: fields.id, kind: fields.kind, name: fields.name, mimeType: fields.mime_type, size: Number(fields.size_bytes) };
}

/** Marks a live attachment of this owner deleted (it leaves its owner's `attachments`; the file stays until the purge): 404 when no row changed. */
async function deleteAttachment(trx: Transaction, owner: AttachmentOwner, attachmentId: string, at: string): Promise<ChangeData> {
  if (!(await attachments.changeOwnedAttachment(trx, owner, attachmentId, at, { is_deleted: 1, deleted_at: at }))) throw new NotFoundError('Attachment');
  return { attachment: attachmentId };
}

/** The attachment as its owner's record shows it. */
function attachmentOf(record: { attachments: Attachment[] }, attachmentId: string): Attachment {
  const attachment = record.attachments.find((a) => a._id === attachmentId);
  if (!attachment) throw new NotFoundError('Attachment');
  return attachment;
}

/**
 * Stores an uploaded file in the company's folder, then has `record` record it. The bytes go to disk
 * first (the caller checked reach already, so a refused caller stores nothing); the record is
 * written only once the stream ended without error (the uploads plugin fails it when anything
 * follows the file in the form), and the file is removed again if the record cannot be.
 */
async function storeFile<R>(
  ctx: ServiceContext,
  companyId: string,
  file: IncomingFile,
  name: string | undefined,
  record: (fields: AttachmentFields) => Promise<R>,
): Promise<R> {
  const stored = await ctx.files.save(companyId, file.stream).catch((error: { code?: string }) => {
    if (error.code === 'FILE_TOO_LARGE') throw new PayloadTooLargeError('The file is larger than this server accepts (MAX_UPLOAD_BYTES)');
    throw error;
  });
  try {
    return await record({
      id: newId(),
      kind: 'file',
      name: (name ?? file.filename).trim() || 'file',
      original_name: file.filename,
      link_url: null,
      storage_key: stored.key,
      mime_type: file.mimeType || 'application/octet-stream',
      size_bytes: stored.size,
      sha256: stored.sha256,
    });
  } catch (error) {
    await ctx.files.remove(stored.key);
    throw error;
  }
}

/** The fields of a link (a URL, no bytes). */
function linkFields(link: { url: string; name?: string | undefined }): AttachmentFields {
  return {
    id: newId(),
    kind: 'link',
    name: (link.name ?? link.url).trim(),
    original_name: link.url,
    link_url: link.url,
    storage_key: null,
    mime_type: 'text/uri-list',
    size_bytes: 0,
    sha256: null,
  };
}

/** Records an attachment on the card, through the card's change path. */
async function addToCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  fields: AttachmentFields,
): Promise<{ attachment: Attachment; card: Card }> {
  const card = await changeCard(ctx, caller, cardId, scope, 'attachment.created', async (trx, row, at) => {
    await attachments.insertAttachment(trx, attachmentRow(cardOwner(row), caller.userId, at, fields));
    return attachmentFacts(fields);
  });
  return { attachment: attachmentOf(card, fields.id), card };
}

/** Records an attachment on the checklist item, through the item's change (and so its card's). */
async function addToItem(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  fields: AttachmentFields,
): Promise<{ attachment: Attachment; checklistItem: ChecklistItem }> {
  const checklistItem = await changeItem(ctx, caller, itemId, scope, 'attachment.created', async (trx, item, at) => {
    await attachments.insertAttachment(trx, attachmentRow(itemOwner(item), caller.userId, at, fields));
    return { data: attachmentFacts(fields) };
  });
  return { attachment: attachmentOf(checklistItem, fields.id), checklistItem };
}

/** Upload Attachment (a file) to a card. */
export async function uploadFile(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  file: IncomingFile,
  name: string | undefined,
): Promise<{ attachment: Attachment; card: Card }> {
  const card = await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  return storeFile(ctx, card.company_id, file, name, (fields) => addToCard(ctx, caller, cardId, scope, fields));
}

/** Upload Attachment (a link) to a card. */
export function addLink(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; card: Card }> {
  return addToCard(ctx, caller, cardId, scope, linkFields(link));
}

/** Upload on Checklist Item (a file). */
export async function uploadItemFile(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  file: IncomingFile,
  name: string | undefined,
): Promise<{ attachment: Attachment; checklistItem: ChecklistItem }> {
  const item = await requireAccess(ctx.db, caller, { kind: 'item', id: itemId, scope });
  return storeFile(ctx, item.company_id, file, name, (fields) => addToItem(ctx, caller, itemId, scope, fields));
}

/** Upload on Checklist Item (a link). */
export function addItemLink(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; checklistItem: ChecklistItem }> {
  return addToItem(ctx, caller, itemId, scope, linkFields(link));
}

/**
 * The bytes of a live file attachment of the card, or of one of its checklist items (their records'
 * `url` points here too).
 */
export async function openFile(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope): Promise<StoredFile> {
  await requireAccess(ctx.db, caller, { kind: 'card', id: cardId, scope });
  const attachment = await attachments.findLiveAttachmentOfCard(ctx.db, cardId, attachmentId);
  if (!attachment || attachment.kind !== 'file' || !attachment.storage_key) throw new NotFoundError('Attachment');
  const key = attachment.storage_key;
  const missing = (error: unknown) => {
    if (error instanceof StoredObjectMissing) throw new NotFoundError('Attachment file');
    throw error;
  };
  const name = attachment.name;
  const mimeType = attachment.mime_type;
  return {
    mimeType,
    name,
    size: Number(attachment.size_bytes),
    sha256: attachment.sha256,
    read: (range) => ctx.files.open(key, range).catch(missing),
    ...(ctx.files.presign
      ? {
          presign: (expiresSeconds: number) =>
            (ctx.files.presign as NonNullable<AttachmentStore['presign']>)(key, { filename: name, mimeType, expiresSeconds }),
        }
      : {}),
  };
}

/** A file attachment the caller may download: what its record says, and how to read its bytes. */
export interface StoredFile {
  mimeType: string;
  name: string;
  size: number;
  /** SHA-256 of the bytes (hex); null for a file stored before checksums were kept. */
  sha256: string | null;
  /** The bytes, or a range of them; a missing object is a 404. */
  read(range?: ByteRange): Promise<Readable>;
  /** A URL of the store to download from directly (a bucket's presigned GET), where the store has them. */
  presign?(expiresSeconds: number): Promise<string>;
}

/** Update Attachment Name on Card: the attachment's and the card's `__v` grow. */
export function renameCardAttachment(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope, name: string): Promise<Card> {
  return changeCard(ctx, caller, cardId, scope, 'attachment.renamed', (trx, card, at) => renameAttachment(trx, cardOwner(card), attachmentId, name, at));
}

/** Delete Attachment from Card: marks it deleted (it leaves `card.attachments`); the file stays. */
export function deleteCardAttachment(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope): Promise<Card> {
  return changeCard(ctx, caller, cardId, scope, 'attachment.deleted', (trx, card, at) => deleteAttachment(trx, cardOwner(card), attachmentId, at));
}

/** Update Name on Checklist Item: the attachment's, the item's, its checklist's and the card's `__v` grow. */
export function renameItemAttachment(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  attachmentId: string,
  scope: Scope,
  name: string,
): Promise<ChecklistItem> {
  return changeItem(ctx, caller, itemId, scope, 'attachment.renamed', async (trx, item, at) => ({
    data: await renameAttachment(trx, itemOwner(item), attachmentId, name, at),
  }));
}

/** Delete on Checklist Item: marks it deleted (it leaves the item's `attachments`); the file stays. */
export function deleteItemAttachment(ctx: ServiceContext, caller: Caller, itemId: string, attachmentId: string, scope: Scope): Promise<ChecklistItem> {
  return changeItem(ctx, caller, itemId, scope, 'attachment.deleted', async (trx, item, at) => ({
    data: await deleteAttachment(trx, itemOwner(item), attachmentId, at),
  }));
}
