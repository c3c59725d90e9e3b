/**
 * Board imports: a Trello export or a Taskboard export becomes a new board of a team.
 *
 * The file is read and checked whole first (a 400 before anything is written). Then one short
 * transaction writes the import's row with the board, its labels and its lists, everything marked
 * deleted (`deleted_at` = the import's mark), so no read shows any of it; the cards follow in
 * batches, each its own short transaction that also renews the import's lease. A last transaction
 * publishes the board (clears the marks) and records the events of what the import created, under
 * the request's id. A failure marks the import failed and removes what it wrote; a process that dies
 * mid-import leaves its lease to run out, after which the import reads as failed and the sweeper
 * removes the marked board (src/domain/boards/sweep.ts).
 */

import { setImmediate as nextTurn, setTimeout as pause } from 'node:timers/promises';
import { TEXT_CAPS } from '../../schemas/common.ts';
import type { ImportPeople, ImportRecord, ImportReport, MapImportPeopleBody } from '../../schemas/imports.ts';
import type { ImportSource, NewRow, Transaction } from '../../storage/database.ts';
import * as imports from '../../storage/repositories/imports.ts';
import { listLabelColors } from '../../storage/repositories/labels.ts';
import { removeCards } from '../../storage/repositories/lifecycle.ts';
import { requireAccess } from '../access/access.ts';
import { attachmentRow } from '../attachments/service.ts';
import { normaliseEmail } from '../companies/companies.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { type StoredValue, storedValue, ValueRefused } from '../fields/values.ts';
import { createInvitation, type Links } from '../people/invitations.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { newId, nowIso } from '../shared/ids.ts';
import { POSITION_STEP } from '../shared/positions.ts';
import { inTransaction } from '../shared/transaction.ts';
import { nearestColour } from './palette.ts';
import { type ChosenPeople, type MatchedPeople, matchPeople, suggestPeople } from './people.ts';
import { placePeople } from './placing.ts';
import { cleanText, type ImportPlan, type PlannedCard, type PlannedFieldValue, personUses, planCounts } from './plan.ts';

/** Cards written per transaction: each holds the database a few milliseconds. */
export const IMPORT_BATCH_CARDS = 200;

/** How long an import's lease lasts past each batch by default; an import that stops renewing it counts as interrupted. */
export const IMPORT_LEASE_MS = 120_000;

/**
 * A seam for the tests: called before each batch of cards is written (batch 0 first), and before
 * the board is published (batch = the number of batches). What it throws fails the import there.
 */
export const importFaults: { beforeBatch?: ((batch: number) => void | Promise<void>) | undefined } = {};

export interface StartedImport {
  import: ImportRecord;
  /** Settles when the import has finished, done or failed (it never rejects). */
  finished: Promise<void>;
}

export interface ImportOptions {
  /** Asked before each batch: false fails the import there (the server is closing). */
  goOn?: () => boolean;
  /** Told of a failure that is not the file's or the caller's (a database error), for the log. */
  onError?: (error: unknown) => void;
  /** The lease's length past each batch (IMPORT_LEASE_MS by default). */
  leaseMs?: number;
}

/** A pause of `ms` (bounded) between batches, or one turn of the event loop: not the clock's, which tests may hold still. */
const giveWay = (ms: number) => (ms >= 1 ? pause(Math.min(ms, 250)) : nextTurn());

const leaseFrom = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

/** The plan's people, matched to the team's members (the importer's mapping first), and the palette's colours. */
async function resolve(ctx: ServiceContext, teamId: string, plan: ImportPlan, chosen: ChosenPeople | undefined) {
  const [members, palette] = await Promise.all([imports.teamPeople(ctx.db, teamId), listLabelColors(ctx.db)]);
  return { people: matchPeople(plan.people.values(), members, plan.source === 'taskboard', chosen), palette };
}

function reportOf(plan: ImportPlan, people: MatchedPeople, dropped: Record<string, number>): ImportReport {
  const counts = planCounts(plan);
  const uses = personUses(plan);
  return {
    brought: counts,
    members: {
      matched: people.matched,
      unmatched: people.unmatched.map((person) => ({
        ...person,
        cardMemberships: uses.get(person.key)?.cardMemberships ?? 0,
        itemMemberships: uses.get(person.key)?.itemMemberships ?? 0,
        comments: uses.get(person.key)?.comments ?? 0,
      })),
    },
    leftOut: { ...plan.leftOut, ...Object.fromEntries(Object.entries(dropped).filter(([, n]) => n > 0)) },
    notes: plan.notes,
  };
}

