/**
 * Property test: long random sequences of checklist and item operations (through the services),
 * against both engines. After every step, each card's `checklists` and `allChecklistItemsCount`
 * must equal the truth computed independently from the tables, the order of checklists and items
 * must be what a simple in-memory model predicts, and each card's `__v` must have grown by exactly
 * the number of changes the step made to it.
 *
 * Reproduce a failure with the seed it prints: CHECKLIST_SEED=<seed> (and CHECKLIST_STEPS=<n>).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticate } from '../../src/domain/account/service.ts';
import { createCard, loadCard } from '../../src/domain/cards/service.ts';
import * as items from '../../src/domain/checklists/items.ts';
import * as checklists from '../../src/domain/checklists/service.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { DomainError } from '../../src/domain/shared/errors.ts';
import type { PositionRequest } from '../../src/domain/shared/positions.ts';
import { checklistWorld } from '../support/checklist-world.ts';
import { buildTestApp, ENGINES, type TestApp } from '../support/harness.ts';

const SEED = Number(process.env.CHECKLIST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const STEPS = Number(process.env.CHECKLIST_STEPS ?? 300);

/** mulberry32: a small seeded PRNG, so a failing sequence can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick<T>(list: readonly T[]): T {
      return list[Math.floor(next() * list.length)] as T;
    },
    chance: (p: number) => next() < p,
  };
}

/** What the services should have made of the tables. */
interface Model {
  /** Card id → its checklist ids in order. */
  cards: Map<string, string[]>;
  /** Checklist id → its card and its item ids in order. */
  checklists: Map<string, { card: string; items: string[] }>;
  /** Item id → whether it is complete. */
  complete: Map<string, boolean>;
  /** Card id → its expected `__v`. */
  versions: Map<string, number>;
}

/** Where a request puts an item among `siblings` (the item itself left out): the index semantics of the contract. */
function insertAt(siblings: string[], request: PositionRequest, id: string): void {
  const index = request === 'top' ? 0 : request === 'bottom' ? siblings.length : Math.min(request, siblings.length);
  siblings.splice(index, 0, id);
}

