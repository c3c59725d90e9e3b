import type { Readable } from 'node:stream';
import type { ChecklistItem } from '../../schemas/checklists.ts';
import type { Attachment, Card } from '../../schemas/records.ts';
import type { Executor, NewRow } from '../../storage/database.ts';
import * as attachments from '../../storage/repositories/attachments.ts';
import { reachableCard } from '../cards/service.ts';
import { changeCard } from '../cards/update.ts';
import { reachableItem } from '../checklists/access.ts';
import { changeItem } from '../checklists/items.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, PayloadTooLargeError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';

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

/**
 * What attachments hang on: a card, or a checklist item of a card. The one set of attachment
 * operations below serves both; a parent says how it is reached, where its live attachments are
 * found, and how a change to them is recorded and answered: through the parent's own change
 * (`changeCard`, `changeItem`: one transaction that records the change of the card first, and of the
 * item too, checks the reach on the rows read under the card's lock, and answers the parent's record).
 */
interface Parent<R extends { attachments: Attachment[] }> {
  reach(db: Executor, caller: Caller, scope: Scope): Promise<AttachmentOwner>;
  findAttachment(db: Executor, attachmentId: string): Promise<attachments.AttachmentTableRow | undefined>;
  change(ctx: ServiceContext, caller: Caller, scope: Scope, change: (trx: Executor, owner: AttachmentOwner, at: string) => Promise<void>): Promise<R>;
}

function onCard(cardId: string): Parent<Card> {
  const ownerOf = (card: { id: string; company_id: string; team_id: string }): AttachmentOwner => ({
    company_id: card.company_id,
    team_id: card.team_id,
    card_id: card.id,
    checklist_item_id: null,
  });
  return {
    reach: async (db, caller, scope) => ownerOf(await reachableCard(db, caller, cardId, scope)),
    findAttachment: (db, attachmentId) => attachments.findCardAttachment(db, cardId, attachmentId),
    change: (ctx, caller, scope, change) => changeCard(ctx, caller, cardId, scope, (trx, card, at) => change(trx, ownerOf(card), at)),
  };
}

function onItem(itemId: string): Parent<ChecklistItem> {
  const ownerOf = (item: Omit<AttachmentOwner, 'checklist_item_id'>): AttachmentOwner => ({
    company_id: item.company_id,
    team_id: item.team_id,
    card_id: item.card_id,
    checklist_item_id: itemId,
  });
  return {
    reach: async (db, caller, scope) => ownerOf(await reachableItem(db, caller, itemId, scope)),
    findAttachment: (db, attachmentId) => attachments.findItemAttachment(db, itemId, attachmentId),
    change: (ctx, caller, scope, change) =>
      changeItem(ctx, caller, itemId, scope, async (trx, item, at) => {
        await change(trx, ownerOf(item), at);
        return {};
      }),
  };
}

export type AttachmentFields = Pick<NewRow<'attachments'>, 'id' | 'kind' | 'name' | 'original_name' | 'link_url' | 'storage_key' | 'mime_type' | 'size_bytes'>;

