/**
 * Copy Card, Copy Cards (within a team) and Copy Cards Multi Team.
 *
 * A copy is a new card (new id, `__v` 0, the caller as creator) with the source's fields; what else
 * comes along is chosen by `keep` (every part by default): labels (only onto the same board, since a
 * label belongs to a board; a template's onto another board as the labels of the same name and
 * colour there), members (only those in the target team), checklists with their items
 * (through the checklists' own copy), and the live attachments, each a new record; a file gets a
 * copy of its bytes, so deleting one never touches the other. Comments, cheers and `seen` are never
 * copied. What the copy could not keep is named in the answer's `dropped`.
 */
import type { Card } from '../../schemas/records.ts';
import type { Executor, Row, Transaction } from '../../storage/database.ts';
import { insertAttachment } from '../../storage/repositories/attachments.ts';
import * as copies from '../../storage/repositories/card-copies.ts';
import { cardLabelIds, insertCard, lastCardPosition, setCardColumns } from '../../storage/repositories/cards.ts';
import type { ListRow } from '../../storage/repositories/lists.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import { requireAccess, requireAccessToEach } from '../access/access.ts';
import { attachmentRow } from '../attachments/service.ts';
import { copyChecklistsOfCard, type ItemCopies } from '../checklists/copy.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { carryFieldValues } from '../fields/carry.ts';
import { rejectRepeatedIds } from '../shared/bulk.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import type { PositionRequest } from '../shared/positions.ts';
import { inTransaction } from '../shared/transaction.ts';
import {
  type BulkCardsResult,
  bottomPositions,
  type DroppedParts,
  groupByItem,
  lostAnything,
  type MultiTeamCards,
  multiTeamRef,
  multiTeamTargetList,
} from './bulk-targets.ts';
import { type FileCopies, withFileCopies } from './file-copies.ts';
import { lockCards, lockList, placeCard } from './locks.ts';
import { attachmentUrl } from './records.ts';
import { loadCard, loadCards } from './service.ts';

export type { BulkCardsResult, DroppedParts, MultiTeamCard, MultiTeamCards } from './bulk-targets.ts';

export interface CopyKeep {
  labels?: boolean | undefined;
  members?: boolean | undefined;
  checklists?: boolean | undefined;
  attachments?: boolean | undefined;
}

export interface CopyCardInput {
  list: string;
  name?: string | undefined;
  position?: PositionRequest | undefined;
  keep?: CopyKeep | undefined;
}

const KEEP_ALL: Required<CopyKeep> = { labels: true, members: true, checklists: true, attachments: true };

/** Ids that sort in the given order: records created in one instant keep their source's order (ties sort by id). */
function orderedIds(count: number, at: string): string[] {
  return Array.from({ length: count }, () => newId(Date.parse(at))).sort();
}

