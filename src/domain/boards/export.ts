/**
 * A whole board as one document (`BoardExport`, versioned) or as a spreadsheet of its cards. The
 * document is written piece by piece: the board's lists and labels, then its cards a batch at a time
 * with their parts, so the memory it takes is that of a batch whatever the board's size.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { BOARD_EXPORT_FORMAT_VERSION, type BoardExport, type ExportedCard } from '../../schemas/board-export.ts';
import {
  exportedCardParts,
  exportedCardsOfList,
  exportedFields,
  exportedLabels,
  exportedLists,
  exportedPeople,
  exportedRelations,
} from '../../storage/repositories/board-export.ts';
import { requireAccess } from '../access/access.ts';
import { actorOf, recordAudit } from '../audit/log.ts';
import type { ServiceContext } from '../context.ts';
import { apiValue } from '../fields/values.ts';
import type { Caller, Scope } from '../shared/caller.ts';
import { ValidationError } from '../shared/errors.ts';
import { nowIso } from '../shared/ids.ts';

// The zip and CSV writers are loaded at the first export that needs them.
const require = createRequire(import.meta.url);
const yazl = () => require('yazl') as typeof import('yazl');
export const csv = () => require('csv-stringify/sync') as typeof import('csv-stringify/sync');

/** Cards read, with their parts, per batch. */
export const EXPORT_BATCH_CARDS = 200;

export interface BoardExportStream {
  boardName: string;
  /** The document's text, in pieces. */
  chunks: AsyncGenerator<string>;
}

type CardBatch = { cards: ExportedCard[]; people: Set<string> };

/** The cards of the board, list by list in position order, a batch at a time with their parts. */
/** An attached file the document names, and where its bytes are. */
export interface ExportedFile {
  path: string;
  storageKey: string;
}

async function* cardBatches(ctx: ServiceContext, listIds: string[], onFile?: (file: ExportedFile) => void): AsyncGenerator<CardBatch> {
  // a card moved to a later list while the export runs would otherwise come twice
  const seen = new Set<string>();
  for (const listId of listIds) {
    let after: { position: number; id: string } | undefined;
    for (;;) {
      const rows = await exportedCardsOfList(ctx.db, listId, after, EXPORT_BATCH_CARDS);
      const fresh = rows.filter((row) => !seen.has(row.id));
      for (const row of fresh) seen.add(row.id);
      if (fresh.length)
        yield assemble(
          fresh,
          await exportedCardParts(
            ctx.db,
            fresh.map((row) => row.id),
          ),
          onFile,
        );
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_BATCH_CARDS) break;
      after = { position: last.position, id: last.id };
    }
  }
}

type CardRows = Awaited<ReturnType<typeof exportedCardsOfList>>;
type Parts = Awaited<ReturnType<typeof exportedCardParts>>;

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

