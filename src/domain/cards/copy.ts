/**
 * Copy Card, Copy Cards (within a team) and Copy Cards Multi Team.
 *
 * A copy is a new card (new id, `__v` 0, the caller as creator) with the source's fields; what else
 * comes along is chosen by `keep` (every part by default): labels (only onto the same board, since a
 * label belongs to a board), members (only those in the target team), checklists with their items
 * (through the checklists' own copy), and the live attachments, each a new record; a file gets a
 * copy of its bytes, so deleting one never touches the other. Comments, cheers and `seen` are never
 * copied. What the copy could not keep is named in the answer's `dropped`.
 */
import type { Static } from 'typebox';
import type { BulkCardsAnswer, DroppedParts as DroppedPartsSchema } from '../../schemas/card-copies.ts';
import type { Card } from '../../schemas/records.ts';
import type { Executor, Row } from '../../storage/database.ts';
import type { AttachmentFiles } from '../../storage/files.ts';
import * as copies from '../../storage/repositories/card-copies.ts';
import { insertAttachment } from '../../storage/repositories/attachments.ts';
import {
  cardLabelIds,
  findCard,
  findCardsById,
  insertCard,
  lastCardPosition,
  setCardColumns,
} from '../../storage/repositories/cards.ts';
import { findListById, type ListRow } from '../../storage/repositories/lists.ts';
import { teamMembersAmong } from '../../storage/repositories/teams.ts';
import { attachmentRow } from '../attachments/service.ts';
import { copyChecklistsOfCard, type ItemCopies } from '../checklists/copy.ts';
import type { ServiceContext } from '../context.ts';
import { checkEachItem, rejectRepeatedIds } from '../shared/bulk.ts';
import { type Caller, requireReach, type Scope } from '../shared/caller.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { place, type PositionRequest } from '../shared/positions.ts';
import { inTransaction } from '../shared/transaction.ts';
import { lockCards, lockList, placeCard } from './locks.ts';
import { attachmentUrl } from './records.ts';
import { loadCard, loadCards } from './service.ts';

export type DroppedParts = Static<typeof DroppedPartsSchema>;
export type BulkCardsResult = Omit<Static<typeof BulkCardsAnswer>, 'message'>;

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

/** A bulk item of the multi-team forms: a card and the company and team it is in. */
export interface MultiTeamCard {
  cardId: string;
  companyId: string;
  teamId: string;
}

export interface MultiTeamCards {
  cards: readonly MultiTeamCard[];
  target: { companyId: string; teamId: string; list: string };
}

const KEEP_ALL: Required<CopyKeep> = { labels: true, members: true, checklists: true, attachments: true };

type AttachmentRow = Row<'attachments'>;

/**
 * Copies of attachment files made for one request, in the target company's folder. The bytes are
 * copied before the transaction where possible (so the database is not held during disk work);
 * `take` marks a copy as recorded. `finish` removes every copy the request did not record, and all of
 * them when the request failed, so no file is left without a record.
 */
class FileCopies {
  private readonly made = new Map<string, { key: string; size: number }>();
  private readonly recorded = new Set<string>();

  constructor(
    private readonly files: AttachmentFiles,
    private readonly companyId: string,
  ) {}

  /** Forgets which copies were recorded: a transaction that runs again records them anew. */
  startOver(): void {
    this.recorded.clear();
  }

  /** Copies the bytes of these attachments ahead of the transaction. */
  async prepare(rows: readonly AttachmentRow[]): Promise<void> {
    for (const row of rows) await this.copyOf(row);
  }

  /** The copy of this attachment's bytes (made now if `prepare` did not), to be recorded. */
  async take(row: AttachmentRow): Promise<{ key: string | null; size: number }> {
    const copy = await this.copyOf(row);
    if (copy) this.recorded.add(row.id);
    return copy ?? { key: null, size: Number(row.size_bytes) };
  }

  private async copyOf(row: AttachmentRow): Promise<{ key: string; size: number } | undefined> {
    if (row.kind !== 'file' || !row.storage_key) return undefined;
    let copy = this.made.get(row.id);
    if (!copy) {
      if (!(await this.files.exists(row.storage_key))) {
        throw new ConflictError(`The file of attachment ${row.id} is missing from storage, so it cannot be copied`, [
          { attachment: row.id, message: 'file missing from storage' },
        ]);
      }
      copy = await this.files.save(this.companyId, this.files.open(row.storage_key));
      this.made.set(row.id, copy);
    }
    return copy;
  }