/**
 * Starts an import into the team: checks reach (404) and the file (400), writes the import's row
 * and the hidden board, and answers the import while its cards are written.
 */
export async function startImport(
  ctx: ServiceContext,
  caller: Caller,
  input: {
    teamId: string;
    scope: Scope;
    plan: () => ImportPlan;
    people?: ChosenPeople | undefined;
    /** People to invite by email (a person's key → the email), with where the links point. */
    invite?: { people: Record<string, string>; links: Links } | undefined;
  },
  options: ImportOptions = {},
): Promise<StartedImport> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: input.teamId, scope: input.scope });
  const plan = input.plan();
  const invite = Object.entries(input.invite?.people ?? {}).map(([key, email]) => ({ key, email: normaliseEmail(email, `body.people.${key}`) }));
  // an invited person is nobody until the invitation is accepted
  const chosen = { ...input.people, ...Object.fromEntries(invite.map((person) => [person.key, null])) };
  const { people, palette } = await resolve(ctx, team.id, plan, chosen);
  const at = nowIso();
  const id = newId();
  const boardId = newId();
  const owner = { company_id: team.company_id, team_id: team.id };
  const dropped: Record<string, number> = {};
  const report = reportOf(plan, people, dropped);
  const leaseMs = options.leaseMs ?? IMPORT_LEASE_MS;
  // labels are read in id order: ids sorted as the file lists them keep its order
  const labelIdsInOrder = plan.labels.map(() => newId()).sort();
  const labelIds = new Map(plan.labels.map((label, index) => [label.key, labelIdsInOrder[index] as string]));
  const labelColours = new Map(plan.labels.map((label) => [label.key, nearestColour(palette, label.color).id]));
  const listIds = new Map(plan.lists.map((list) => [list.key, newId()]));
  const fields = new Map(
    plan.fields.map((field) => [
      field.key,
      { id: newId(), type: field.type, options: new Map(field.options.map((option) => [option.key, newId()])) } satisfies WrittenField,
    ]),
  );
  const row: NewRow<'imports'> = {
    id,
    ...owner,
    user_id: caller.userId,
    source: plan.source,
    status: 'running',
    board_id: boardId,
    board_name: plan.board.name,
    cards_total: plan.cards.length,
    cards_done: 0,
    report: JSON.stringify(report),
    error: null,
    request_id: caller.requestId ?? null,
    lease_until: leaseFrom(at, leaseMs),
    created_at: at,
    updated_at: at,
    finished_at: null,
  };
  const invitations = await inTransaction(ctx, async (trx) => {
    await imports.insertImport(trx, row);
    await imports.insertMany(trx, 'boards', [
      {
        id: boardId,
        ...owner,
        creator_id: caller.userId,
        name: plan.board.name,
        description: plan.board.description,
        archived: plan.board.archived ? 1 : 0,
        archived_at: plan.board.archived ? at : null,
        deleted_at: at,
        labels_stamp: 0,
        created_at: at,
        updated_at: at,
        version: 0,
      },
    ]);
    await imports.insertMany(
      trx,
      'labels',
      plan.labels.map((label) => ({
        id: labelIds.get(label.key) as string,
        ...owner,
        board_id: boardId,
        creator_id: caller.userId,
        name: label.name,
        color_id: labelColours.get(label.key) as string,
        created_at: at,
        updated_at: at,
        version: 0,
      })),
    );
    await imports.insertMany(
      trx,
      'lists',
      plan.lists.map((list, index) => ({
        id: listIds.get(list.key) as string,
        ...owner,
        board_id: boardId,
        creator_id: caller.userId,
        name: list.name,
        position: (index + 1) * POSITION_STEP,
        archived: list.archived ? 1 : 0,
        archived_at: list.archived ? at : null,
        deleted_at: at,
        created_at: at,
        updated_at: at,
        version: 0,
      })),
    );
    // the fields are read through their board only, which stays hidden until published
    await imports.insertMany(
      trx,
      'custom_fields',
      plan.fields.map((field, index) => ({
        id: (fields.get(field.key) as WrittenField).id,
        ...owner,
        board_id: boardId,
        name: field.name,
        type: field.type,
        unit: field.unit,
        position: index,
        show_on_card: field.showOnCard ? 1 : 0,
        creator_id: caller.userId,
        created_at: at,
        updated_at: at,
        version: 0,
      })),
    );
    await imports.insertMany(
      trx,
      'custom_field_options',
      plan.fields.flatMap((field) => {
        const written = fields.get(field.key) as WrittenField;
        return field.options.map((option, index) => ({
          id: written.options.get(option.key) as string,
          field_id: written.id,
          name: option.name,
          color_id: nearestColour(palette, option.color).id,
          position: index,
        }));
      }),
    );
    if (!input.invite || invite.length === 0) return [];
    return invitePeople({ ...ctx, db: trx, transaction: trx }, trx, caller, { id, ...owner }, invite, input.invite.links);
  });
  const run: ImportRun = {
    ctx,
    caller,
    id,
    boardId,
    mark: at,
    owner,
    plan,
    matched: people,
    people: people.users,
    labelIds,
    labelColours,
    listIds,
    fields,
    cardIds: new Map(),
    dropped,
    leaseMs,
    options,
  };
  const finished = runImport(run).then(
    () => undefined,
    () => undefined,
  );
  const written = await imports.findImport(ctx.db, id);
  if (!written) throw new NotFoundError('Import');
  const record = await withInvited(ctx, toImport(written));
  return { import: invitations.length ? { ...record, invitations } : record, finished };
}

