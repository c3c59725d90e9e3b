/** The reads of a board export: the board's own rows, then its cards and their parts a batch at a time. */
import type { Executor } from '../database.ts';

export function exportedLists(db: Executor, boardId: string) {
  return db
    .selectFrom('lists')
    .select(['id', 'name', 'position', 'archived', 'created_at'])
    .where('board_id', '=', boardId)
    .where('deleted_at', 'is', null)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export function exportedLabels(db: Executor, boardId: string) {
  return db
    .selectFrom('labels as l')
    .innerJoin('label_colors as lc', 'lc.id', 'l.color_id')
    .select(['l.id', 'l.name', 'lc.name as color', 'lc.hex', 'l.created_at'])
    .where('l.board_id', '=', boardId)
    .orderBy('l.created_at')
    .orderBy('l.id')
    .execute();
}

/** Up to `limit` cards of the list after position `after` (and id `afterId`), in position order. */
export function exportedCardsOfList(db: Executor, listId: string, after: { position: number; id: string } | undefined, limit: number) {
  let query = db
    .selectFrom('cards')
    .select([
      'id',
      'list_id',
      'name',
      'description',
      'position',
      'start_date',
      'due_date',
      'complete_status',
      'is_template',
      'archived',
      'creator_id',
      'created_at',
      'updated_at',
    ])
    .where('list_id', '=', listId)
    .where('deleted_at', 'is', null);
  if (after) query = query.where((eb) => eb.or([eb('position', '>', after.position), eb.and([eb('position', '=', after.position), eb('id', '>', after.id)])]));
  return query.orderBy('position').orderBy('id').limit(limit).execute();
}

/** Every part of the cards `cardIds` a board export carries, each kind in one query. */
export async function exportedCardParts(db: Executor, cardIds: string[]) {
  if (cardIds.length === 0)
    return {
      members: [],
      labels: [],
      checklists: [],
      items: [],
      itemMembers: [],
      comments: [],
      discussions: [],
      cheers: [],
      attachments: [],
      values: [],
      choices: [],
    };
  const [members, labels, checklists, items, comments, discussions, cheers, attachments, values, choices] = await Promise.all([
    db.selectFrom('card_members').select(['card_id', 'user_id']).where('card_id', 'in', cardIds).orderBy('created_at').orderBy('user_id').execute(),
    db.selectFrom('card_labels').select(['card_id', 'label_id']).where('card_id', 'in', cardIds).orderBy('created_at').orderBy('label_id').execute(),
    db.selectFrom('checklists').select(['id', 'card_id', 'name', 'position']).where('card_id', 'in', cardIds).orderBy('position').orderBy('id').execute(),
    db
      .selectFrom('checklist_items')
      .select(['id', 'checklist_id', 'name', 'position', 'date', 'complete_status'])
      .where('card_id', 'in', cardIds)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('comments')
      .select(['id', 'card_id', 'content', 'creator_id', 'created_at'])
      .where('card_id', 'in', cardIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('discussions')
      .select(['id', 'comment_id', 'content', 'creator_id', 'created_at'])
      .where('card_id', 'in', cardIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('cheers')
      .select(['id', 'card_id', 'content', 'creator_id', 'receiver_id', 'primary_type', 'primary_id', 'created_at'])
      .where('card_id', 'in', cardIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('attachments')
      .select([
        'id',
        'card_id',
        'checklist_item_id',
        'kind',
        'name',
        'original_name',
        'link_url',
        'storage_key',
        'mime_type',
        'size_bytes',
        'sha256',
        'creator_id',
        'created_at',
      ])
      .where('card_id', 'in', cardIds)
      .where('is_deleted', '=', 0)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('card_field_values as v')
      .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
      .select(['v.card_id', 'v.field_id', 'f.type', 'f.position as field_position', 'v.text_value', 'v.number_value'])
      .where('v.card_id', 'in', cardIds)
      .orderBy('f.position')
      .orderBy('f.id')
      .execute(),
    db
      .selectFrom('card_field_choices as c')
      .innerJoin('custom_fields as f', 'f.id', 'c.field_id')
      .innerJoin('custom_field_options as o', 'o.id', 'c.option_id')
      .select(['c.card_id', 'c.field_id', 'f.type', 'f.position as field_position', 'c.option_id'])
      .where('c.card_id', 'in', cardIds)
      .orderBy('f.position')
      .orderBy('f.id')
      .orderBy('o.position')
      .orderBy('o.id')
      .execute(),
  ]);
  const itemIds = items.map((item) => item.id);
  const itemMembers = itemIds.length
    ? await db
        .selectFrom('checklist_item_members')
        .select(['item_id', 'user_id'])
        .where('item_id', 'in', itemIds)
        .orderBy('created_at')
        .orderBy('user_id')
        .execute()
    : [];
  return { members, labels, checklists, items, itemMembers, comments, discussions, cheers, attachments, values, choices };
}

/** The board's custom fields in their order, and their options with colours. */
export async function exportedFields(db: Executor, boardId: string) {
  const fields = await db
    .selectFrom('custom_fields')
    .select(['id', 'name', 'type', 'unit', 'position', 'show_on_card'])
    .where('board_id', '=', boardId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  const options = fields.length
    ? await db
        .selectFrom('custom_field_options as o')
        .innerJoin('label_colors as lc', 'lc.id', 'o.color_id')
        .select(['o.id', 'o.field_id', 'o.name', 'lc.name as color', 'lc.hex'])
        .where(
          'o.field_id',
          'in',
          fields.map((field) => field.id),
        )
        .orderBy('o.position')
        .orderBy('o.id')
        .execute()
    : [];
  return { fields, options };
}

/** The relations between two cards of the board, neither deleted. */
export function exportedRelations(db: Executor, boardId: string) {
  return db
    .selectFrom('card_relations as r')
    .innerJoin('cards as a', 'a.id', 'r.from_card_id')
    .innerJoin('cards as b', 'b.id', 'r.to_card_id')
    .select(['r.from_card_id', 'r.kind', 'r.to_card_id', 'r.created_at'])
    .where('a.board_id', '=', boardId)
    .where('b.board_id', '=', boardId)
    .where('a.deleted_at', 'is', null)
    .where('b.deleted_at', 'is', null)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
}

export function exportedPeople(db: Executor, userIds: string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('users').select(['id', 'full_name']).where('id', 'in', userIds).orderBy('full_name').orderBy('id').execute();
}
