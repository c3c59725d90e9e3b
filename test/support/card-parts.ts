/**
 * A card's parts written straight to storage (checklists, items, members, comments, discussions,
 * cheers, attachments with bytes), for suites that copy or move whole cards: their own routes are
 * tested elsewhere, and these rows must not depend on them.
 */
import { Readable } from 'node:stream';
import type { ServiceContext } from '../../src/domain/context.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import type { Row } from '../../src/storage/database.ts';

export type CardOwner = Pick<Row<'cards'>, 'id' | 'company_id' | 'team_id'>;

const stamp = () => {
  const at = nowIso();
  return { created_at: at, updated_at: at, version: 0 };
};

export async function addCardMember(ctx: ServiceContext, cardId: string, userId: string): Promise<void> {
  await ctx.db.insertInto('card_members').values({ card_id: cardId, user_id: userId, created_at: nowIso() }).execute();
}

export interface ItemSpec {
  name: string;
  done?: boolean;
  date?: string | null;
  members?: string[];
}

/** A checklist at the bottom of the card's checklists, with its items in order; answers the ids. */
export async function addChecklist(
  ctx: ServiceContext,
  card: CardOwner,
  creatorId: string,
  name: string,
  items: ItemSpec[] = [],
): Promise<{ checklistId: string; itemIds: string[] }> {
  const owner = { company_id: card.company_id, team_id: card.team_id, card_id: card.id, creator_id: creatorId };
  const count = (await ctx.db.selectFrom('checklists').select('id').where('card_id', '=', card.id).execute()).length;
  const checklistId = newId();
  await ctx.db
    .insertInto('checklists')
    .values({ id: checklistId, name, position: (count + 1) * 1024, ...owner, ...stamp() })
    .execute();
  const itemIds: string[] = [];
  for (const [i, item] of items.entries()) {
    const id = newId();
    itemIds.push(id);
    await ctx.db
      .insertInto('checklist_items')
      .values({
        id,
        checklist_id: checklistId,
        name: item.name,
        position: (i + 1) * 1024,
        date: item.date ?? null,
        complete_status: item.done ? 1 : 0,
        complete_set_at: item.done ? '2026-01-02T03:04:05.000Z' : null,
        ...owner,
        ...stamp(),
      })
      .execute();
    for (const userId of item.members ?? []) {
      await ctx.db.insertInto('checklist_item_members').values({ item_id: id, user_id: userId, created_at: nowIso() }).execute();
    }
  }
  return { checklistId, itemIds };
}

/** A comment with one discussion and a cheer on each; answers their ids. */
export async function addConversation(ctx: ServiceContext, card: CardOwner, authorId: string, cheererId: string) {
  const owner = { company_id: card.company_id, team_id: card.team_id, card_id: card.id, creator_id: authorId };
  const commentId = newId();
  const discussionId = newId();
  await ctx.db
    .insertInto('comments')
    .values({ id: commentId, content: 'a comment', ...owner, ...stamp() })
    .execute();
  await ctx.db
    .insertInto('discussions')
    .values({ id: discussionId, comment_id: commentId, content: 'a reply', ...owner, ...stamp() })
    .execute();
  const cheerIds = [
    await addCheer(ctx, card, cheererId, authorId, { type: 'comment', id: commentId }, commentId),
    await addCheer(ctx, card, cheererId, authorId, { type: 'discussion', id: discussionId }, commentId),
  ];
  return { commentId, discussionId, cheerIds };
}

export async function addCheer(
  ctx: ServiceContext,
  card: CardOwner,
  creatorId: string,
  receiverId: string,
  primary: { type: 'card' | 'comment' | 'discussion' | 'attachment' | 'checklistItem'; id: string },
  commentId: string | null = null,
): Promise<string> {
  const id = newId();
  await ctx.db
    .insertInto('cheers')
    .values({
      id,
      company_id: card.company_id,
      team_id: card.team_id,
      content: '🎉',
      creator_id: creatorId,
      receiver_id: receiverId,
      primary_type: primary.type,
      primary_id: primary.id,
      secondary_type: primary.type === 'card' ? null : 'card',
      secondary_id: primary.type === 'card' ? null : card.id,
      card_id: card.id,
      comment_id: commentId,
      feature_type: primary.type,
      is_notified: 0,
      notification: '',
      ...stamp(),
    })
    .execute();
  return id;
}

type AttachmentFields = Pick<
  Row<'attachments'>,
  'checklist_item_id' | 'kind' | 'name' | 'original_name' | 'link_url' | 'storage_key' | 'mime_type' | 'size_bytes'
>;

async function insertAttachment(ctx: ServiceContext, card: CardOwner, creatorId: string, fields: AttachmentFields, deleted = false): Promise<string> {
  const id = newId();
  await ctx.db
    .insertInto('attachments')
    .values({
      id,
      company_id: card.company_id,
      team_id: card.team_id,
      card_id: card.id,
      ...fields,
      creator_id: creatorId,
      is_deleted: deleted ? 1 : 0,
      deleted_at: deleted ? nowIso() : null,
      ...stamp(),
    })
    .execute();
  return id;
}

/** A file attachment (bytes stored through the app's files) on the card or on one of its items. */
export async function addFileAttachment(
  ctx: ServiceContext,
  card: CardOwner,
  creatorId: string,
  name: string,
  content: string,
  checklistItemId: string | null = null,
): Promise<{ attachmentId: string; storageKey: string }> {
  const stored = await ctx.files.save(card.company_id, Readable.from([Buffer.from(content)]));
  const attachmentId = await insertAttachment(ctx, card, creatorId, {
    checklist_item_id: checklistItemId,
    kind: 'file',
    name,
    original_name: `${name}.txt`,
    link_url: null,
    storage_key: stored.key,
    mime_type: 'text/plain',
    size_bytes: stored.size,
  });
  return { attachmentId, storageKey: stored.key };
}

export function addLinkAttachment(ctx: ServiceContext, card: CardOwner, creatorId: string, name: string, url: string, deleted = false): Promise<string> {
  const fields: AttachmentFields = {
    checklist_item_id: null,
    kind: 'link',
    name,
    original_name: url,
    link_url: url,
    storage_key: null,
    mime_type: 'text/uri-list',
    size_bytes: 0,
  };
  return insertAttachment(ctx, card, creatorId, fields, deleted);
}

export async function markSeen(ctx: ServiceContext, cardId: string, userId: string): Promise<void> {
  await ctx.db.insertInto('card_seen').values({ card_id: cardId, user_id: userId, seen_at: nowIso() }).execute();
}
