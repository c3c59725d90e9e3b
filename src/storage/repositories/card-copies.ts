import type { Executor, Row, Transaction } from '../database.ts';

/** Queries of card copies and moves: a card's parts, and where they belong. */

/** The card's members, in the order they joined it. */
export async function cardMemberIds(db: Executor, cardId: string): Promise<string[]> {
  return (await cardMembers(db, cardId)).map((m) => m.user_id);
}

export async function addCardMembers(db: Transaction, cardId: string, userIds: readonly string[], at: string): Promise<void> {
  await insertCardMembers(
    db,
    cardId,
    userIds.map((user_id) => ({ user_id, created_at: at })),
  );
}

/** The card's member rows, in the order they joined it. */
export async function cardMembers(db: Executor, cardId: string): Promise<Row<'card_members'>[]> {
  return db.selectFrom('card_members').selectAll().where('card_id', '=', cardId).orderBy('created_at').orderBy('user_id').execute();
}

/** Gives the card these members, each joined when its row says (a copy keeps the members' order). */
export async function insertCardMembers(db: Transaction, cardId: string, members: readonly { user_id: string; created_at: string }[]): Promise<void> {
  if (members.length === 0) return;
  await db
    .insertInto('card_members')
    .values(members.map((m) => ({ card_id: cardId, user_id: m.user_id, created_at: m.created_at })))
    .execute();
}

export async function removeCardMembers(db: Transaction, cardId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.deleteFrom('card_members').where('card_id', '=', cardId).where('user_id', 'in', userIds).execute();
}

/** Gives the card `toCardId` the labels of `fromCardId`, in the same order. */
export async function copyCardLabels(db: Transaction, fromCardId: string, toCardId: string): Promise<void> {
  await db
    .insertInto('card_labels')
    .columns(['card_id', 'label_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('card_labels')
        .select((s) => [s.val(toCardId).as('card_id'), 'label_id', 'created_at'])
        .where('card_id', '=', fromCardId),
    )
    .execute();
}

/** The member rows of these checklist items. */
export async function checklistItemMembers(db: Executor, itemIds: readonly string[]): Promise<{ item_id: string; user_id: string }[]> {
  if (itemIds.length === 0) return [];
  return db
    .selectFrom('checklist_item_members')
    .select(['item_id', 'user_id'])
    .where('item_id', 'in', itemIds)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
}

/** The members of every checklist item of the card, by item in display order. */
export async function checklistItemMembersOfCard(db: Executor, cardId: string): Promise<{ item_id: string; user_id: string }[]> {
  return db
    .selectFrom('checklist_item_members as m')
    .innerJoin('checklist_items as i', 'i.id', 'm.item_id')
    .innerJoin('checklists as k', 'k.id', 'i.checklist_id')
    .select(['m.item_id', 'm.user_id'])
    .where('i.card_id', '=', cardId)
    .orderBy('k.position')
    .orderBy('k.id')
    .orderBy('i.position')
    .orderBy('i.id')
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
}

/** The live attachments of the cards, on the card itself or on its checklist items, oldest first. */
export async function liveAttachmentsOfCards(db: Executor, cardIds: readonly string[]): Promise<Row<'attachments'>[]> {
  if (cardIds.length === 0) return [];
  return db.selectFrom('attachments').selectAll().where('card_id', 'in', cardIds).where('is_deleted', '=', 0).orderBy('created_at').orderBy('id').execute();
}

/** The tables whose rows belong to a card and carry its company and team. */
const CARD_CHILDREN = ['checklists', 'checklist_items', 'comments', 'discussions', 'cheers', 'attachments'] as const;

/**
 * Gives everything that belongs to the card the card's new company and team. Each record shows its
 * company and team, so each counts a change (`__v` + 1); `updatedAt` stays, since the content did not change.
 */
export async function moveCardChildren(db: Transaction, cardId: string, owner: { company_id: string; team_id: string }): Promise<void> {
  for (const table of CARD_CHILDREN) {
    await db
      .updateTable(table)
      .set((eb) => ({ company_id: owner.company_id, team_id: owner.team_id, version: eb('version', '+', 1) }))
      .where('card_id', '=', cardId)
      .execute();
  }
}

/**
 * Gives the copy `toCardId` the labels of `toBoardId` named and coloured as the labels of
 * `fromCardId` (the first such label when the board has several); answers the source's labels that
 * had none there, in id order.
 */
export async function carryCardLabelsByName(db: Transaction, fromCardId: string, toCardId: string, toBoardId: string, at: string): Promise<string[]> {
  const source = await db
    .selectFrom('card_labels as cl')
    .innerJoin('labels as l', 'l.id', 'cl.label_id')
    .select(['l.id', 'l.name', 'l.color_id'])
    .where('cl.card_id', '=', fromCardId)
    .orderBy('l.id')
    .execute();
  if (!source.length) return [];
  const target = await db
    .selectFrom('labels')
    .select(['id', 'name', 'color_id'])
    .where('board_id', '=', toBoardId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const byNameAndColour = new Map<string, string>();
  for (const label of target) {
    const key = `${label.name}\u0000${label.color_id}`;
    if (!byNameAndColour.has(key)) byNameAndColour.set(key, label.id);
  }
  const carried = new Set<string>();
  const dropped: string[] = [];
  for (const label of source) {
    const match = byNameAndColour.get(`${label.name}\u0000${label.color_id}`);
    if (match === undefined) dropped.push(label.id);
    else carried.add(match);
  }
  if (carried.size)
    await db
      .insertInto('card_labels')
      .values([...carried].map((labelId) => ({ card_id: toCardId, label_id: labelId, created_at: at })))
      .execute();
  return dropped;
}
