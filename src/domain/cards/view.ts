/**
 * The card read model (issue 12): Get Card Details answers a card's record stored as one string
 * (src/storage/repositories/card-views.ts) instead of building it from a dozen tables, while that
 * view still counts. A view is kept with the stamps it was built from, read in the same statement as
 * the rows: the card's `__v` (every change of the card's world moves it, through ./recorder.ts), its
 * board's labels stamp and the users' stamp (a label renamed or recoloured, a name or photo changed:
 * `recordBoardLabelsChange`, `recordUsersChange`). A read finds the view only when all three are
 * still current, so a view built from rows a later change replaced is never served, whichever
 * finished first; nothing is deleted, a miss builds the record as before and stores it.
 *
 * The record has no part that depends on who asks, so one view serves every caller.
 */
import { createHash } from 'node:crypto';
import type { Card } from '../../schemas/records.ts';
import { namedSchemaContext } from '../../schemas/named.ts';
import { loadCardsForView } from '../../storage/repositories/card-records.ts';
import { type CardView, storeCardView, storeCardViews } from '../../storage/repositories/card-views.ts';
import { ForeignKeyViolation } from '../../storage/errors.ts';
import type { ServiceContext } from '../context.ts';
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
  form ??= createHash('sha256').update(`${CARD_RECORD_REVISION}\n${JSON.stringify(namedSchemaContext())}`).digest('base64url').slice(0, 16);
  return form;
}

/** What the card's row told of its stored view (`findCardSeenBy`): set only while the view counts. */
export interface StoredView {
  view_form: string | null;
  view_body: string | null;
}

/** The card's stored view when it counts and is of this form; undefined otherwise. */
export function currentView(row: StoredView): string | undefined {
  return row.view_body !== null && row.view_form === cardViewForm() ? row.view_body : undefined;
}

/**
 * Builds the card's record from its tables, renders it and stores it as the card's view, with the
 * stamps read with the rows. Answers the rendered record.
 */
export async function buildCardView(ctx: ServiceContext, cardId: string, render: CardRenderer): Promise<string> {
  const [body] = (await buildCardViews(ctx, [cardId], render)).values();
  if (body === undefined) throw new NotFoundError('Card');
  return body;
}

/**
 * The rendered records of the cards `refs` names, in their order: the stored view of each where one
 * of `cardViewForm()` counts (read with the refs), the others built from the tables in one query,
 * rendered and stored as for Get Card Details. A card gone before it was built is left out, as
 * `loadCards` leaves it out.
 */
export async function cardViews(ctx: ServiceContext, refs: readonly { id: string; view_body: string | null }[], render: CardRenderer): Promise<string[]> {
  const stored = refs.map((ref) => ref.view_body ?? undefined);
  const missing = refs.filter((_, i) => stored[i] === undefined).map((ref) => ref.id);
  if (missing.length === 0) return stored as string[];
  const built = await buildCardViews(ctx, missing, render);
  return refs.flatMap((ref, i) => stored[i] ?? built.get(ref.id) ?? []);
}

/** Builds, renders and stores the views of `cardIds` (those still there), with the stamps read with their rows. */
async function buildCardViews(ctx: ServiceContext, cardIds: readonly string[], render: CardRenderer): Promise<Map<string, string>> {
  const rows = await loadCardsForView(ctx.db, cardIds);
  const views: CardView[] = rows.map((row) => ({
    cardId: row.id,
    form: cardViewForm(),
    cardVersion: row.version,
    labelsStamp: row.labels_stamp,
    usersStamp: row.users_stamp,
    body: render(toCard(row)),
  }));
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
  return new Map(views.map((view) => [view.cardId, view.body]));
}