  async finish(succeeded: boolean): Promise<void> {
    for (const [id, copy] of this.made) {
      if (!succeeded || !this.recorded.has(id)) await this.files.remove(copy.key);
    }
  }
}

/** Runs `work` with a set of file copies, removing the copies it did not record (all of them on failure). */
async function withFileCopies<T>(ctx: ServiceContext, companyId: string, work: (files: FileCopies) => Promise<T>): Promise<T> {
  const files = new FileCopies(ctx.files, companyId);
  let succeeded = false;
  try {
    const result = await work(files);
    succeeded = true;
    return result;
  } finally {
    await files.finish(succeeded);
  }
}

/** The resource when the caller reaches it, else a 404 that names the request field it came from. */
export function reachOrNotFound<T extends { company_id: string; team_id: string }>(
  caller: Caller,
  row: T | undefined,
  what: string,
  scope: Scope,
  field: string,
): T {
  try {
    return requireReach(caller, row, what, scope);
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError(what, [{ field, message: `${what.toLowerCase()} not found` }]);
    throw error;
  }
}

/**
 * The target of a multi-team request: a list the caller reaches, in the company and team the
 * target names. Another team's list (or a team out of reach) rejects the request, naming `body.target`.
 */
export async function multiTeamTargetList(db: Executor, caller: Caller, target: MultiTeamCards['target']): Promise<ListRow> {
  const list = reachOrNotFound(caller, await findListById(db, target.list), 'List', {}, 'body.target.list');
  if (list.company_id !== target.companyId || list.team_id !== target.teamId) {
    // The caller reaches the list, so saying where it is leaks nothing.
    const field = list.company_id !== target.companyId ? 'body.target.companyId' : 'body.target.teamId';
    throw new ValidationError('The target list is not in the target company and team', [
      { field, message: `list ${list.id} is in company ${list.company_id}, team ${list.team_id}` },
    ]);
  }
  return list;
}

/** Checks every item of a multi-team request: the caller reaches the card, in the company and team the item names (its scope). */
export async function checkMultiTeamCards(db: Executor, caller: Caller, cards: readonly MultiTeamCard[]): Promise<Row<'cards'>[]> {
  const rows = await findCardsById(db, cards.map((item) => item.cardId));
  return checkEachItem(cards, 'body.cards', async (item) => requireReach(caller, rows.get(item.cardId), 'Card', item));
}

/** Positions for `count` cards, in order, below the list's last card (at `last`; undefined: none). */
export function bottomPositions(last: number | undefined, count: number): number[] {
  let above = last === undefined ? [] : [last];
  return Array.from({ length: count }, () => {
    const { position } = place(above, 'bottom');
    above = [position];
    return position;
  });
}

/** Ids that sort in the given order: records created in one instant keep their source's order (ties sort by id). */
function orderedIds(count: number, at: string): string[] {
  return Array.from({ length: count }, () => newId(Date.parse(at))).sort();
}

/** What a copy of `source` keeps, and what it dropped, written inside the caller's transaction. */
async function writeCopy(
  trx: Executor,
  files: FileCopies,
  source: Row<'cards'>,
  target: { list: ListRow; position: number; name?: string | undefined },
  keep: Required<CopyKeep>,
  creatorId: string,
  at: string,
): Promise<{ id: string; dropped: DroppedParts }> {
  const { list } = target;
  const id = newId(Date.parse(at));
  const dropped: DroppedParts = { cardId: id, labels: [], members: [], checklistItemMembers: [] };
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
    else dropped.labels = (await cardLabelIds(trx, source.id)).sort();
  }
  if (keep.members) {
    const members = await copies.cardMembers(trx, source.id);
    const inTeam = await teamMembersAmong(trx, list.team_id, members.map((m) => m.user_id));
    await copies.insertCardMembers(trx, id, members.filter((m) => inTeam.has(m.user_id)));
    dropped.members = members.filter((m) => !inTeam.has(m.user_id)).map((m) => m.user_id);
  }
  // which item of the copy each source item became (checklists' own copy: item members only when in the copy's team)
  const itemCopies: ItemCopies = keep.checklists ? (await copyChecklistsOfCard(trx, source.id, { id, ...owner }, creatorId, at)).items : new Map();
  dropped.checklistItemMembers = keep.checklists ? await droppedItemMembers(trx, itemCopies, list.team_id) : [];

  if (keep.attachments) {
    // Attachments of checklist items come along with the copies of their items.
    const sources = (await copies.liveAttachmentsOfCards(trx, [source.id])).filter(
      (a) => a.checklist_item_id === null || itemCopies.has(a.checklist_item_id),
    );
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
        }),
      );
    }
    // A cover that shows one of the card's files shows the copy's file on the copy.
    const cover = sources.findIndex((a) => a.kind === 'file' && a.checklist_item_id === null && attachmentUrl(a) === source.cover);
    if (cover >= 0) await setCardColumns(trx, id, { cover: attachmentUrl({ id: ids[cover] as string, card_id: id, kind: 'file', link_url: null }) });
  }
  return { id, dropped };
}