/** What a copy of `source` keeps, and what it dropped, written inside the caller's transaction. */
async function writeCopy(
  trx: Transaction,
  files: FileCopies,
  source: Row<'cards'>,
  target: { list: ListRow; position: number; name?: string | undefined },
  keep: Required<CopyKeep>,
  caller: Caller,
  at: string,
): Promise<{ id: string; dropped: DroppedParts }> {
  const { list } = target;
  const creatorId = caller.userId;
  const id = newId(Date.parse(at));
  const dropped: DroppedParts = { cardId: id, labels: [], members: [], checklistItemMembers: [], customFields: [] };
  const owner = { company_id: list.company_id, team_id: list.team_id };
  await insertCard(trx, {
    id,
    ...owner,
    board_id: list.board_id,
    list_id: list.id,
    name: target.name?.trim() ?? source.name,
    description: source.description,
    cover: source.cover,
    creator_id: creatorId,
    position: target.position,
    start_date: source.start_date,
    due_date: source.due_date,
    complete_status: source.complete_status,
    complete_type: source.complete_type,
    complete_set_at: at,
    complete_updated_at: at,
    is_public: source.is_public,
    workload_value: source.workload_value,
    workload_measurement: source.workload_measurement,
    created_at: at,
    updated_at: at,
    version: 0,
  });

  if (keep.labels) {
    if (list.board_id === source.board_id) await copies.copyCardLabels(trx, source.id, id);
    // a template serves every board of its team: its labels become the labels of the same name and colour there
    else if (Number(source.is_template)) dropped.labels = await copies.carryCardLabelsByName(trx, source.id, id, list.board_id, at);
    else dropped.labels = (await cardLabelIds(trx, source.id)).sort();
  }
  if (keep.members) {
    const members = await copies.cardMembers(trx, source.id);
    const inTeam = await teamMembersAmong(
      trx,
      list.team_id,
      members.map((m) => m.user_id),
    );
    await copies.insertCardMembers(
      trx,
      id,
      members.filter((m) => inTeam.has(m.user_id)),
    );
    dropped.members = members.filter((m) => !inTeam.has(m.user_id)).map((m) => m.user_id);
  }
  dropped.customFields = await carryFieldValues(trx, source.id, source.board_id, { cardId: id, boardId: list.board_id, teamId: list.team_id });
  // which item of the copy each source item became (checklists' own copy: item members only when in the copy's team)
  const itemCopies: ItemCopies = keep.checklists ? (await copyChecklistsOfCard(trx, source.id, { id, ...owner }, creatorId, at)).items : new Map();
  dropped.checklistItemMembers = keep.checklists ? await droppedItemMembers(trx, itemCopies, list.team_id) : [];

  if (keep.attachments) {
    // Attachments of checklist items come along with the copies of their items.
    const sources = (await copies.liveAttachmentsOfCards(trx, [source.id])).filter((a) => a.checklist_item_id === null || itemCopies.has(a.checklist_item_id));
    const ids = orderedIds(sources.length, at);
    for (const [i, a] of sources.entries()) {
      const bytes = await files.take(a);
      const itemId = a.checklist_item_id === null ? null : (itemCopies.get(a.checklist_item_id) as string);
      await insertAttachment(
        trx,
        attachmentRow({ ...owner, card_id: id, checklist_item_id: itemId }, creatorId, at, {
          id: ids[i] as string,
          kind: a.kind,
          name: a.name,
          original_name: a.original_name,
          link_url: a.link_url,
          storage_key: bytes.key,
          mime_type: a.mime_type,
          size_bytes: bytes.size,
          sha256: a.sha256,
        }),
      );
    }
    // A cover that shows one of the card's files shows the copy's file on the copy.
    const cover = sources.findIndex((a) => a.kind === 'file' && a.checklist_item_id === null && attachmentUrl(a) === source.cover);
    if (cover >= 0) await setCardColumns(trx, id, { cover: attachmentUrl({ id: ids[cover] as string, card_id: id, kind: 'file', link_url: null }) });
  }
  // an event of the copy (the card it creates); the source card is not changed
  recordEvent(
    trx,
    caller,
    'card.copied',
    { company: list.company_id, team: list.team_id, board: list.board_id, card: id },
    {
      source: source.id,
      list: list.id,
      position: target.position,
      dropped: { labels: dropped.labels, members: dropped.members, checklistItemMembers: dropped.checklistItemMembers, customFields: dropped.customFields },
    },
    at,
  );
  return { id, dropped };
}

/** The members of source items that their copies did not keep (not in the target team), by copied item in display order. */
async function droppedItemMembers(trx: Transaction, itemCopies: ReadonlyMap<string, string>, teamId: string): Promise<DroppedParts['checklistItemMembers']> {
  const order = new Map([...itemCopies.keys()].map((id, i) => [id, i]));
  const members = await copies.checklistItemMembers(trx, [...order.keys()]);
  const inTeam = await teamMembersAmong(trx, teamId, [...new Set(members.map((m) => m.user_id))]);
  const lost = members.filter((m) => !inTeam.has(m.user_id)).sort((a, b) => (order.get(a.item_id) as number) - (order.get(b.item_id) as number));
  return groupByItem(lost.map((m) => ({ item_id: itemCopies.get(m.item_id) as string, user_id: m.user_id })));
}

/**
 * Copy Card: copies the card onto the list `input.list` (any list the caller reaches, on any board of
 * any of its teams) at `input.position` (default: the bottom), named `input.name` (default: the
 * source's name). The request's scope applies to the source card.
 */
export async function copyCard(
  ctx: ServiceContext,
  caller: Caller,
  cardId: string,
  scope: Scope,
  input: CopyCardInput,
): Promise<{ card: Card; dropped: DroppedParts }> {
  const keep = { ...KEEP_ALL, ...definedFlags(input.keep) };
  const reach = async (db: Executor) => ({
    source: await requireAccess(db, caller, { kind: 'card', id: cardId, scope }),
    list: await requireAccess(db, caller, { kind: 'list', id: input.list, field: 'body.list' }),
  });
  const before = await reach(ctx.db);
  return withFileCopies(ctx, before.list.company_id, async (files) => {
    if (keep.attachments) {
      const attachments = await copies.liveAttachmentsOfCards(ctx.db, [cardId]);
      await files.prepare(attachments.filter((a) => keep.checklists || a.checklist_item_id === null));
    }
    return inTransaction(ctx, async (trx) => {
      files.startOver();
      const at = nowIso();
      // The lock rule (access/access.ts): the target list, then the source card (with any card the placement
      // renumbers); the source and the list are read again under the locks.
      if (!(await lockList(trx, before.list.id))) throw new NotFoundError('List');
      const position = await placeCard(trx, caller, before.list.id, input.position, at, { alsoLocking: [cardId] });
      await lockCards(trx, [cardId]);
      const { source, list } = await reach(trx);
      const { id, dropped } = await writeCopy(trx, files, source, { list, position, name: input.name }, keep, caller, at);
      return { card: await loadCard(ctx, id, trx), dropped };
    });
  });
}