interface ImportRun {
  ctx: ServiceContext;
  caller: Caller;
  id: string;
  boardId: string;
  mark: string;
  owner: { company_id: string; team_id: string };
  plan: ImportPlan;
  /** Who in the file was matched to a member, for the report. */
  matched: MatchedPeople;
  people: Map<string, string>;
  labelIds: Map<string, string>;
  /** Each label's palette colour id. */
  labelColours: Map<string, string>;
  listIds: Map<string, string>;
  fields: Map<string, WrittenField>;
  /** The new id of each card written so far, by the source's key (relations name both ends). */
  cardIds: Map<string, string>;
  dropped: Record<string, number>;
  leaseMs: number;
  options: ImportOptions;
}

/** A custom field the import wrote: its new id, type, and its options' new ids by the source's keys. */
interface WrittenField {
  id: string;
  type: string;
  options: Map<string, string>;
}

/** A card the import wrote, as its `card.created` event tells it. */
interface WrittenCard {
  card: string;
  list: string;
  position: number;
  name: string;
  parts: Record<string, number>;
}

/** The import lost its lease (it ran out meanwhile): what it wrote is the sweeper's. */
class LostLease extends ConflictError {
  constructor() {
    super('The import stopped renewing its lease in time; what it wrote is being removed');
  }
}

async function runImport(run: ImportRun): Promise<void> {
  const { ctx, plan } = run;
  const written: WrittenCard[] = [];
  const goOn = run.options.goOn ?? (() => true);
  try {
    const batches = Math.ceil(plan.cards.length / IMPORT_BATCH_CARDS);
    let lastBatchBusyMs = 0;
    const positions = new Map<string, number>();
    for (let batch = 0; batch < batches; batch++) {
      // a driver may run each statement in this thread and answer at once: the import leaves the
      // thread free as long again as its last batch kept it busy, so other requests keep being served
      // (a batch that mostly waited on the network pauses little)
      await giveWay(lastBatchBusyMs);
      await importFaults.beforeBatch?.(batch);
      if (!goOn()) throw new ConflictError('The server stopped during the import; nothing of it was kept');
      const cards = plan.cards.slice(batch * IMPORT_BATCH_CARDS, (batch + 1) * IMPORT_BATCH_CARDS);
      const done = batch * IMPORT_BATCH_CARDS + cards.length;
      const batchStarted = performance.eventLoopUtilization();
      const made = await inTransaction(ctx, async (trx) => {
        const at = nowIso();
        if (!(await imports.renewImport(trx, run.id, at, leaseFrom(at, run.leaseMs), done))) throw new LostLease();
        return writeCards(trx, run, cards, positions, at);
      });
      written.push(...made);
      lastBatchBusyMs = performance.eventLoopUtilization(batchStarted).active;
    }
    await giveWay(lastBatchBusyMs);
    await importFaults.beforeBatch?.(batches);
    await inTransaction(ctx, async (trx) => {
      const at = nowIso();
      if (!(await imports.renewImport(trx, run.id, at, leaseFrom(at, run.leaseMs), plan.cards.length))) throw new LostLease();
      if (!(await imports.publishBoard(trx, run.boardId, run.mark))) throw new LostLease();
      await imports.insertMany(trx, 'card_relations', relationRows(run, at));
      recordPublication(trx, run, written, at);
      const report = reportOf(plan, run.matched, run.dropped);
      await imports.finishImport(trx, run.id, at, { status: 'done', report: JSON.stringify(report), cardsDone: plan.cards.length });
    });
  } catch (error) {
    if (!(error instanceof DomainError)) run.options.onError?.(error);
    const message = error instanceof DomainError ? error.message : 'The server could not write the board; nothing of it was kept (the server log says why)';
    await fail(run, message).catch((failure: unknown) => run.options.onError?.(failure));
    throw error;
  }
}