function assemble(rows: CardRows, parts: Parts, onFile?: (file: ExportedFile) => void): CardBatch {
  const people = new Set<string>();
  const members = groupBy(parts.members, (row) => row.card_id);
  const labels = groupBy(parts.labels, (row) => row.card_id);
  const checklists = groupBy(parts.checklists, (row) => row.card_id);
  const items = groupBy(parts.items, (row) => row.checklist_id);
  const itemMembers = groupBy(parts.itemMembers, (row) => row.item_id);
  const comments = groupBy(parts.comments, (row) => row.card_id);
  const discussions = groupBy(parts.discussions, (row) => row.comment_id);
  const cheers = groupBy(parts.cheers, (row) => row.card_id);
  const attachments = groupBy(parts.attachments, (row) => row.card_id);
  const values = groupBy(parts.values, (row) => row.card_id);
  const choices = groupBy(parts.choices, (row) => row.card_id);
  const person = (id: string) => {
    people.add(id);
    return id;
  };
  const cards = rows.map(
    (card): ExportedCard => ({
      _id: card.id,
      list: card.list_id,
      name: card.name,
      description: card.description,
      position: card.position,
      start: card.start_date,
      due: card.due_date,
      complete: card.complete_status === 1,
      archived: card.archived === 1,
      isTemplate: Number(card.is_template) === 1,
      creator: person(card.creator_id),
      createdAt: card.created_at,
      updatedAt: card.updated_at,
      members: (members.get(card.id) ?? []).map((row) => person(row.user_id)),
      labels: (labels.get(card.id) ?? []).map((row) => row.label_id),
      checklists: (checklists.get(card.id) ?? []).map((checklist) => ({
        _id: checklist.id,
        name: checklist.name,
        position: checklist.position,
        items: (items.get(checklist.id) ?? []).map((item) => ({
          _id: item.id,
          name: item.name,
          position: item.position,
          due: item.date,
          complete: item.complete_status === 1,
          members: (itemMembers.get(item.id) ?? []).map((row) => person(row.user_id)),
        })),
      })),
      comments: (comments.get(card.id) ?? []).map((comment) => ({
        _id: comment.id,
        author: person(comment.creator_id),
        content: comment.content,
        createdAt: comment.created_at,
        discussions: (discussions.get(comment.id) ?? []).map((reply) => ({
          _id: reply.id,
          author: person(reply.creator_id),
          content: reply.content,
          createdAt: reply.created_at,
        })),
      })),
      attachments: (attachments.get(card.id) ?? []).map((attachment) => ({
        _id: attachment.id,
        type: attachment.kind,
        name: attachment.name,
        originalName: attachment.original_name,
        url: attachment.link_url,
        file: attachment.kind === 'file' ? exportedFile(attachment, onFile) : null,
        mimeType: attachment.mime_type,
        size: Number(attachment.size_bytes),
        sha256: attachment.sha256,
        checklistItem: attachment.checklist_item_id,
        creator: person(attachment.creator_id),
        createdAt: attachment.created_at,
      })),
      cheers: (cheers.get(card.id) ?? []).map((cheer) => ({
        _id: cheer.id,
        giver: person(cheer.creator_id),
        receiver: person(cheer.receiver_id),
        content: cheer.content,
        on: { type: cheer.primary_type, _id: cheer.primary_id },
        createdAt: cheer.created_at,
      })),
      fields: fieldValues(values.get(card.id) ?? [], choices.get(card.id) ?? [], person),
    }),
  );
  return { cards, people };
}

/**
 * A card's values in the fields' order (the rows come so), a multi select's options in theirs: the
 * document reads the same whatever the ids. A person value names someone `people` must tell.
 */
function fieldValues(values: Parts['values'], choices: Parts['choices'], person: (id: string) => string): ExportedCard['fields'] {
  const byField = new Map<string, ExportedCard['fields'][number]>();
  const order = [...new Set([...values, ...choices].sort((a, b) => Number(a.field_position) - Number(b.field_position)).map((row) => row.field_id))];
  for (const row of values) {
    const value = apiValue(row.type, { text: row.text_value, number: row.number_value === null ? null : Number(row.number_value) });
    byField.set(row.field_id, { field: row.field_id, value: row.type === 'person' ? person(String(value)) : value });
  }
  for (const row of choices) {
    const entry = byField.get(row.field_id);
    if (row.type === 'select') byField.set(row.field_id, { field: row.field_id, value: row.option_id });
    else if (entry && Array.isArray(entry.value)) entry.value.push(row.option_id);
    else byField.set(row.field_id, { field: row.field_id, value: [row.option_id] });
  }
  return order.flatMap((id) => byField.get(id) ?? []);
}

function exportedFile(attachment: Parts['attachments'][number], onFile?: (file: ExportedFile) => void): string {
  const path = exportedFilePath(attachment.id, attachment.original_name);
  if (attachment.storage_key) onFile?.({ path, storageKey: attachment.storage_key });
  return path;
}

/** Where an attached file goes in an export with files: a folder per attachment keeps every name as it was uploaded. */
export function exportedFilePath(attachmentId: string, originalName: string): string {
  const safe = originalName.replace(/[/\\\0]/g, '_').replace(/^\.+$/, '_') || 'file';
  return `files/${attachmentId}/${safe}`;
}