/** `keep` without its undefined flags, so they take the defaults. */
function definedFlags(keep: CopyKeep | undefined): Partial<Required<CopyKeep>> {
  return Object.fromEntries(Object.entries(keep ?? {}).filter(([, value]) => value !== undefined));
}

/**
 * Copies each card, in request order, to the bottom of the list, keeping every part it can: one
 * transaction, all or nothing. `resolve` finds the list and the cards, checking every item; it runs
 * inside the transaction once the source cards are locked (and once before, so that a request that
 * must fail copies no bytes).
 */
async function copyToBottom(
  ctx: ServiceContext,
  caller: Caller,
  cardIds: readonly string[],
  resolve: (db: Executor) => Promise<{ list: ListRow; sources: Row<'cards'>[] }>,
): Promise<BulkCardsResult> {
  // Checked once before any bytes are copied, and again inside the transaction, on what it sees.
  const before = await resolve(ctx.db);
  return withFileCopies(ctx, before.list.company_id, async (files) => {
    await files.prepare(
      await copies.liveAttachmentsOfCards(
        ctx.db,
        before.sources.map((s) => s.id),
      ),
    );
    return inTransaction(ctx, async (trx) => {
      files.startOver();
      // The lock rule (access/access.ts): the target list, then the source cards; both read again under the locks.
      if (!(await lockList(trx, before.list.id))) throw new NotFoundError('List');
      await lockCards(trx, cardIds);
      const { list, sources } = await resolve(trx);
      const at = nowIso();
      const positions = bottomPositions(await lastCardPosition(trx, list.id), sources.length);
      const written = [];
      for (const [i, source] of sources.entries()) {
        written.push(await writeCopy(trx, files, source, { list, position: positions[i] as number }, KEEP_ALL, caller, at));
      }
      return {
        cards: await loadCards(
          ctx,
          written.map((w) => w.id),
          trx,
        ),
        dropped: written.map((w) => w.dropped).filter(lostAnything),
      };
    });
  });
}

/**
 * Copy Cards: copies cards of one team to the bottom of a list of that same team (the copies keep
 * every part, labels only when the list is on the source's board). The request's scope applies to
 * the list and every card; a card of another team fails its item (Copy Cards Multi Team copies across teams).
 */
export async function copyCards(
  ctx: ServiceContext,
  caller: Caller,
  scope: Scope,
  input: { cardIds: readonly string[]; list: string },
): Promise<BulkCardsResult> {
  rejectRepeatedIds(input.cardIds, 'body.cardIds');
  return copyToBottom(ctx, caller, input.cardIds, async (db) => {
    const list = await requireAccess(db, caller, { kind: 'list', id: input.list, scope, field: 'body.list' });
    const refOf = (cardId: string) => ({ cardId, scope });
    const check = (card: Row<'cards'>, cardId: string) => {
      if (card.team_id !== list.team_id) {
        throw new ValidationError(`Card ${cardId} is in another team than the list; use PATCH /api/v1/cards/copy-multi-team`);
      }
      return card;
    };
    const sources = await requireAccessToEach(db, caller, { items: input.cardIds, field: 'body.cardIds', refOf, check });
    return { list, sources };
  });
}

/**
 * Copy Cards Multi Team: copies cards of any teams the caller reaches to the bottom of the target
 * list. A copy onto another board drops the labels; onto another team, the members (of the card and
 * of its checklist items) who are not in the target team.
 */
export async function copyCardsMultiTeam(ctx: ServiceContext, caller: Caller, input: MultiTeamCards): Promise<BulkCardsResult> {
  const cardIds = input.cards.map((c) => c.cardId);
  rejectRepeatedIds(cardIds, 'body.cards');
  return copyToBottom(ctx, caller, cardIds, async (db) => {
    const list = await multiTeamTargetList(db, caller, input.target);
    return { list, sources: await requireAccessToEach(db, caller, { items: input.cards, field: 'body.cards', refOf: multiTeamRef }) };
  });
}