/** The members of source items that their copies did not keep (not in the target team), by copied item in display order. */
async function droppedItemMembers(trx: Executor, itemCopies: ReadonlyMap<string, string>, teamId: string): Promise<DroppedParts['checklistItemMembers']> {
  const order = new Map([...itemCopies.keys()].map((id, i) => [id, i]));
  const members = await copies.checklistItemMembers(trx, [...order.keys()]);
  const inTeam = await teamMembersAmong(trx, teamId, [...new Set(members.map((m) => m.user_id))]);
  const lost = members.filter((m) => !inTeam.has(m.user_id)).sort((a, b) => (order.get(a.item_id) as number) - (order.get(b.item_id) as number));
  return groupByItem(lost.map((m) => ({ item_id: itemCopies.get(m.item_id) as string, user_id: m.user_id })));
}

/** `[{item_id, user_id}]` → `[{checklistItem, members}]`, items in first-seen order. */
export function groupByItem(rows: readonly { item_id: string; user_id: string }[]): DroppedParts['checklistItemMembers'] {
  const byItem = new Map<string, string[]>();
  for (const row of rows) byItem.set(row.item_id, [...(byItem.get(row.item_id) ?? []), row.user_id]);
  return [...byItem].map(([checklistItem, members]) => ({ checklistItem, members }));
}

export function lostAnything(dropped: DroppedParts): boolean {
  return dropped.labels.length > 0 || dropped.members.length > 0 || dropped.checklistItemMembers.length > 0;
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
    source: requireReach(caller, await findCard(db, cardId), 'Card', scope),
    list: reachOrNotFound(caller, await findListById(db, input.list), 'List', {}, 'body.list'),
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
      // The lock rule (locks.ts): the target list, then the source card (with any card the placement
      // renumbers); the source and the list are read again under the locks.
      await lockList(trx, before.list.id);
      const position = await placeCard(trx, before.list.id, input.position, at, { alsoLocking: [cardId] });
      await lockCards(trx, [cardId]);
      const { source, list } = await reach(trx);
      const { id, dropped } = await writeCopy(trx, files, source, { list, position, name: input.name }, keep, caller.userId, at);
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
    await files.prepare(await copies.liveAttachmentsOfCards(ctx.db, before.sources.map((s) => s.id)));
    return inTransaction(ctx, async (trx) => {
      files.startOver();
      // The lock rule (locks.ts): the target list, then the source cards; both read again under the locks.
      await lockList(trx, before.list.id);
      await lockCards(trx, cardIds);
      const { list, sources } = await resolve(trx);
      const at = nowIso();
      const positions = bottomPositions(await lastCardPosition(trx, list.id), sources.length);
      const written = [];
      for (const [i, source] of sources.entries()) {
        written.push(await writeCopy(trx, files, source, { list, position: positions[i] as number }, KEEP_ALL, caller.userId, at));
      }
      return {
        cards: await loadCards(ctx, written.map((w) => w.id), trx),
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
    const list = reachOrNotFound(caller, await findListById(db, input.list), 'List', scope, 'body.list');
    const rows = await findCardsById(db, input.cardIds);
    const sources = await checkEachItem(input.cardIds, 'body.cardIds', async (cardId) => {
      const card = requireReach(caller, rows.get(cardId), 'Card', scope);
      if (card.team_id !== list.team_id) {
        throw new ValidationError(`Card ${cardId} is in another team than the list; use PATCH /api/v1/cards/copy-multi-team`);
      }
      return card;
    });
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
    return { list, sources: await checkMultiTeamCards(db, caller, input.cards) };
  });
}