/**
 * Removes what the import wrote, batch by batch, then marks it failed: once it reads as failed,
 * nothing of it is left. Should the removal fail too, the import is marked failed all the same, and
 * its ended lease hands the marked rows to the sweeper.
 */
async function fail(run: ImportRun, message: string): Promise<void> {
  const { ctx } = run;
  try {
    for (;;) {
      const ids = await imports.markedCardsOfBoard(ctx.db, run.boardId, IMPORT_BATCH_CARDS);
      if (ids.length === 0) break;
      await inTransaction(ctx, (trx) => removeCards(trx, ids, nowIso()));
    }
    await inTransaction(ctx, (trx) => imports.removeMarkedBoardShell(trx, run.boardId));
  } finally {
    await imports.finishImport(ctx.db, run.id, nowIso(), { status: 'failed', error: message });
  }
}

/** Writes one batch of cards with their parts, marked as the board is. */
async function writeCards(trx: Transaction, run: ImportRun, cards: readonly PlannedCard[], positions: Map<string, number>, at: string) {
  const { owner, caller, people, dropped } = run;
  const rows: Record<string, NewRow<any>[]> = {
    cards: [],
    card_labels: [],
    card_members: [],
    checklists: [],
    checklist_items: [],
    checklist_item_members: [],
    comments: [],
    discussions: [],
    attachments: [],
    cheers: [],
    card_field_values: [],
    card_field_choices: [],
    import_unmapped_places: [],
  };
  const made: WrittenCard[] = [];
  const add = (table: string, row: NewRow<any>) => (rows[table] as NewRow<any>[]).push(row);
  const drop = (kind: string) => {
    dropped[kind] = (dropped[kind] ?? 0) + 1;
  };
  for (const card of cards) {
    const id = newId();
    run.cardIds.set(card.key, id);
    const listId = run.listIds.get(card.list) as string;
    const position = (positions.get(listId) ?? 0) + POSITION_STEP;
    positions.set(listId, position);
    const onCard = { ...owner, card_id: id };
    add('cards', {
      id,
      ...owner,
      board_id: run.boardId,
      list_id: listId,
      name: card.name,
      description: card.description,
      creator_id: (card.creator && people.get(card.creator)) || caller.userId,
      position,
      start_date: card.start,
      due_date: card.due,
      complete_status: card.complete ? 1 : 0,
      complete_set_at: at,
      complete_updated_at: at,
      archived: card.archived ? 1 : 0,
      archived_at: card.archived ? at : null,
      is_template: card.template ? 1 : 0,
      deleted_at: run.mark,
      created_at: at,
      updated_at: at,
      version: 0,
    });
    for (const label of card.labels) add('card_labels', { card_id: id, label_id: run.labelIds.get(label) as string, created_at: at });
    const cardMembers = new Set<string>();
    for (const key of new Set(card.members)) {
      const member = people.get(key);
      if (member && !cardMembers.has(member)) add('card_members', { card_id: id, user_id: member, created_at: at });
      if (member) cardMembers.add(member);
      else {
        drop('unmatchedCardMembers');
        add('import_unmapped_places', { import_id: run.id, person_key: key, card_id: id, checklist_item_id: null });
      }
    }
    // what keeps new ids the source's things are named by in this card (cheers and attachments name them)
    const keys = new Map<string, string>([[card.key, id]]);
    card.checklists.forEach((checklist, index) => {
      const checklistId = newId();
      add('checklists', {
        id: checklistId,
        ...onCard,
        creator_id: caller.userId,
        name: checklist.name,
        position: (index + 1) * POSITION_STEP,
        created_at: at,
        updated_at: at,
        version: 0,
      });
      checklist.items.forEach((item, itemIndex) => {
        const itemId = newId();
        keys.set(item.key, itemId);
        add('checklist_items', {
          id: itemId,
          ...onCard,
          checklist_id: checklistId,
          creator_id: caller.userId,
          name: item.name,
          position: (itemIndex + 1) * POSITION_STEP,
          date: item.due,
          complete_status: item.complete ? 1 : 0,
          complete_set_at: item.complete ? at : null,
          created_at: at,
          updated_at: at,
          version: 0,
        });
        const itemMembers = new Set<string>();
        for (const key of new Set(item.members)) {
          const member = people.get(key);
          if (member && !itemMembers.has(member)) add('checklist_item_members', { item_id: itemId, user_id: member, created_at: at });
          if (member) itemMembers.add(member);
          else {
            drop('unmatchedItemMembers');
            add('import_unmapped_places', { import_id: run.id, person_key: key, card_id: id, checklist_item_id: itemId });
          }
        }
      });
    });
    for (const comment of card.comments) {
      const commentId = newId();
      keys.set(comment.key, commentId);
      add('comments', { id: commentId, ...onCard, ...post(run, comment) });
      for (const reply of comment.discussions) {
        const replyId = newId();
        keys.set(reply.key, replyId);
        add('discussions', { id: replyId, ...onCard, comment_id: commentId, ...post(run, reply) });
      }
    }
    for (const attachment of card.attachments) {
      const attachmentId = newId();
      keys.set(attachment.key, attachmentId);
      const itemId = attachment.item ? keys.get(attachment.item) : undefined;
      const creator = (attachment.creator && people.get(attachment.creator)) || caller.userId;
      add(
        'attachments',
        attachmentRow({ ...onCard, checklist_item_id: itemId ?? null }, creator, attachment.createdAt ?? at, {
          id: attachmentId,
          kind: 'link',
          name: attachment.name,
          original_name: attachment.url,
          link_url: attachment.url,
          storage_key: null,
          mime_type: 'text/uri-list',
          size_bytes: 0,
          sha256: null,
        }),
      );
    }
    for (const cheer of card.cheers) {
      const giver = people.get(cheer.giver);
      const receiver = people.get(cheer.receiver);
      const on = keys.get(cheer.on.key);
      if (!giver || !receiver || !on) {
        drop('cheersOfUnmatchedPeople');
        continue;
      }
      const comment = cheer.on.type === 'comment' ? on : cheer.on.type === 'discussion' ? (commentOfReply(card, cheer.on.key, keys) ?? null) : null;
      // what the cheered thing sits in: a reply's comment, an item's attachment's item, else the card
      const item = cheer.on.type === 'attachment' ? itemOfAttachment(card, cheer.on.key, keys) : undefined;
      const secondary = cheer.on.type === 'discussion' ? { type: 'comment', id: comment } : item ? { type: 'checklistItem', id: item } : { type: 'card', id };
      add('cheers', {
        id: newId(),
        ...onCard,
        creator_id: giver,
        created_at: cheer.createdAt,
        updated_at: cheer.createdAt,
        version: 0,
        content: cheer.content,
        receiver_id: receiver,
        primary_type: cheer.on.type,
        primary_id: on,
        secondary_type: secondary.type,
        secondary_id: secondary.id,
        comment_id: comment,
        feature_type: cheer.on.type,
        is_notified: 0,
        notification: '',
      });
    }
    for (const entry of card.fields ?? []) {
      const value = fieldValue(run, entry);
      if (value === undefined) drop('customFieldValuesRefused');
      else if (value === null) drop('unmatchedPersonValues');
      else if ('options' in value.stored) {
        for (const option of value.stored.options) add('card_field_choices', { card_id: id, field_id: value.field, option_id: option });
      } else add('card_field_values', { card_id: id, field_id: value.field, text_value: value.stored.text, number_value: value.stored.number });
    }
    made.push({
      card: id,
      list: listId,
      position,
      name: card.name,
      parts: { checklists: card.checklists.length, comments: card.comments.length, attachments: card.attachments.length },
    });
  }
  // parents before what they hold (the foreign keys)
  for (const table of [
    'cards',
    'card_labels',
    'card_members',
    'checklists',
    'checklist_items',
    'checklist_item_members',
    'comments',
    'discussions',
    'attachments',
    'cheers',
    'card_field_values',
    'card_field_choices',
    'import_unmapped_places',
  ] as const) {
    await imports.insertMany(trx, table, rows[table] as never[]);
  }
  return made;
}