/** A new attachment row for the owner; `fields` says what kind of attachment it is. */
export function attachmentRow(owner: AttachmentOwner, creatorId: string, at: string, fields: AttachmentFields): NewRow<'attachments'> {
  return {
    ...fields,
    ...owner,
    creator_id: creatorId,
    is_deleted: 0,
    deleted_at: null,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** The attachment as the parent's record shows it. */
function attachmentOf(record: { attachments: Attachment[] }, attachmentId: string): Attachment {
  const attachment = record.attachments.find((a) => a._id === attachmentId);
  if (!attachment) throw new NotFoundError('Attachment');
  return attachment;
}

/**
 * Stores an uploaded file and records it on the parent. The bytes go to disk first (after the reach
 * check, so a refused caller stores nothing); the record is written only once they are complete and
 * the rest of the request is accepted, and the file is removed again if the record cannot be.
 */
async function storeFile<R extends { attachments: Attachment[] }>(
  ctx: ServiceContext,
  caller: Caller,
  parent: Parent<R>,
  scope: Scope,
  file: IncomingFile,
  name: string | undefined,
): Promise<{ attachment: Attachment; record: R }> {
  const owner = await parent.reach(ctx.db, caller, scope);
  const stored = await ctx.files.save(owner.company_id, file.stream).catch((error: { code?: string }) => {
    if (error.code === 'FILE_TOO_LARGE') throw new PayloadTooLargeError('The file is larger than this server accepts (MAX_UPLOAD_BYTES)');
    throw error;
  });
  const id = newId();
  try {
    const record = await parent.change(ctx, caller, scope, (trx, current, at) =>
      attachments.insertAttachment(
        trx,
        attachmentRow(current, caller.userId, at, {
          id,
          kind: 'file',
          name: (name ?? file.filename).trim() || 'file',
          original_name: file.filename,
          link_url: null,
          storage_key: stored.key,
          mime_type: file.mimeType || 'application/octet-stream',
          size_bytes: stored.size,
        }),
      ),
    );
    return { attachment: attachmentOf(record, id), record };
  } catch (error) {
    await ctx.files.remove(stored.key);
    throw error;
  }
}

/** Records a link (a URL, no bytes) as an attachment of the parent. */
async function storeLink<R extends { attachments: Attachment[] }>(
  ctx: ServiceContext,
  caller: Caller,
  parent: Parent<R>,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; record: R }> {
  const id = newId();
  const record = await parent.change(ctx, caller, scope, (trx, owner, at) =>
    attachments.insertAttachment(
      trx,
      attachmentRow(owner, caller.userId, at, {
        id,
        kind: 'link',
        name: (link.name ?? link.url).trim(),
        original_name: link.url,
        link_url: link.url,
        storage_key: null,
        mime_type: 'text/uri-list',
        size_bytes: 0,
      }),
    ),
  );
  return { attachment: attachmentOf(record, id), record };
}

/**
 * One change to a live attachment of this very parent, recorded as a change of the parent (and its
 * card); answers the parent as the change left it. A deleted attachment, or one of another parent,
 * is a 404.
 */
function changeAttachment<R extends { attachments: Attachment[] }>(
  ctx: ServiceContext,
  caller: Caller,
  parent: Parent<R>,
  attachmentId: string,
  scope: Scope,
  change: (trx: Executor, at: string) => Promise<unknown>,
): Promise<R> {
  return parent.change(ctx, caller, scope, async (trx, _owner, at) => {
    if (!(await parent.findAttachment(trx, attachmentId))) throw new NotFoundError('Attachment');
    await change(trx, at);
  });
}

const rename = (attachmentId: string, name: string) => (trx: Executor, at: string) => attachments.recordAttachmentChange(trx, attachmentId, at, { name: name.trim() });
/** Marks it deleted (it leaves its parent's `attachments`); the file stays until the purge. */
const markDeleted = (attachmentId: string) => (trx: Executor, at: string) => attachments.markAttachmentDeleted(trx, attachmentId, at);

/** Upload Attachment (a file) to a card. */
export async function uploadFile(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  file: IncomingFile,
  name: string | undefined,
): Promise<{ attachment: Attachment; card: Card }> {
  const { attachment, record } = await storeFile(ctx, caller, onCard(cardId), scope, file, name);
  return { attachment, card: record };
}

/** Upload Attachment (a link) to a card. */
export async function addLink(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; card: Card }> {
  const { attachment, record } = await storeLink(ctx, caller, onCard(cardId), scope, link);
  return { attachment, card: record };
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
  const { attachment, record } = await storeFile(ctx, caller, onItem(itemId), scope, file, name);
  return { attachment, checklistItem: record };
}

/** Upload on Checklist Item (a link). */
export async function addItemLink(
  ctx: ServiceContext,
  caller: Caller,
  itemId: string,
  scope: Scope,
  link: { url: string; name?: string | undefined },
): Promise<{ attachment: Attachment; checklistItem: ChecklistItem }> {
  const { attachment, record } = await storeLink(ctx, caller, onItem(itemId), scope, link);
  return { attachment, checklistItem: record };
}

/**
 * The bytes of a live file attachment of the card, or of one of its checklist items (their records'
 * `url` points here too).
 */
export async function openFile(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope) {
  await reachableCard(ctx.db, caller, cardId, scope);
  const attachment = await attachments.findLiveAttachmentOfCard(ctx.db, cardId, attachmentId);
  if (!attachment || attachment.kind !== 'file' || !attachment.storage_key) throw new NotFoundError('Attachment');
  if (!(await ctx.files.exists(attachment.storage_key))) throw new NotFoundError('Attachment file');
  return {
    stream: ctx.files.open(attachment.storage_key),
    mimeType: attachment.mime_type,
    name: attachment.name,
    size: Number(attachment.size_bytes),
  };
}

/** Update Attachment Name on Card: the attachment's and the card's `__v` grow. */
export function renameCardAttachment(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope, name: string): Promise<Card> {
  return changeAttachment(ctx, caller, onCard(cardId), attachmentId, scope, rename(attachmentId, name));
}

/** Delete Attachment from Card: marks it deleted (it leaves `card.attachments`); the file stays. */
export function deleteCardAttachment(ctx: ServiceContext, caller: Caller, cardId: string, attachmentId: string, scope: Scope): Promise<Card> {
  return changeAttachment(ctx, caller, onCard(cardId), attachmentId, scope, markDeleted(attachmentId));
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
  return changeAttachment(ctx, caller, onItem(itemId), attachmentId, scope, rename(attachmentId, name));
}

/** Delete on Checklist Item: marks it deleted (it leaves the item's `attachments`); the file stays. */
export function deleteItemAttachment(ctx: ServiceContext, caller: Caller, itemId: string, attachmentId: string, scope: Scope): Promise<ChecklistItem> {
  return changeAttachment(ctx, caller, onItem(itemId), attachmentId, scope, markDeleted(attachmentId));
}
