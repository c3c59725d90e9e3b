/**
 * The card read model (docs/decisions/0036): Get Card Details answers a card's record stored as one string
 * (src/storage/repositories/card-views.ts) instead of building it from a dozen tables, while that
 * view still counts. A view is kept with the stamps it was built from, read in the same statement as
 * the rows: the card's `__v` (every change of the card's world moves it, through ./recorder.ts), its
 * board's labels stamp and the users' stamp (a label renamed or recoloured, a name or photo changed:
 * `recordBoardLabelsChange`, `recordUsersChange`). A read finds the view only when all three are
 * still current, so a view built from rows a later change replaced is never served, whichever
 * finished first; nothing is deleted, a miss builds the record as before and stores it.
 *
 * The record has no part that depends on who asks, so one view serves every caller. A view is
 * stored as the record's entity tag followed by the record (`storedText`): an answer made of views
 * is tagged from their tags, without hashing their bytes again (`RenderedFields`).
 */
import { createHash } from 'node:crypto';
import { namedSchemaContext } from '../../schemas/named.ts';
import type { Card } from '../../schemas/records.ts';
import { ForeignKeyViolation } from '../../storage/errors.ts';
import { loadCardsForView } from '../../storage/repositories/card-records.ts';
import { type CardView, storeCardView, storeCardViews } from '../../storage/repositories/card-views.ts';
import type { ServiceContext } from '../context.ts';
import { ENTITY_TAG_LENGTH, type TaggedBody, tagged } from '../shared/entity-tags.ts';
import { NotFoundError } from '../shared/errors.ts';
import { CARD_RECORD_REVISION, toCard } from './records.ts';

/** Writes a card's record as the API answers it (the route's serializer of the Card schema). */
export type CardRenderer = (card: Card) => string;

let form: string | undefined;

/**
 * The form views are written in: the API's schemas and the record's revision. An instance whose
 * form differs (another release, during a rolling deploy) rebuilds rather than serve a view of
 * another form.
 */
export function cardViewForm(): string {
  form ??= createHash('sha256')
    .update(`${CARD_RECORD_REVISION}\n${JSON.stringify(namedSchemaContext())}`)
    .digest('base64url')
    .slice(0, 16);
  return form;
}

/** What the card's row told of its stored view (`findCardSeenBy`): set only while the view counts. */
export interface StoredView {
  /** The card's `__v`, read with the view (which counts only while it is the one it was built at). */
  version: number;
  view_form: string | null;
  view_body: string | null;
}

/** How a rendered record is stored: its tag, then its bytes. */
export function storedText(record: TaggedBody): string {
  return record.tag + record.body;
}

/** A stored view's record (`storedText`). */
function fromStored(text: string): TaggedBody {
  return { tag: text.slice(0, ENTITY_TAG_LENGTH), body: text.slice(ENTITY_TAG_LENGTH) };
}

/** The card's stored view when it counts and is of this form; undefined otherwise. */
export function currentView(row: StoredView): TaggedBody | undefined {
  return row.view_body !== null && row.view_form === cardViewForm() ? { ...fromStored(row.view_body), revision: Number(row.version) } : undefined;
}

/**
 * Builds the card's record from its tables, renders it and stores it as the card's view, with the
 * stamps read with the rows. Answers the rendered record.
 */
export async function buildCardView(ctx: ServiceContext, cardId: string, render: CardRenderer): Promise<TaggedBody> {
  const [record] = (await buildCardViews(ctx, [cardId], render)).values();
  if (record === undefined) throw new NotFoundError('Card');
  return record;
}

/**
 * The rendered records of the cards `refs` names, in their order: the stored view of each where one
 * of `cardViewForm()` counts (read with the refs), the others built from the tables in one query,
 * rendered and stored as for Get Card Details. A card gone before it was built is left out, as
 * `loadCards` leaves it out.
 */
export async function cardViews(ctx: ServiceContext, refs: readonly { id: string; view_body: string | null }[], render: CardRenderer): Promise<TaggedBody[]> {
  const stored = refs.map((ref) => (ref.view_body === null ? undefined : fromStored(ref.view_body)));
  const missing = refs.filter((_, i) => stored[i] === undefined).map((ref) => ref.id);
  if (missing.length === 0) return stored as TaggedBody[];
  const built = await buildCardViews(ctx, missing, render);
  return refs.flatMap((ref, i) => stored[i] ?? built.get(ref.id) ?? []);
}

/** Builds, renders and stores the views of `cardIds` (those still there), with the stamps read with their rows. */
async function buildCardViews(ctx: ServiceContext, cardIds: readonly string[], render: CardRenderer): Promise<Map<string, TaggedBody>> {
  const records = new Map<string, TaggedBody>();
  const views = (await loadCardsForView(ctx.db, cardIds)).map((row): CardView => {
    const record = tagged(render(toCard(row)));
    records.set(row.id, { ...record, revision: Number(row.version) });
    return {
      cardId: row.id,
      form: cardViewForm(),
      cardVersion: row.version,
      labelsStamp: row.labels_stamp,
      usersStamp: row.users_stamp,
      body: storedText(record),
    };
  });
  try {
    await storeCardViews(ctx.db, views);
  } catch (error) {
    // a card was removed since it was read: it was there when read, so the answers stand; the others are stored one by one
    if (!(error instanceof ForeignKeyViolation)) throw error;
    const storeIfThere = (view: CardView) =>
      storeCardView(ctx.db, view).catch((failed: unknown) => {
        if (!(failed instanceof ForeignKeyViolation)) throw failed;
      });
    await Promise.all(views.map(storeIfThere));
  }
  return records;
}