for (const engine of ENGINES) {
  describe(`checklist invariants under random operations [${engine}]`, () => {
    let t: TestApp;
    let caller: Caller;
    let cardIds: string[];
    let teamOf: Map<string, string>;
    let users: string[];

    before(async () => {
      t = await buildTestApp(engine);
      caller = await authenticate(t.services, t.tenant.apiKey);
      const w = await checklistWorld(t);
      users = [t.tenant.userId, w.mate.userId, w.both.userId];
      const [core, far, other] = [w.listId, w.elsewhereListId, w.elsewhereTeam];
      const teamId = t.tenant.teamId;
      cardIds = [];
      teamOf = new Map();
      for (const [list, team] of [
        [core, teamId],
        [core, teamId],
        [far, other],
      ] as const) {
        const id = (await createCard(t.services, caller, {}, { list, name: 'Card' }))._id;
        cardIds.push(id);
        teamOf.set(id, team);
      }
    });
    after(() => t.dispose());

    /** The truth, read straight from the tables, independently of the services' record code. */
    async function truth(cardId: string) {
      const db = t.services.db;
      const rows = await db.selectFrom('checklist_items').select(['complete_status']).where('card_id', '=', cardId).execute();
      const checklistOrder = await db.selectFrom('checklists').select('id').where('card_id', '=', cardId).orderBy('position').orderBy('id').execute();
      const misplaced = await db
        .selectFrom('checklist_items as i')
        .innerJoin('checklists as k', 'k.id', 'i.checklist_id')
        .select('i.id')
        .whereRef('i.card_id', '!=', 'k.card_id')
        .execute();
      const version = (await db.selectFrom('cards').select('version').where('id', '=', cardId).executeTakeFirstOrThrow()).version;
      return {
        counts: { completed: rows.filter((r) => Number(r.complete_status) === 1).length, total: rows.length },
        checklists: checklistOrder.map((c) => c.id),
        misplaced: misplaced.length,
        version,
      };
    }

    async function itemOrder(checklistId: string): Promise<string[]> {
      const rows = await t.services.db
        .selectFrom('checklist_items')
        .select('id')
        .where('checklist_id', '=', checklistId)
        .orderBy('position')
        .orderBy('id')
        .execute();
      return rows.map((r) => r.id);
    }

    it(`keeps card.checklists, allChecklistItemsCount, order and __v true over ${STEPS} steps (seed ${SEED})`, async (test) => {
      test.diagnostic(`CHECKLIST_SEED=${SEED} CHECKLIST_STEPS=${STEPS}`);
      const random = prng(SEED + (engine === 'postgres' ? 1 : 0));
      const model: Model = { cards: new Map(cardIds.map((id) => [id, []])), checklists: new Map(), complete: new Map(), versions: new Map() };
      for (const id of cardIds) model.versions.set(id, (await truth(id)).version);
      const ctx = t.services;
      const position = (length: number): PositionRequest => {
        const r = random.int(4);
        return r === 0 ? 'top' : r === 1 ? 'bottom' : random.int(length + 2);
      };
      const bump = (...cards: string[]) => {
        for (const card of new Set(cards)) model.versions.set(card, (model.versions.get(card) as number) + 1);
      };
      const allChecklists = () => [...model.checklists.keys()];
      const allItems = () => [...model.complete.keys()];

      const operations: [number, () => Promise<string> | undefined][] = [
        [
          3,
          () => {
            const card = random.pick(cardIds);
            const request = position((model.cards.get(card) as string[]).length);
            return (async () => {
              const created = await checklists.createChecklist(ctx, caller, card, {}, { name: 'c', position: request });
              insertAt(model.cards.get(card) as string[], request, created._id);
              model.checklists.set(created._id, { card, items: [] });
              bump(card);
              return `create checklist on ${card} at ${request}`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.checklists.size) return undefined;
            const id = random.pick(allChecklists());
            return (async () => {
              await checklists.renameChecklist(ctx, caller, id, {}, `n${random.int(100)}`);
              bump((model.checklists.get(id) as { card: string }).card);
              return `rename checklist ${id}`;
            })();
          },
        ],
        [
          2,
          () => {
            if (!model.checklists.size) return undefined;
            const id = random.pick(allChecklists());
            const card = (model.checklists.get(id) as { card: string }).card;
            const siblings = model.cards.get(card) as string[];
            const request = position(siblings.length - 1);
            return (async () => {
              await checklists.moveChecklist(ctx, caller, id, {}, request);
              siblings.splice(siblings.indexOf(id), 1);
              insertAt(siblings, request, id);
              bump(card);
              return `move checklist ${id} to ${request}`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.checklists.size) return undefined;
            const id = random.pick(allChecklists());
            const source = model.checklists.get(id) as { card: string; items: string[] };
            const target = random.pick(cardIds);
            return (async () => {
              const copy = await checklists.copyChecklist(ctx, caller, id, {}, { card: target });
              (model.cards.get(target) as string[]).push(copy._id);
              model.checklists.set(copy._id, { card: target, items: copy.items.map((i) => i._id) });
              assert.deepEqual(
                copy.items.map((i) => i.complete.status),
                source.items.map((i) => model.complete.get(i)),
              );
              for (const item of copy.items) model.complete.set(item._id, item.complete.status);
              bump(source.card, target);
              return `copy checklist ${id} to ${target}`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.checklists.size) return undefined;
            const id = random.pick(allChecklists());
            const { card, items: gone } = model.checklists.get(id) as { card: string; items: string[] };
            return (async () => {
              await checklists.deleteChecklist(ctx, caller, id, {});
              const order = model.cards.get(card) as string[];
              order.splice(order.indexOf(id), 1);
              model.checklists.delete(id);
              for (const item of gone) model.complete.delete(item);
              bump(card);
              return `delete checklist ${id}`;
            })();
          },
        ],
        [
          6,
          () => {
            if (!model.checklists.size) return undefined;
            const id = random.pick(allChecklists());
            const checklist = model.checklists.get(id) as { card: string; items: string[] };
            const request = position(checklist.items.length);
            const team = teamOf.get(checklist.card) as string;
            const members = random.chance(0.3) ? [users[team === t.tenant.teamId ? random.int(3) : 2] as string] : [];
            return (async () => {
              const created = await items.createItem(ctx, caller, id, {}, { name: 'i', position: request, members });
              insertAt(checklist.items, request, created._id);
              model.complete.set(created._id, false);
              bump(checklist.card);
              return `create item in ${id} at ${request}`;
            })();
          },
        ],
        [
          3,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const status = random.chance(0.5) ? undefined : random.chance(0.5);
            const card = [...model.checklists.values()].find((c) => c.items.includes(id))?.card as string;
            return (async () => {
              const updated = await items.toggleItemComplete(ctx, caller, id, {}, status);
              const was = model.complete.get(id) as boolean;
              const next = status ?? !was;
              assert.equal(updated.complete.status, next);
              model.complete.set(id, next);
              if (next !== was) bump(card);
              return `complete item ${id} (${status})`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const card = [...model.checklists.values()].find((c) => c.items.includes(id))?.card as string;
            return (async () => {
              if (random.chance(0.5)) await items.renameItem(ctx, caller, id, {}, 'renamed');
              else await items.setItemDate(ctx, caller, id, {}, random.chance(0.5) ? null : '2026-01-01T00:00:00Z');
              bump(card);
              return `edit item ${id}`;
            })();
          },
        ],
        [
          4,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const [fromId, from] = [...model.checklists.entries()].find(([, c]) => c.items.includes(id)) as [string, { card: string; items: string[] }];
            const sameCard = model.cards.get(from.card) as string[];
            const toId = random.chance(0.5) ? random.pick(sameCard) : fromId;
            const to = model.checklists.get(toId) as { items: string[] };
            const request = position(to.items.length - (toId === fromId ? 1 : 0));
            return (async () => {
              await items.moveItem(ctx, caller, id, {}, { position: request, ...(toId !== fromId || random.chance(0.5) ? { checklist: toId } : {}) });
              from.items.splice(from.items.indexOf(id), 1);
              insertAt(to.items, request, id);
              bump(from.card);
              return `move item ${id} to ${toId} at ${request}`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const from = [...model.checklists.values()].find((c) => c.items.includes(id)) as { card: string };
            const others = allChecklists().filter((c) => model.checklists.get(c)?.card !== from.card);
            if (!others.length) return undefined;
            return (async () => {
              // moving to a checklist of another card is refused and changes nothing
              await assert.rejects(items.moveItem(ctx, caller, id, {}, { position: 0, checklist: random.pick(others) }), DomainError);
              return `refused move of ${id}`;
            })();
          },
        ],
        [
          2,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const from = [...model.checklists.values()].find((c) => c.items.includes(id)) as { card: string };
            const toId = random.pick(allChecklists());
            const to = model.checklists.get(toId) as { card: string; items: string[] };
            return (async () => {
              const copy = await items.copyItem(ctx, caller, id, {}, { checklist: toId });
              to.items.push(copy._id);
              model.complete.set(copy._id, model.complete.get(id) as boolean);
              bump(from.card, to.card);
              return `copy item ${id} to ${toId}`;
            })();
          },
        ],
        [
          1,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const from = [...model.checklists.values()].find((c) => c.items.includes(id)) as { card: string };
            const user = from.card === cardIds[2] ? (users[2] as string) : random.pick(users);
            return (async () => {
              await items.toggleItemMembers(ctx, caller, id, {}, [user]);
              bump(from.card);
              return `toggle member ${user} on ${id}`;
            })();
          },
        ],
        [
          2,
          () => {
            if (!model.complete.size) return undefined;
            const id = random.pick(allItems());
            const from = [...model.checklists.values()].find((c) => c.items.includes(id)) as { card: string; items: string[] };
            return (async () => {
              await items.deleteItem(ctx, caller, id, {});
              from.items.splice(from.items.indexOf(id), 1);
              model.complete.delete(id);
              bump(from.card);
              return `delete item ${id}`;
            })();
          },
        ],
      ];
      const weighted = operations.flatMap(([weight, op]) => Array.from({ length: weight }, () => op));

      const history: string[] = [];
      for (let step = 0; step < STEPS; step++) {
        let done: string | undefined;
        while (done === undefined) {
          const run = random.pick(weighted)();
          if (run) done = await run;
        }
        history.push(done);
        const where = () => `seed ${SEED}, step ${step}: ${history.slice(-3).join(' / ')}`;
        for (const cardId of cardIds) {
          const [record, real] = [await loadCard(ctx, cardId), await truth(cardId)];
          const order = model.cards.get(cardId) as string[];
          const expected = {
            completed: order.flatMap((c) => (model.checklists.get(c) as { items: string[] }).items).filter((i) => model.complete.get(i)).length,
            total: order.reduce((n, c) => n + (model.checklists.get(c) as { items: string[] }).items.length, 0),
          };
          assert.deepEqual(record.allChecklistItemsCount, real.counts, `count vs tables, ${where()}`);
          assert.deepEqual(real.counts, expected, `count vs model, ${where()}`);
          assert.deepEqual(record.checklists, real.checklists, `checklist ids vs tables, ${where()}`);
          assert.deepEqual(record.checklists, order, `checklist order vs model, ${where()}`);
          assert.equal(real.misplaced, 0, `items on another card than their checklist, ${where()}`);
          assert.equal(record.__v, model.versions.get(cardId), `card __v, ${where()}`);
        }
        for (const [checklistId, checklist] of model.checklists) {
          assert.deepEqual(await itemOrder(checklistId), checklist.items, `item order of ${checklistId}, ${where()}`);
        }
      }
    });
  });
}
