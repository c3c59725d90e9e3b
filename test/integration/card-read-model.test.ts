/**
 * The card read model (src/domain/cards/view.ts): Get Card Details answers a card's stored view only
 * while the stamps it was built from are current, so it always answers what the tables say.
 *
 * The main test drives seeded random sequences of changes through the HTTP API (card fields,
 * custom field values set, a field's option dropped or its type changed,
 * labels toggled, renamed, recoloured and deleted, members toggled, Update Me, checklists and items,
 * comments and discussions, cheers, link attachments renamed and deleted, moves across boards and
 * teams, archiving, copies, first views by other users), then every kind once, and, after every
 * step, compares the served record of every card with the card built from the tables (`loadCard`,
 * which bypasses the view). A step on a part (an item, an attachment...) picks a card that has one,
 * and every kind must have been accepted (2xx) at least once, so no kind of change goes untested
 * because its step never found what it works on (five of them did before).
 * Every card is read after every step, so a view exists before each change: a change that failed to
 * move a stamp would be answered stale. The pages of cards (Get List Card, List All My Tasks) are
 * served from the same views: after every step, before the cards are read one by one (so the cards
 * the step changed are built by the page), each page is compared, byte for byte, with the page the
 * route's serializer writes of the cards built from the tables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { recordBoardLabelsChange, recordCardChange, recordUsersChange } from '../../src/domain/cards/recorder.ts';
import { loadCard, loadCards } from '../../src/domain/cards/service.ts';
import { storedText } from '../../src/domain/cards/view.ts';
import { entityTag, revisionTag, tagged } from '../../src/domain/shared/entity-tags.ts';
import { inTransaction } from '../../src/domain/shared/transaction.ts';
import { CardsPage } from '../../src/schemas/card-edits.ts';
import { success } from '../../src/schemas/common.ts';
import { MyTasksAnswer } from '../../src/schemas/my-tasks.ts';
import { namedSchemaContext } from '../../src/schemas/named.ts';
import { type Card, Card as CardSchema } from '../../src/schemas/records.ts';
import type { Transaction } from '../../src/storage/database.ts';
import { ForeignKeyViolation } from '../../src/storage/errors.ts';
import { storeCardView, storeCardViews } from '../../src/storage/repositories/card-views.ts';
import { lockCard, setCardColumns } from '../../src/storage/repositories/cards.ts';
import { updateLabel } from '../../src/storage/repositories/labels.ts';
import { updateUser } from '../../src/storage/repositories/users.ts';
import { addMember, addTeam } from '../support/fixtures.ts';
import { type Api, apiClient, bearer, buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';
import { holdLocks, runAgainst } from '../support/held-locks.ts';

const SEED = Number(process.env.CARD_READ_MODEL_SEED ?? 20261123);
const RUNS = Number(process.env.CARD_READ_MODEL_RUNS ?? 5);
const STEPS = 40;

const KINDS = [
  'update-card',
  'toggle-labels',
  'rename-label',
  'recolour-label',
  'delete-label',
  'create-label',
  'toggle-members',
  'update-me-name',
  'update-me-photo',
  'add-checklist',
  'add-item',
  'complete-item',
  'delete-item',
  'delete-checklist',
  'add-comment',
  'add-discussion',
  'delete-comment',
  'cheer-card',
  'delete-cheer',
  'add-link',
  'rename-attachment',
  'cheer-attachment',
  'delete-attachment',
  'move',
  'archive',
  'unarchive',
  'copy',
  'reorder',
  'view-as-other',
  'set-field-values',
  'drop-field-option',
  'retype-field',
] as const;

type Kind = (typeof KINDS)[number];

/** The part a card must have for a step of this kind to do anything. */
const PART_NEEDED: Partial<Record<Kind, 'checklists' | 'checklist_items' | 'attachments' | 'comments'>> = {
  'add-item': 'checklists',
  'delete-checklist': 'checklists',
  'complete-item': 'checklist_items',
  'delete-item': 'checklist_items',
  'rename-attachment': 'attachments',
  'delete-attachment': 'attachments',
  'cheer-attachment': 'attachments',
  'add-discussion': 'comments',
  'delete-comment': 'comments',
};

