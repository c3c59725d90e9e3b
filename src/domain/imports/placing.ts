/**
 * Putting a member where an unmapped person of a done import was: on the cards and checklist items
 * the person had (docs/decisions/0155-import-people-mapping.md), one `card.members.toggled` change of
 * each card, and the person moved to the report's matched ones. Map Import People does it with the
 * importer's choice; accepting an invitation made for the person does it with the new member
 * (docs/decisions/0157-import-invite-people.md), in the acceptance's transaction.
 */
import type { ImportReport } from '../../schemas/imports.ts';
import type { Transaction } from '../../storage/database.ts';
import { addCardMembers, cardMemberIds } from '../../storage/repositories/card-copies.ts';
import { insertItemMembers } from '../../storage/repositories/checklist-items.ts';
import * as imports from '../../storage/repositories/imports.ts';
import { authorReach } from '../../storage/repositories/rules.ts';
import { changeEachCard } from '../cards/change.ts';
import type { ServiceContext } from '../context.ts';
import type { Caller } from '../shared/caller.ts';

export type UnmatchedPerson = ImportReport['members']['unmatched'][number];

/**
 * Puts each entry's user where its person was and updates the report, in one transaction (joined
 * when `ctx.transaction` is set). The entries name unmapped people of the import, checked by the caller.
 */
export async function placePeople(
  ctx: ServiceContext,
  caller: Caller,
  row: imports.ImportRow,
  entries: readonly { key: string; user: string }[],
  by: 'chosen' | 'invitation',
  /** A last write of the same transaction (the invitations Map Import People makes). */
  more?: (trx: Transaction, at: string) => Promise<void>,
): Promise<void> {
  const report = JSON.parse(row.report) as ImportReport;
  const unmatched = new Map(report.members.unmatched.flatMap((person) => (person.key ? [[person.key, person] as const] : [])));
  const userOf = new Map(entries.map((entry) => [entry.key, entry.user]));
  const places = await imports.unmappedPlaces(ctx.db, row.id, [...userOf.keys()]);
  const byCard = new Map<string, { users: Set<string>; items: { item: string; user: string }[] }>();
  for (const place of places) {
    const user = userOf.get(place.person_key) as string;
    const entry = byCard.get(place.card_id) ?? { users: new Set<string>(), items: [] };
    if (place.checklist_item_id) entry.items.push({ item: place.checklist_item_id, user });
    else entry.users.add(user);
    byCard.set(place.card_id, entry);
  }
  const cards = [...byCard.entries()].map(([cardId, entry]) => ({ cardId, ...entry }));
  const itemPairs = await imports.itemMemberPairs(
    ctx.db,
    cards.flatMap((card) => card.items.map((entry) => entry.item)),
  );
  const onCards = new Map<string, Set<string>>();
  for (const card of cards) onCards.set(card.cardId, new Set(await cardMemberIds(ctx.db, card.cardId)));
  await changeEachCard(
    ctx,
    caller,
    cards,
    'body.people',
    'card.members.toggled',
    (card) => ({ cardId: card.cardId, scope: {} }),
    (_row, card, at) => {
      const added = [...card.users].filter((user) => !onCards.get(card.cardId)?.has(user));
      const items = card.items.filter((entry) => !itemPairs.has(`${entry.item} ${entry.user}`));
      return {
        data: { added, removed: [], import: row.id, ...(items.length ? { checklistItems: items.map((entry) => entry.item) } : {}) },
        write: async (trx) => {
          await addCardMembers(trx, card.cardId, added, at);
          await insertItemMembers(
            trx,
            [...new Map(items.map((entry) => [`${entry.item} ${entry.user}`, entry])).values()].map((entry) => ({
              item_id: entry.item,
              user_id: entry.user,
              created_at: at,
            })),
          );
        },
      };
    },
    async (trx, at) => {
      await imports.deleteUnmappedPlaces(trx, row.id, [...userOf.keys()]);
      const next: ImportReport = {
        ...report,
        members: {
          matched: [
            ...report.members.matched,
            ...entries.map((entry) => {
              const person = unmatched.get(entry.key) as UnmatchedPerson;
              return { key: entry.key, name: person.name, username: person.username, user: entry.user, by };
            }),
          ],
          unmatched: report.members.unmatched.filter((person) => !person.key || !userOf.has(person.key)),
        },
      };
      await imports.updateImportReport(trx, row.id, JSON.stringify(next), at);
      await more?.(trx, at);
    },
  );
}

/**
 * Accepting an invitation made for a person of an import: the new member goes where the person
 * was, as Map Import People would put them, in the acceptance's transaction. Nothing happens when
 * the invitation stands for no one, the import is not done, or the person was mapped meanwhile.
 */
export async function placeInvitedPerson(ctx: ServiceContext, trx: Transaction, invitationId: string, userId: string): Promise<void> {
  const link = await imports.importInvitationOf(trx, invitationId);
  if (!link) return;
  const row = await imports.findImport(trx, link.import_id);
  if (row?.status !== 'done') return;
  const report = JSON.parse(row.report) as ImportReport;
  if (!report.members.unmatched.some((person) => person.key === link.person_key)) return;
  const reach = await authorReach(trx, userId);
  const caller: Caller = {
    userId,
    apiKeyId: null,
    companyRoles: new Map(reach.companies.map((c) => [c.company_id, c.role])),
    teamIds: new Set(reach.teams),
  };
  await placePeople({ ...ctx, db: trx, transaction: trx }, caller, row, [{ key: link.person_key, user: userId }], 'invitation');
}
