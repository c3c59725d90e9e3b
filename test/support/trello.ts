/**
 * Trello exports for the import tests: a small one written after the exports open-source importers
 * keep as fixtures (test/fixtures/trello/small-board.json), and boards of any size made here.
 */
import { readFileSync } from 'node:fs';
import { multipart } from './fixtures.ts';

export function smallTrelloExport(): Record<string, any> {
  return JSON.parse(readFileSync(new URL('../fixtures/trello/small-board.json', import.meta.url), 'utf8'));
}

const hexId = (prefix: string, n: number) => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;

/** A board of `cards` cards over four lists, each card with a label, a checklist of two items and a comment. */
export function bigTrelloExport(cards: number): Record<string, unknown> {
  const lists = [0, 1, 2, 3].map((i) => ({ id: hexId('b1', i), name: `List ${i + 1}`, closed: false, pos: (i + 1) * 16384 }));
  const labels = [{ id: hexId('a1', 1), name: 'Bug', color: 'red' }];
  return {
    id: hexId('c1', 1),
    name: `Big board of ${cards} cards`,
    desc: '',
    lists,
    labels,
    members: [{ id: hexId('e1', 1), fullName: 'Olive Owner', username: 'owner' }],
    cards: Array.from({ length: cards }, (_, i) => ({
      id: hexId('f1', i),
      name: `Card ${i + 1} — ünïcode`,
      desc: `Description of card ${i + 1}`,
      closed: false,
      idList: lists[i % 4]?.id,
      pos: (Math.floor(i / 4) + 1) * 1024,
      idLabels: [labels[0]?.id],
      idMembers: [hexId('e1', 1)],
      due: null,
      start: null,
      dueComplete: false,
      attachments: [],
      badges: { votes: 0 },
    })),
    checklists: Array.from({ length: cards }, (_, i) => ({
      id: hexId('d1', i),
      idCard: hexId('f1', i),
      name: 'Todo',
      pos: 1,
      checkItems: [
        { id: hexId('d2', i * 2), name: 'One', state: 'complete', pos: 1 },
        { id: hexId('d2', i * 2 + 1), name: 'Two', state: 'incomplete', pos: 2 },
      ],
    })),
    actions: Array.from({ length: Math.min(cards, 1000) }, (_, i) => ({
      id: hexId('a2', i),
      type: 'commentCard',
      idMemberCreator: hexId('e1', 1),
      date: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      data: { text: `Comment ${i}`, card: { id: hexId('f1', i) } },
      memberCreator: { fullName: 'Olive Owner', username: 'owner' },
    })),
  };
}

/** The form that carries a file to an import. */
/** The import's form: the file, after the fields that come before it (`people`: the mapping, JSON). */
export function importForm(content: string | Buffer, filename = 'board.json', fields: Record<string, string> = {}) {
  return multipart(fields, { filename, contentType: 'application/json', content: Buffer.isBuffer(content) ? content : Buffer.from(content) });
}