/**
 * A planned value as the field stores it, its options and person named by their new ids: null when
 * it names a person no member matched, undefined when it does not fit its field (a file's mistake).
 */
function fieldValue(run: ImportRun, entry: PlannedFieldValue): { field: string; stored: StoredValue } | null | undefined {
  const field = run.fields.get(entry.field);
  if (!field) return undefined;
  let value = entry.value;
  if (field.type === 'person') {
    const user = typeof value === 'string' ? run.people.get(value) : undefined;
    if (!user) return null;
    value = user;
  } else if (field.type === 'select' && typeof value === 'string') value = field.options.get(value) ?? value;
  else if (field.type === 'multiselect' && Array.isArray(value)) value = value.map((key) => field.options.get(key) ?? key);
  try {
    const stored = storedValue({ type: field.type, optionIds: new Set(field.options.values()) }, value);
    return stored === null ? undefined : { field: field.id, stored };
  } catch (error) {
    if (error instanceof ValueRefused) return undefined;
    throw error;
  }
}

/** The plan's relations between cards the import wrote, each as the relations' table keeps it ("relates": smaller id first). */
function relationRows(run: ImportRun, at: string): NewRow<'card_relations'>[] {
  return run.plan.relations.flatMap((relation) => {
    const from = run.cardIds.get(relation.from);
    const to = run.cardIds.get(relation.to);
    if (!from || !to) return [];
    const [a, b] = relation.kind === 'relates' && to < from ? [to, from] : [from, to];
    return [
      { id: newId(), company_id: run.owner.company_id, from_card_id: a, to_card_id: b, kind: relation.kind, creator_id: run.caller.userId, created_at: at },
    ];
  });
}