/** Checks the caller reaches the board (404 otherwise, before any byte is sent), then reads it as it is written. */
export async function exportBoard(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  onFile?: (file: ExportedFile) => void,
): Promise<BoardExportStream> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const chunks = async function* (): AsyncGenerator<string> {
    const [lists, labels, fields] = await Promise.all([exportedLists(ctx.db, board.id), exportedLabels(ctx.db, board.id), exportedFields(ctx.db, board.id)]);
    const head: Omit<BoardExport, 'cards' | 'relations' | 'people'> = {
      format: 'taskboard-board',
      formatVersion: BOARD_EXPORT_FORMAT_VERSION,
      exportedAt: nowIso(),
      board: {
        _id: board.id,
        name: board.name,
        description: board.description,
        archived: board.archived === 1,
        createdAt: board.created_at,
        updatedAt: board.updated_at,
      },
      labels: labels.map((label) => ({ _id: label.id, name: label.name, color: label.color, hex: label.hex })),
      lists: lists.map((list) => ({ _id: list.id, name: list.name, position: list.position, archived: list.archived === 1, createdAt: list.created_at })),
      customFields: fields.fields.map((field) => ({
        _id: field.id,
        name: field.name,
        type: field.type,
        unit: field.unit,
        position: Number(field.position),
        showOnCard: Number(field.show_on_card) === 1,
        options: fields.options
          .filter((option) => option.field_id === field.id)
          .map((option) => ({ _id: option.id, name: option.name, color: option.color, hex: option.hex })),
      })),
    };
    const text = JSON.stringify(head);
    yield `${text.slice(0, -1)},"cards":[`;
    const people = new Set<string>([board.creator_id]);
    /** Each card's place in the document: a "relates" pair reads from the earlier card, whatever the ids. */
    const place = new Map<string, number>();
    let first = true;
    for await (const batch of cardBatches(
      ctx,
      lists.map((list) => list.id),
      onFile,
    )) {
      for (const id of batch.people) people.add(id);
      for (const card of batch.cards) place.set(card._id, place.size);
      yield (first ? '' : ',') + batch.cards.map((card) => JSON.stringify(card)).join(',');
      first = false;
    }
    const at = (id: string) => place.get(id) ?? Number.MAX_SAFE_INTEGER;
    const relations = (await exportedRelations(ctx.db, board.id))
      .map((row) => {
        const swap = row.kind === 'relates' && at(row.to_card_id) < at(row.from_card_id);
        return { from: swap ? row.to_card_id : row.from_card_id, kind: row.kind, to: swap ? row.from_card_id : row.to_card_id, createdAt: row.created_at };
      })
      // relations made at one moment (an import's) keep one order: by their cards' places
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : at(a.from) - at(b.from) || at(a.to) - at(b.to)));
    const named = await exportedPeople(ctx.db, [...people]);
    yield `],"relations":${JSON.stringify(relations)},"people":${JSON.stringify(named.map((user) => ({ _id: user.id, fullName: user.full_name })))}}`;
  };
  return { boardName: board.name, chunks: chunks() };
}

/**
 * The document as `board.json` and the attached files at the paths it names, in one zip written as
 * it is read: the files are added once the document is complete (only their keys are kept until
 * then), and each is opened only when the zip reaches it.
 */