interface Step {
  kind: Kind;
  /** Choices among what exists when the step runs (taken modulo the number of candidates). */
  a: number;
  b: number;
  c: number;
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom(...KINDS), a: fc.nat(1000), b: fc.nat(1000), c: fc.nat(1000) });

/** A custom field as Get Board Custom Fields lists it (what the steps on fields need of it). */
interface Field {
  _id: string;
  type: string;
  options: { _id: string; name: string; color: { _id: string } }[];
}
const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
const subset = <T>(items: readonly T[], n: number): T[] => items.filter((_, i) => (n >> i) & 1);

for (const engine of ENGINES) {
  describe(`card read model [${engine}]`, () => {
    let t: TestApp;
    let owner: Api;
    /** The people: the owner and two members of both teams. */
    let people: { userId: string; api: Api; apiKey: string }[];
    let otherTeamId: string;
    let colors: string[];

    before(async () => {
      t = await buildTestApp(engine);
      owner = apiClient(t, t.tenant.apiKey);
      const members = [];
      for (const name of ['ada', 'bob']) {
        const member = await addMember(t.services, { companyId: t.tenant.companyId, teamIds: [t.tenant.teamId], email: `${name}@acme.test`, fullName: name });
        members.push({ userId: member.userId, apiKey: member.apiKey, api: apiClient(t, member.apiKey) });
      }
      people = [{ userId: t.tenant.userId, apiKey: t.tenant.apiKey, api: owner }, ...members];
      // a second team with the owner and ada only: a move there drops bob
      otherTeamId = await addTeam(t.services, t.tenant.companyId, 'Other', [t.tenant.userId, members[0]!.userId]);
      colors = ((await owner('GET', '/api/v1/label-colors')).json().colors as { _id: string }[]).map((c) => c._id);
      assert.ok(colors.length >= 2);
    });
    after(() => t.dispose());

    const ok = async (res: Promise<{ statusCode: number; body: string }>, what: string) => {
      const answer = await res;
      // refusals (a duplicate cheer, a member not in the card's team) are fine; a 5xx never is
      assert.ok(answer.statusCode < 500, `${what}: ${answer.statusCode} ${answer.body}`);
      return answer as Awaited<typeof res> & { json(): any };
    };

    const made = async (api: Api, method: 'POST', url: string, payload: unknown, key: string): Promise<string> => {
      const res = await api(method, url, payload);
      assert.ok(res.statusCode === 201 || res.statusCode === 200, `${url}: ${res.statusCode} ${res.body}`);
      return res.json()[key]._id;
    };

    /** The served record equals the one built from the tables; answers it. */
    async function assertServedIsBuilt(cardId: string, as: Api = owner, context = ''): Promise<Card> {
      const res = await as('GET', `/api/v1/cards/${cardId}`);
      assert.equal(res.statusCode, 200, `${context} ${res.body}`);
      const served = res.json().card as Card;
      const built = JSON.parse(JSON.stringify(await loadCard(t.services, cardId))) as Card;
      assert.deepEqual(served, built, `${context}: card ${cardId} served from a stale view`);
      // the tag is the card's __v, then the answer's hash with the card written as its own tag: a tag of these very bytes
      const prefix = '{"message":"Card details","card":';
      assert.ok(res.body.startsWith(prefix) && res.body.endsWith('}'));
      assert.equal(
        res.headers.etag,
        revisionTag(built.__v, entityTag(`${prefix}${entityTag(res.body.slice(prefix.length, -1))}}`)),
        `${context}: the ETag of card ${cardId}`,
      );
      return served;
    }

    const serializeCard = fastJson(CardSchema as never, { schema: namedSchemaContext() as never });

    const serializeListPage = fastJson(CardsPage as never, { schema: namedSchemaContext() as never });
    const serializeMyTasks = fastJson(MyTasksAnswer as never, { schema: namedSchemaContext() as never });

    /**
     * Walks the pages at `url` (two cards a page, so cursors are walked too): each answer is, byte for
     * byte, what the route's serializer writes of the same cards built from the tables. Answers the ids.
     */
    async function assertPagesAreBuilt(as: Api, url: string, message: string, serialize: (answer: unknown) => string, context: string): Promise<string[]> {
      const ids: string[] = [];
      for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
        const res = await as('GET', `${url}${url.includes('?') ? '&' : '?'}limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
        assert.equal(res.statusCode, 200, `${context} ${url}: ${res.body}`);
        const page = res.json() as { cards: Card[]; nextCursor: string | null };
        const cardIds = page.cards.map((card) => card._id);
        const cards = await loadCards(t.services, cardIds);
        const built = serialize({ message, cards, nextCursor: page.nextCursor });
        assert.equal(res.body, built, `${context}: ${url} served a page that differs from the cards built from the tables`);
        const tags = cards.map((card) => entityTag(serializeCard(card)));
        const taggedAnswer = `{"message":${JSON.stringify(message)},"cards":[${tags.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
        assert.equal(res.headers.etag, entityTag(taggedAnswer), `${context}: the ETag of ${url}`);
        ids.push(...cardIds);
        cursor = page.nextCursor;
      }
      return ids;
    }

    /** Every list's pages (both states) and every person's My Tasks are as the tables build them. */
    async function assertPagesServedAreBuilt(w: Awaited<ReturnType<typeof world>>, context: string) {
      for (const list of w.lists) {
        for (const archived of [false, true]) {
          const ids = await assertPagesAreBuilt(owner, `/api/v1/lists/${list.id}/cards?archived=${archived}`, 'Cards retrieved', serializeListPage, context);
          const expected = await t.services.db
            .selectFrom('cards')
            .select('id')
            .where('list_id', '=', list.id)
            .where('archived', '=', archived ? 1 : 0)
            .orderBy('position')
            .orderBy('id')
            .execute();
          assert.deepEqual(
            ids,
            expected.map((r) => r.id),
            `${context}: the pages of list ${list.id}`,
          );
        }
      }
      for (const person of people) await assertPagesAreBuilt(person.api, '/api/v1/my-tasks', 'My tasks', serializeMyTasks, context);
    }

    /** A fresh world for one run: two boards in the team (three lists), one in the other team, two cards. */
    async function world() {
      const { teamId, companyId } = t.tenant;
      const board = await made(owner, 'POST', `/api/v1/boards?teamId=${teamId}`, { name: 'Main' }, 'board');
      const side = await made(owner, 'POST', `/api/v1/boards?teamId=${teamId}`, { name: 'Side' }, 'board');
      const away = await made(owner, 'POST', `/api/v1/boards?teamId=${otherTeamId}`, { name: 'Away' }, 'board');
      const lists = [
        { id: await made(owner, 'POST', '/api/v1/lists', { board, name: 'Todo' }, 'list'), teamId },
        { id: await made(owner, 'POST', '/api/v1/lists', { board, name: 'Done' }, 'list'), teamId },
        { id: await made(owner, 'POST', '/api/v1/lists', { board: side, name: 'Side' }, 'list'), teamId },
        { id: await made(owner, 'POST', '/api/v1/lists', { board: away, name: 'Away' }, 'list'), teamId: otherTeamId },
      ];
      for (const [boardId, names] of [
        [board, ['bug', 'feature', 'chore']],
        [side, ['side']],
        [away, ['away']],
      ] as const) {
        for (const [i, name] of names.entries())
          await made(owner, 'POST', `/api/v1/boards/${boardId}/labels`, { name, color: colors[i % colors.length] }, 'label');
      }
      // the same fields on both boards of the team, so a move between them carries the values
      for (const boardId of [board, side]) {
        await made(owner, 'POST', `/api/v1/boards/${boardId}/custom-fields`, { name: 'Estimate', type: 'number' }, 'customField');
        const stage = { name: 'Stage', type: 'select', options: ['todo', 'doing', 'done'].map((name, i) => ({ name, color: colors[i % colors.length] })) };
        await made(owner, 'POST', `/api/v1/boards/${boardId}/custom-fields`, stage, 'customField');
      }
      const cards = [
        await made(owner, 'POST', '/api/v1/cards', { list: lists[0]!.id, name: 'First' }, 'card'),
        await made(owner, 'POST', '/api/v1/cards', { list: lists[0]!.id, name: 'Second' }, 'card'),
      ];
      return { companyId, lists, cards };
    }

    const ids = async (query: Promise<{ id: string }[]>) => (await query).map((r) => r.id);

    /** The kinds of step the API accepted at least once, over every run. */
    const applied = new Set<Kind>();

    /** Runs one step on the world; answers the new card of a copy, if any. */
    async function run(step: Step, w: Awaited<ReturnType<typeof world>>): Promise<string | undefined> {
      const db = t.services.db;
      // a step on a part of a card (an item, an attachment...) picks among the cards that have one, so that it runs
      const part = PART_NEEDED[step.kind];
      const withPart = !part
        ? []
        : part === 'attachments'
          ? await ids(
              db
                .selectFrom('attachments')
                .select('card_id as id')
                .distinct()
                .where('is_deleted', '=', 0)
                .where('card_id', 'in', w.cards)
                .orderBy('card_id')
                .execute(),
            )
          : await ids(db.selectFrom(part).select('card_id as id').distinct().where('card_id', 'in', w.cards).orderBy('card_id').execute());
      const cardId = pick(withPart.length ? withPart : w.cards, step.a)!;
      const card = await loadCard(t.services, cardId);
      const who = pick(people, step.b)!;
      const what = `${step.kind} on ${cardId}`;
      // a step the API accepted (2xx) counts as applied; refusals are allowed, but every kind must be applied in some run
      const done = async (res: Promise<{ statusCode: number; body: string }>) => {
        const answer = await ok(res, what);
        if (answer.statusCode < 300) applied.add(step.kind);
        return answer;
      };
      const boardLabels = await ids(db.selectFrom('labels').select('id').where('board_id', '=', card.board).orderBy('id').execute());
      // a label of the card's (half the time), else of any board of the world
      const worldLabels = await ids(
        db
          .selectFrom('labels')
          .select('id')
          .where(
            'board_id',
            'in',
            db
              .selectFrom('lists')
              .select('board_id')
              .where(
                'id',
                'in',
                w.lists.map((l) => l.id),
              ),
          )
          .orderBy('id')
          .execute(),
      );
      const anyLabel = pick(step.c % 2 && card.labels.length > 0 ? card.labels.map((l) => l._id) : worldLabels, step.b);
      const items = await ids(db.selectFrom('checklist_items').select('id').where('card_id', '=', cardId).orderBy('id').execute());
      const comments = card.comments;
      const attachments = card.attachments.map((a) => a._id);
      switch (step.kind) {
        case 'update-card': {
          const fields = [
            { name: `name ${step.b}` },
            { description: `about ${step.c}` },
            { dueDate: step.c % 2 ? null : '2027-03-04T05:06:07.000Z' },
            { isPublic: step.c % 2 === 0 },
            { complete: { status: step.c % 2 === 0, type: 'done' } },
            { workload: { value: step.c, measurement: 'hours' } },
            { cover: step.c % 2 ? '' : '#ff0000' },
          ];
          await done(owner('PATCH', `/api/v1/cards/${cardId}`, pick(fields, step.b)));
          return;
        }
        case 'toggle-labels': {
          const labels = subset(boardLabels, step.b).slice(0, 3);
          if (labels.length > 0) await done(owner('POST', `/v2/cards/${cardId}/labels`, { labels }));
          return;
        }
        case 'rename-label':
          if (anyLabel) await done(owner('PATCH', `/api/v1/labels/${anyLabel}`, { name: `label ${step.c}` }));
          return;
        case 'recolour-label':
          if (anyLabel) await done(owner('PATCH', `/api/v1/labels/${anyLabel}`, { color: pick(colors, step.c) }));
          return;
        case 'delete-label':
          if (anyLabel) await done(owner('DELETE', `/api/v1/labels/${anyLabel}`));
          return;
        case 'create-label':
          await done(owner('POST', `/api/v1/boards/${card.board}/labels`, { name: `new ${step.c}`, color: pick(colors, step.c) }));
          return;
        case 'toggle-members': {
          const members = subset(people, step.c).map((p) => p.userId);
          if (members.length > 0) await done(owner('POST', `/v2/cards/${cardId}/members`, { members }));
          return;
        }
        case 'update-me-name':
          await done(who.api('PATCH', '/api/v1/me', { fullName: `person ${step.c}` }));
          return;
        case 'update-me-photo':
          await done(who.api('PATCH', '/api/v1/me', { photoUrl: step.c % 3 === 0 ? '' : `https://img.test/${step.c}.png` }));
          return;
        case 'add-checklist':
          await done(owner('POST', `/api/v1/cards/${cardId}/checklists`, { name: `list ${step.c}` }));
          return;
        case 'add-item': {
          const checklist = pick(card.checklists, step.b);
          if (checklist) await done(owner('POST', `/api/v1/checklists/${checklist}/items`, { name: `item ${step.c}` }));
          return;
        }
        case 'complete-item': {
          const item = pick(items, step.b);
          if (item) await done(owner('PATCH', `/api/v1/checklist-items/${item}/complete`, {}));
          return;
        }
        case 'delete-item': {
          const item = pick(items, step.b);
          if (item) await done(owner('DELETE', `/api/v1/checklist-items/${item}`));
          return;
        }
        case 'delete-checklist': {
          const checklist = pick(card.checklists, step.b);
          if (checklist) await done(owner('DELETE', `/api/v1/checklists/${checklist}`));
          return;
        }
        case 'add-comment':
          await done(who.api('POST', `/api/v1/cards/${cardId}/comments`, { content: `said ${step.c}` }));
          return;
        case 'add-discussion': {
          const comment = pick(comments, step.c);
          if (comment) await done(who.api('POST', `/api/v1/comments/${comment}/discussions`, { content: `replied ${step.c}` }));
          return;
        }
        case 'delete-comment': {
          const comment = pick(comments, step.c);
          if (comment) await done(owner('DELETE', `/api/v1/comments/${comment}`));
          return;
        }
        case 'cheer-card':
          await done(who.api('POST', `/api/v1/cards/${cardId}/cheers`, { content: pick(['🎉', '👏', 'nice'], step.c) }));
          return;
        case 'delete-cheer': {
          const cheer = pick(card.cheers, step.c);
          const giver = cheer && people.find((p) => p.userId === cheer.creator._id);
          if (cheer && giver) await done(giver.api('DELETE', `/api/v1/cards/${cardId}/cheers/${cheer._id}`));
          return;
        }
        case 'add-link':
          await done(who.api('POST', `/api/v1/cards/${cardId}/attachments`, { url: `https://example.test/${step.c}`, name: `link ${step.c}` }));
          return;
        case 'rename-attachment': {
          const attachment = pick(attachments, step.b);
          if (attachment) await done(owner('PATCH', `/api/v1/cards/${cardId}/attachments/${attachment}`, { name: `renamed ${step.c}` }));
          return;
        }
        case 'delete-attachment': {
          const attachment = pick(attachments, step.b);
          if (attachment) await done(owner('DELETE', `/api/v1/cards/${cardId}/attachments/${attachment}`));
          return;
        }
        case 'cheer-attachment': {
          const attachment = pick(attachments, step.b);
          if (attachment) await done(who.api('POST', `/api/v1/attachments/${attachment}/cheers`, { content: pick(['🎉', '👏'], step.c) }));
          return;
        }
        case 'move': {
          const list = pick(w.lists, step.b)!;
          const target = { companyId: w.companyId, teamId: list.teamId, list: list.id };
          await done(owner('PATCH', '/api/v1/cards/move-multi-team', { cards: [{ cardId, companyId: card.company, teamId: card.team }], target }));
          return;
        }
        case 'archive':
          await done(owner('PATCH', `/api/v1/cards/${cardId}/archive`));
          return;
        case 'unarchive':
          await done(owner('PATCH', `/api/v1/cards/${cardId}/unarchive`));
          return;
        case 'copy': {
          if (w.cards.length >= 5) return;
          const list = pick(w.lists, step.b)!;
          const res = await done(owner('POST', `/api/v1/cards/${cardId}/copy`, { list: list.id }));
          return res.statusCode === 201 ? (res.json().card._id as string) : undefined;
        }
        case 'reorder':
          await done(owner('PATCH', `/api/v1/cards/${cardId}/position`, { position: step.c % 3 }));
          return;
        case 'set-field-values': {
          const fields = (await owner('GET', `/api/v1/boards/${card.board}/custom-fields`)).json().customFields as Field[];
          const values = fields.map((field) =>
            field.options.length > 0
              ? { field: field._id, value: step.c % 4 === 0 ? null : pick(field.options, step.c)!._id }
              : { field: field._id, value: field.type === 'number' ? (step.c % 5 === 0 ? null : step.c / 8) : `estimate ${step.c}` },
          );
          if (values.length > 0) await done(owner('PATCH', `/api/v1/cards/${cardId}/custom-fields`, { values: subset(values, step.b).slice(0, 2) }));
          return;
        }
        case 'drop-field-option': {
          // the options left out are cleared from every card that chose them: each such card changes
          const field = ((await owner('GET', `/api/v1/boards/${card.board}/custom-fields`)).json().customFields as Field[]).find((f) => f.options.length > 1);
          if (!field) return;
          const kept = field.options.filter((_, i) => i !== step.c % field.options.length);
          await done(owner('PATCH', `/api/v1/custom-fields/${field._id}`, { options: kept.map((o) => ({ _id: o._id, name: o.name, color: o.color._id })) }));
          return;
        }
        case 'retype-field': {
          // number <-> text converts every value the field holds (text back to number only where each reads as one)
          const field = ((await owner('GET', `/api/v1/boards/${card.board}/custom-fields`)).json().customFields as Field[]).find(
            (f) => f.type === 'number' || f.type === 'text',
          );
          if (field) await done(owner('PATCH', `/api/v1/custom-fields/${field._id}`, { type: field.type === 'number' ? 'text' : 'number' }));
          return;
        }
        case 'view-as-other': {
          // a first view by someone else changes the card (seen, __v); reading as them must be right too
          const inTeam = card.team === t.tenant.teamId || who.userId !== people[2]!.userId;
          if (inTeam) {
            await assertServedIsBuilt(cardId, who.api, what);
            applied.add(step.kind);
          }
          return;
        }
      }
    }

    it('after every step of random sequences of changes, every card and every page is served as the tables build it', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArbitrary, { minLength: STEPS, maxLength: STEPS }), async (steps) => {
          const w = await world();
          await assertPagesServedAreBuilt(w, 'start');
          for (const cardId of w.cards) await assertServedIsBuilt(cardId, owner, 'start');
          // the random steps, then each kind once in KINDS' order (a part's step after its making), so that every kind runs
          const everyKind = KINDS.map((kind): Step => ({ kind, a: 0, b: 0, c: 0 }));
          for (const [i, step] of [...steps, ...everyKind].entries()) {
            const copy = await run(step, w);
            if (copy) w.cards.push(copy);
            await assertPagesServedAreBuilt(w, `after step ${i} (${step.kind})`);
            for (const cardId of w.cards) await assertServedIsBuilt(cardId, owner, `after step ${i} (${step.kind})`);
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      // a kind never applied (its request always refused, or its candidates never there) would be untested
      assert.deepEqual(
        KINDS.filter((kind) => !applied.has(kind)),
        [],
        'kinds of change no run applied',
      );
    });

    it('sends the same bytes as the route’s serializer would, whether the view was built or stored', async () => {
      const w = await world();
      const cardId = w.cards[0]!;
      await owner('POST', `/api/v1/cards/${cardId}/attachments`, { url: 'https://example.test/a', name: 'link' });
      await people[1]!.api('POST', `/api/v1/cards/${cardId}/cheers`, { content: '🎉' });
      await owner('GET', `/api/v1/cards/${cardId}`); // the first view: seen
      await t.services.db.deleteFrom('card_views').where('card_id', '=', cardId).execute();
      const built = await owner('GET', `/api/v1/cards/${cardId}`);
      const stored = await owner('GET', `/api/v1/cards/${cardId}`);
      const serialize = fastJson(success('card', CardSchema) as never, { schema: namedSchemaContext() as never });
      assert.equal(built.body, serialize({ message: 'Card details', card: await loadCard(t.services, cardId) }));
      assert.equal(stored.body, built.body);
      assert.equal(stored.headers.etag, built.headers.etag);
    });

    it('answers the stored view while it counts, and stops the moment a stamp moves', async () => {
      const w = await world();
      const cardId = w.cards[0]!;
      await assertServedIsBuilt(cardId);
      const boardId = (await loadCard(t.services, cardId)).board;
      // a marker in the stored body shows the read answered it without building the record
      const marker = storedText(tagged('{"marker":true}'));
      await t.services.db.updateTable('card_views').set({ body: marker }).where('card_id', '=', cardId).execute();
      const marked = await owner('GET', `/api/v1/cards/${cardId}`);
      assert.equal(marked.statusCode, 200);
      assert.deepEqual(marked.json(), { message: 'Card details', card: { marker: true } });
      assert.match(String(marked.headers['content-type']), /^application\/json/);
      assert.ok(marked.headers.etag, 'a view answer carries its ETag');
      const again = await t.app.inject({
        method: 'GET',
        url: `/api/v1/cards/${cardId}`,
        headers: { ...bearer(t.tenant.apiKey), 'if-none-match': String(marked.headers.etag) },
      });
      assert.equal(again.statusCode, 304);

      // each stamp, moved alone, makes the view a miss: the record is built (and stored) again
      const changes: [string, (trx: Transaction) => Promise<unknown>][] = [
        [
          'the card’s __v',
          async (trx) => recordCardChange(trx, (await lockCard(trx, cardId))!, { caller: null, kind: 'card.updated', at: new Date().toISOString() }),
        ],
        ['the board’s labels stamp', (trx) => recordBoardLabelsChange(trx, boardId)],
        ['the users’ stamp', (trx) => recordUsersChange(trx)],
      ];
      for (const [stamp, change] of changes) {
        await t.services.db.updateTable('card_views').set({ body: marker }).where('card_id', '=', cardId).execute();
        assert.deepEqual((await owner('GET', `/api/v1/cards/${cardId}`)).json().card, { marker: true }, stamp);
        await inTransaction(t.services, change);
        await assertServedIsBuilt(cardId, owner, `after moving ${stamp}`);
      }
      // a view of another form (another release's schemas or mapping) is not served
      await t.services.db.updateTable('card_views').set({ body: marker, form: 'another' }).where('card_id', '=', cardId).execute();
      await assertServedIsBuilt(cardId, owner, 'a view of another form');
    });

    it('keeps the view built last: a slower reader’s older build does not replace it', async () => {
      const w = await world();
      const cardId = w.cards[0]!;
      await assertServedIsBuilt(cardId);
      const current = await t.services.db.selectFrom('card_views').selectAll().where('card_id', '=', cardId).executeTakeFirstOrThrow();
      const base = { cardId, form: current.form, body: current.body, labelsStamp: current.labels_stamp, usersStamp: current.users_stamp };
      await storeCardView(t.services.db, { ...base, cardVersion: current.card_version - 1, body: '"older"' });
      await storeCardView(t.services.db, { ...base, cardVersion: current.card_version, usersStamp: current.users_stamp - 1, body: '"older"' });
      assert.equal((await t.services.db.selectFrom('card_views').select('body').where('card_id', '=', cardId).executeTakeFirstOrThrow()).body, current.body);
      await storeCardView(t.services.db, { ...base, cardVersion: current.card_version + 1, body: '"newer"' });
      assert.equal((await t.services.db.selectFrom('card_views').select('body').where('card_id', '=', cardId).executeTakeFirstOrThrow()).body, '"newer"');
      // a card that is gone has no view (the domain answers what it read and stores nothing)
      await assert.rejects(storeCardView(t.services.db, { ...base, cardId: 'f'.repeat(24), cardVersion: 0 }), ForeignKeyViolation);
      // the views of a page, in one statement, keep the newest the same way
      const other = w.cards[1]!;
      await assertServedIsBuilt(other);
      const otherView = await t.services.db.selectFrom('card_views').selectAll().where('card_id', '=', other).executeTakeFirstOrThrow();
      await storeCardViews(t.services.db, [
        { ...base, cardVersion: current.card_version, body: '"older again"' },
        {
          cardId: other,
          form: otherView.form,
          labelsStamp: otherView.labels_stamp,
          usersStamp: otherView.users_stamp,
          cardVersion: otherView.card_version + 1,
          body: '"newer too"',
        },
      ]);
      const bodies = await t.services.db.selectFrom('card_views').select(['card_id', 'body']).where('card_id', 'in', [cardId, other]).execute();
      assert.deepEqual(Object.fromEntries(bodies.map((row) => [row.card_id, row.body])), { [cardId]: '"newer"', [other]: '"newer too"' });
      await assert.rejects(
        storeCardViews(t.services.db, [
          { ...base, cardVersion: current.card_version + 2 },
          { ...base, cardId: 'f'.repeat(24), cardVersion: 0 },
        ]),
        ForeignKeyViolation,
      );
    });

    if (engine === 'postgres') {
      /**
       * A change held open in a transaction while a reader builds and stores the card's view from
       * the rows before it, then committed: the view stored from the old rows must never be served.
       */
      async function changeDuringBuild(cardId: string, change: (trx: Transaction) => Promise<void>) {
        let changed!: () => void;
        let commit!: () => void;
        const didChange = new Promise<void>((resolve) => (changed = resolve));
        const mayCommit = new Promise<void>((resolve) => (commit = resolve));
        const holder = inTransaction(t.services, async (trx) => {
          await change(trx);
          changed();
          await mayCommit;
        });
        await didChange;
        try {
          // no view counts now: the read builds from the rows as they were before the change and stores that
          await t.services.db.deleteFrom('card_views').where('card_id', '=', cardId).execute();
          const during = await owner('GET', `/api/v1/cards/${cardId}`);
          assert.equal(during.statusCode, 200, during.body);
          const stored = await t.services.db.selectFrom('card_views').select('card_id').where('card_id', '=', cardId).executeTakeFirst();
          assert.ok(stored, 'the read stored the view it built from the rows before the change');
          return during.json().card as Card;
        } finally {
          commit();
          await holder;
        }
      }

      it('a card removed while its view is stored is answered as it was read, not with a 500', async () => {
        const w = await world();
        const cardId = w.cards[0]!;
        await assertServedIsBuilt(cardId);
        await t.services.db.deleteFrom('card_views').where('card_id', '=', cardId).execute();
        const holder = await holdLocks(t.services.db, (trx) => trx.deleteFrom('cards').where('id', '=', cardId).execute());
        // the read sees the card (the removal is not committed), builds it, and its store waits for the removal
        const read = await runAgainst(t.services.db, holder, () => owner('GET', `/api/v1/cards/${cardId}`));
        assert.ok(read.waited, 'the view’s store waited for the removal');
        const res = read.answer;
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().card._id, cardId);
        assert.equal((await owner('GET', `/api/v1/cards/${cardId}`)).statusCode, 404);
      });

      it('a change committed while a view was built from the rows before it leaves no stale view served', async () => {
        const w = await world();
        const cardId = w.cards[0]!;
        const labelId = (
          await t.services.db
            .selectFrom('labels')
            .select('id')
            .where('board_id', '=', (await loadCard(t.services, cardId)).board)
            .executeTakeFirstOrThrow()
        ).id;
        assert.equal((await owner('POST', `/v2/cards/${cardId}/labels`, { labels: [labelId] })).statusCode, 200);
        assert.equal((await owner('POST', `/v2/cards/${cardId}/members`, { members: [t.tenant.userId] })).statusCode, 200);
        await assertServedIsBuilt(cardId);
        const at = () => new Date().toISOString();

        const renamedCard = await changeDuringBuild(cardId, async (trx) => {
          await recordCardChange(trx, (await lockCard(trx, cardId))!, { caller: null, kind: 'card.updated', at: at() });
          await setCardColumns(trx, cardId, { name: 'renamed meanwhile' });
        });
        assert.notEqual(renamedCard.name, 'renamed meanwhile', 'the read built from the rows before the change');
        assert.equal((await assertServedIsBuilt(cardId, owner, 'after the card changed')).name, 'renamed meanwhile');

        const board = (await loadCard(t.services, cardId)).board;
        const relabelled = await changeDuringBuild(cardId, async (trx) => {
          await recordBoardLabelsChange(trx, board);
          await updateLabel(trx, labelId, { name: 'renamed label' }, at());
        });
        assert.notEqual(relabelled.labels[0]!.name, 'renamed label');
        assert.equal((await assertServedIsBuilt(cardId, owner, 'after the label changed')).labels[0]!.name, 'renamed label');

        const renamedMember = await changeDuringBuild(cardId, async (trx) => {
          await recordUsersChange(trx);
          await updateUser(trx, t.tenant.userId, { full_name: 'Renamed Owner' }, at());
        });
        assert.notEqual(renamedMember.members[0]!.fullName, 'Renamed Owner');
        assert.equal((await assertServedIsBuilt(cardId, owner, 'after the user changed')).members[0]!.fullName, 'Renamed Owner');
      });
    }
  });
}