function commentOfReply(card: PlannedCard, replyKey: string, keys: Map<string, string>): string | undefined {
  const comment = card.comments.find((c) => c.discussions.some((d) => d.key === replyKey));
  return comment && keys.get(comment.key);
}

function itemOfAttachment(card: PlannedCard, attachmentKey: string, keys: Map<string, string>): string | undefined {
  const item = card.attachments.find((a) => a.key === attachmentKey)?.item;
  return item ? keys.get(item) : undefined;
}

/** A comment or reply: by its matched author at its own time, else by the importer with a line saying who wrote it. */
function post(run: ImportRun, source: { author: string | null; content: string; createdAt: string }) {
  const author = source.author ? run.people.get(source.author) : undefined;
  let content = source.content;
  if (!author) {
    const person = source.author ? run.plan.people.get(source.author) : undefined;
    const who = person ? [person.fullName, person.username ? `(@${person.username})` : ''].filter(Boolean).join(' ') || 'someone' : 'someone';
    const where = run.plan.source === 'trello' ? 'Trello' : 'the exported board';
    content = `*Written by ${who} on ${where}, ${source.createdAt.slice(0, 10)}.*\n\n${content}`;
  }
  return {
    creator_id: author ?? run.caller.userId,
    content: cleanText(content, TEXT_CAPS.comment, run.dropped),
    created_at: source.createdAt,
    updated_at: source.createdAt,
    version: 0,
  };
}

/**
 * The events of what the import created, in the transaction that shows it: the board, its labels
 * and lists, each card (its data says what it came with), and `board.imported` with the counts.
 */