export async function exportBoardWithFiles(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<{ boardName: string; zip: Readable }> {
  const files: ExportedFile[] = [];
  const exported = await exportBoard(ctx, caller, boardId, scope, (file) => files.push(file));
  const zip = new (yazl().ZipFile)();
  const document = Readable.from(exported.chunks);
  zip.addReadStream(document, 'board.json');
  document.once('end', () => {
    for (const file of files) {
      zip.addReadStreamLazy(file.path, (done) => {
        ctx.files.open(file.storageKey).then(
          (stream) => done(null, stream),
          (error: unknown) => done(error, undefined as never),
        );
      });
    }
    zip.end();
  });
  const output = zip.outputStream as Readable;
  // a failed read (the database, or a file the store lost) ends the zip with the error
  document.once('error', (error) => output.destroy(error));
  return { boardName: exported.boardName, zip: output };
}

export const CSV_COLUMNS = [
  'card',
  'name',
  'list',
  'labels',
  'members',
  'start',
  'due',
  'complete',
  'archived',
  'checklist items',
  'checklist items done',
  'comments',
  'attachments',
  'description',
  'created',
  'updated',
];

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a
 * leading apostrophe, so a card named `=HYPERLINK(...)` stays text (OWASP's advice on CSV injection).
 */
export const SPREADSHEET_SAFE_CSV = { cast: { string: (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value) } };

/** One row per card, for spreadsheets: names instead of ids, lists and labels in order. */
export async function exportBoardCsv(ctx: ServiceContext, caller: Caller, boardId: string, scope: Scope): Promise<BoardExportStream> {
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  const chunks = async function* (): AsyncGenerator<string> {
    const [lists, labels] = await Promise.all([exportedLists(ctx.db, board.id), exportedLabels(ctx.db, board.id)]);
    const listNames = new Map(lists.map((list) => [list.id, list.name]));
    const labelNames = new Map(labels.map((label) => [label.id, label.name || label.color]));
    // a byte-order mark: spreadsheets then read the file as UTF-8
    yield `\uFEFF${csv().stringify([CSV_COLUMNS], SPREADSHEET_SAFE_CSV)}`;
    for await (const batch of cardBatches(
      ctx,
      lists.map((list) => list.id),
    )) {
      const names = new Map((await exportedPeople(ctx.db, [...batch.people])).map((user) => [user.id, user.full_name]));
      const rows = batch.cards.map((card) => {
        const items = card.checklists.flatMap((checklist) => checklist.items);
        return [
          card._id,
          card.name,
          listNames.get(card.list) ?? '',
          card.labels.map((id) => labelNames.get(id) ?? '').join(', '),
          card.members.map((id) => names.get(id) ?? '').join(', '),
          card.start ?? '',
          card.due ?? '',
          card.complete ? 'yes' : 'no',
          card.archived ? 'yes' : 'no',
          items.length,
          items.filter((item) => item.complete).length,
          card.comments.length,
          card.attachments.length,
          card.description,
          card.createdAt,
          card.updatedAt,
        ];
      });
      yield csv().stringify(rows, SPREADSHEET_SAFE_CSV);
    }
  };
  return { boardName: board.name, chunks: chunks() };
}

export interface OpenedExport {
  contentType: string;
  filename: string;
  body: Readable;
}

/** The export a request asks for: the document (default), its CSV, or the zip with the files. */
export async function openBoardExport(
  ctx: ServiceContext,
  caller: Caller,
  boardId: string,
  scope: Scope,
  options: { format?: 'json' | 'csv' | undefined; files?: boolean | undefined },
): Promise<OpenedExport> {
  if (options.files && options.format === 'csv') throw new ValidationError('files=true gives the JSON document with the files; it takes no format=csv');
  const board = await requireAccess(ctx.db, caller, { kind: 'board', id: boardId, scope });
  await recordAudit(ctx.db, actorOf(caller), {
    kind: 'board.exported',
    company: board.company_id,
    target: { type: 'board', id: board.id },
    details: { name: board.name, team: board.team_id, format: options.files ? 'zip' : (options.format ?? 'json') },
  });
  if (options.files) {
    const exported = await exportBoardWithFiles(ctx, caller, boardId, scope);
    return { contentType: 'application/zip', filename: `${exported.boardName}.zip`, body: exported.zip };
  }
  if (options.format === 'csv') {
    const exported = await exportBoardCsv(ctx, caller, boardId, scope);
    return { contentType: 'text/csv; charset=utf-8', filename: `${exported.boardName}.csv`, body: Readable.from(exported.chunks) };
  }
  const exported = await exportBoard(ctx, caller, boardId, scope);
  return { contentType: 'application/json; charset=utf-8', filename: `${exported.boardName}.json`, body: Readable.from(exported.chunks) };
}