function recordPublication(trx: Transaction, run: ImportRun, written: readonly WrittenCard[], at: string) {
  const { caller, plan } = run;
  const subject = { company: run.owner.company_id, team: run.owner.team_id, board: run.boardId };
  recordEvent(trx, caller, 'board.created', subject, { board: run.boardId, name: plan.board.name, import: run.id }, at);
  for (const label of plan.labels)
    recordEvent(
      trx,
      caller,
      'label.created',
      subject,
      { label: run.labelIds.get(label.key), name: label.name, color: run.labelColours.get(label.key), import: run.id },
      at,
    );
  plan.lists.forEach((list, index) => {
    recordEvent(
      trx,
      caller,
      'list.created',
      subject,
      { list: run.listIds.get(list.key), name: list.name, position: (index + 1) * POSITION_STEP, import: run.id },
      at,
    );
  });
  for (const card of written) {
    recordEvent(
      trx,
      caller,
      'card.created',
      { ...subject, card: card.card },
      { list: card.list, position: card.position, name: card.name, import: run.id, ...card.parts },
      at,
    );
  }
  recordEvent(trx, caller, 'board.imported', subject, { board: run.boardId, import: run.id, source: plan.source, ...planCounts(plan) }, at);
}

/** The import's record; a running import whose lease ran out reads as failed (its process stopped). */
export function toImport(row: imports.ImportRow, now: string = nowIso()): ImportRecord {
  const interrupted = row.status === 'running' && row.lease_until <= now;
  return {
    _id: row.id,
    source: row.source,
    status: interrupted ? 'failed' : row.status,
    company: row.company_id,
    team: row.team_id,
    board: row.status === 'done' ? row.board_id : null,
    boardName: row.board_name,
    progress: { cards: Number(row.cards_total), cardsDone: Number(row.cards_done) },
    report: JSON.parse(row.report) as ImportReport,
    error: interrupted ? 'The import was interrupted (its server stopped); nothing of it was kept' : row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at ?? (interrupted ? row.lease_until : null),
  };
}

/** Get Import: 404 unless the caller reaches the import's team. */
export async function getImport(ctx: ServiceContext, caller: Caller, importId: string): Promise<ImportRecord> {
  const row = await imports.findImport(ctx.db, importId);
  if (!row) throw new NotFoundError('Import');
  await requireAccess(ctx.db, caller, { kind: 'team', id: row.team_id, scope: {} }).catch((error: unknown) => {
    throw error instanceof NotFoundError ? new NotFoundError('Import') : error;
  });
  return withInvited(ctx, toImport(row));
}

/** The import with the email each unmapped person is invited by, while the invitation is open (revoked: unmapped only). */
async function withInvited(ctx: ServiceContext, record: ImportRecord): Promise<ImportRecord> {
  const invited = await imports.openImportInvitations(ctx.db, record._id, nowIso());
  if (invited.size === 0) return record;
  const unmatched = record.report.members.unmatched.map((person) => ({ ...person, invited: (person.key && invited.get(person.key)) || null }));
  return { ...record, report: { ...record.report, members: { ...record.report.members, unmatched } } };
}

/**
 * The people of a file and the member the rules suggest for each, with the team's members to choose
 * from: what the import dialog shows before the import. Reads the file only; writes nothing.
 */
export async function previewPeople(
  ctx: ServiceContext,
  caller: Caller,
  input: { teamId: string; scope: Scope; plan: () => ImportPlan },
): Promise<ImportPeople> {
  const team = await requireAccess(ctx.db, caller, { kind: 'team', id: input.teamId, scope: input.scope });
  const plan = input.plan();
  const members = await imports.teamPeople(ctx.db, team.id);
  const uses = personUses(plan);
  return {
    people: suggestPeople(plan.people.values(), members, plan.source === 'taskboard').map((person) => ({
      ...person,
      ...(uses.get(person.key) ?? { cardMemberships: 0, itemMemberships: 0, comments: 0 }),
    })),
    members: members.map((member) => ({ _id: member.id, fullName: member.full_name, email: member.email })),
  };
}

/**
 * The unmapped people of an import, with how many cards and items each is still missing from, and
 * the team's members to choose from: what the "map them now" page shows.
 */
export async function unmappedPeople(ctx: ServiceContext, caller: Caller, importId: string): Promise<ImportPeople> {
  const record = await getImport(ctx, caller, importId);
  const [counts, members] = await Promise.all([imports.unmappedPlaceCounts(ctx.db, record._id), imports.teamPeople(ctx.db, record.team)]);
  return {
    people: record.report.members.unmatched.flatMap((person) =>
      person.key
        ? [
            {
              key: person.key,
              name: person.name,
              username: person.username,
              email: null,
              user: null,
              by: null,
              ...(counts.get(person.key) ?? { cardMemberships: 0, itemMemberships: 0 }),
              comments: person.comments ?? 0,
              invited: person.invited ?? null,
            },
          ]
        : [],
    ),
    members: members.map((member) => ({ _id: member.id, fullName: member.full_name, email: member.email })),
  };
}

/**
 * Map Import People: puts the chosen members where the unmapped people of a done import were (its
 * cards and checklist items still on a board), one change of each card in one transaction, and
 * moves those people to the report's matched ones. Their comments stay as written (the importer's,
 * naming them). A person invited instead gets a company invitation that stands for them: accepting
 * it places the new member (./placing.ts). A person mapped already, a user outside the team or a
 * malformed email is a 400 naming the place.
 */
export async function mapImportPeople(ctx: ServiceContext, caller: Caller, importId: string, body: MapImportPeopleBody, links: Links): Promise<ImportRecord> {
  const row = await imports.findImport(ctx.db, importId);
  if (!row) throw new NotFoundError('Import');
  await requireAccess(ctx.db, caller, { kind: 'team', id: row.team_id, scope: {} }).catch((error: unknown) => {
    throw error instanceof NotFoundError ? new NotFoundError('Import') : error;
  });
  if (row.status !== 'done') throw new ConflictError('Only a finished import maps its people');
  const report = JSON.parse(row.report) as ImportReport;
  const unmatched = new Set(report.members.unmatched.flatMap((person) => (person.key ? [person.key] : [])));
  const members = new Set((await imports.teamPeople(ctx.db, row.team_id)).map((member) => member.id));
  const problems = body.people.flatMap((entry, index) =>
    !unmatched.has(entry.key)
      ? [{ field: `body.people[${index}].key`, message: 'names no unmapped person of the import' }]
      : 'user' in entry && !members.has(entry.user)
        ? [{ field: `body.people[${index}].user`, message: `user ${entry.user} is not a member of the team` }]
        : 'invite' in entry && !isEmail(entry.invite)
          ? [{ field: `body.people[${index}].invite`, message: 'must be an email address' }]
          : body.people.findIndex((other) => other.key === entry.key) !== index
            ? [{ field: `body.people[${index}].key`, message: 'names a person twice' }]
            : [],
  );
  const [first] = problems;
  if (first) throw new ValidationError(`The people mapping is not right: ${first.field} ${first.message}`, problems);
  const placed = body.people.flatMap((entry) => ('user' in entry ? [{ key: entry.key, user: entry.user }] : []));
  const invite = body.people.flatMap((entry) => ('invite' in entry ? [{ key: entry.key, email: entry.invite }] : []));
  const made = await inTransaction(ctx, async (trx) => {
    const joined: ServiceContext = { ...ctx, db: trx, transaction: trx };
    const invited = await invitePeople(joined, trx, caller, row, invite, links);
    if (placed.length) await placePeople(joined, caller, row, placed, 'chosen');
    return invited;
  });
  return { ...(await getImport(ctx, caller, importId)), ...(made.length ? { invitations: made } : {}) };
}

/** Whether the text is an email address as invitations take it. */
function isEmail(text: string): boolean {
  try {
    normaliseEmail(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Invites people of the import by email to its company (as members, to its team), each invitation
 * remembered as standing for its person; mailed when mail is set up, the links answered either way.
 * Needs a company owner or admin, as any invitation does (a 403 otherwise).
 */
async function invitePeople(
  joined: ServiceContext,
  trx: Transaction,
  caller: Caller,
  row: { id: string; company_id: string; team_id: string },
  people: readonly { key: string; email: string }[],
  links: Links,
): Promise<NonNullable<ImportRecord['invitations']>> {
  const made: NonNullable<ImportRecord['invitations']> = [];
  for (const person of people) {
    const { invitation, url, mailed } = await createInvitation(
      joined,
      caller,
      row.company_id,
      { email: person.email, role: 'member', teams: [row.team_id] },
      links,
    );
    await imports.insertImportInvitation(trx, { invitation_id: invitation._id, import_id: row.id, person_key: person.key });
    made.push({ key: person.key, email: invitation.email, invitation: invitation._id, url, mailed });
  }
  return made;
}

export type { ImportSource };
