/**
 * The change path: only src/domain/cards/recorder.ts counts a change of a card (`__v` + 1,
 * `updatedAt`) through the cards repository (`recordCardChange`, `renumberCards`), or moves a stamp stored card views are kept under
 * through the card views repository, so whatever every change of a card's world must also do has
 * one place. This test fails when any other file under src/domain calls those functions itself.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { assertEachCaught, DOMAIN, domainFiles, findingsInDomain, ROOT } from '../support/domain-sources.ts';

const RECORDER = join(DOMAIN, 'cards', 'recorder.ts');
/**
 * The repository functions that move a card's `__v`/`updatedAt` (the cards repository), or a stamp
 * stored card views are kept under (the card views repository), by repository.
 */
const BUMPS_BY_REPOSITORY: [repository: string, bumps: string[]][] = [
  ['cards', ['recordCardChange', 'renumberCards']],
  ['card-views', ['restampBoardLabels', 'restampUsers']],
];
const repositoryPath = (name: string) => String.raw`['"][./]*(?:\.\./)*storage/repositories/${name}(?:\.ts)?['"]`;

/** The change-path findings for one file: `path: why`. */
export function violations(path: string, source: string): string[] {
  if (path === RECORDER) return [];
  const found: string[] = [];
  const where = relative(ROOT, path);
  for (const [repository, bumps] of BUMPS_BY_REPOSITORY) {
    const from = repositoryPath(repository);
    // a named import of a bump from the repository
    for (const match of source.matchAll(new RegExp(String.raw`import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*${from}`, 'g'))) {
      for (const name of bumps) {
        if (new RegExp(String.raw`(?:^|[\s,])${name}\b`).test(match[1] ?? '')) found.push(`${where}: imports ${name} from the ${repository} repository`);
      }
    }
    // a bump called through a namespace import of the repository
    for (const match of source.matchAll(new RegExp(String.raw`import\s*\*\s*as\s+(\w+)\s+from\s*${from}`, 'g'))) {
      for (const name of bumps) {
        if (new RegExp(String.raw`\b${match[1]}\s*\.\s*${name}\b`).test(source)) found.push(`${where}: calls ${match[1]}.${name}`);
      }
    }
  }
  return found;
}

describe('change path', () => {
  it('no file of src/domain but the recorder moves a card’s __v through the repository', async () => {
    assert.ok((await domainFiles()).includes(RECORDER), 'the recorder is among them');
    assert.deepEqual(await findingsInDomain(violations), []);
  });

  it('the recorder itself calls the repository’s bumps', async () => {
    // were the recorder to stop calling them, the check above would guard nothing
    const source = await readFile(RECORDER, 'utf8');
    assert.deepEqual(violations(join(DOMAIN, 'cards', 'other.ts'), source).sort(), [
      'src/domain/cards/other.ts: calls cardViews.restampBoardLabels',
      'src/domain/cards/other.ts: calls cardViews.restampUsers',
      'src/domain/cards/other.ts: calls cards.recordCardChange',
      'src/domain/cards/other.ts: calls cards.renumberCards',
    ]);
  });

  it('catches a service that bumps a card itself', () => {
    const service = join(DOMAIN, 'comments', 'example.ts');
    const cases = [
      "import { findCard, recordCardChange } from '../../storage/repositories/cards.ts';",
      "import {\n  lockCards,\n  renumberCards,\n} from '../../storage/repositories/cards.ts';",
      "import * as cards from '../../storage/repositories/cards.ts';\nawait cards.recordCardChange(trx, id, at);",
      "import * as repo from '../../storage/repositories/cards.ts';\nawait repo.renumberCards(trx, listId, moves, at);",
      "import { restampUsers } from '../../storage/repositories/card-views.ts';",
      "import * as views from '../../storage/repositories/card-views.ts';\nawait views.restampBoardLabels(trx, boardId);",
    ];
    assertEachCaught(violations, service, cases);
    // the recorder may; and going through the recorder is fine
    assert.deepEqual(violations(RECORDER, cases.join('\n')), []);
    const fine = [
      "import * as cards from '../../storage/repositories/cards.ts';\nawait cards.findCard(trx, id);",
      "import { recordCardChange } from '../cards/recorder.ts';\nawait recordCardChange(trx, id, { caller, kind: 'comment.created', at });",
      "import { recordUsersChange } from '../cards/recorder.ts';\nawait recordUsersChange(trx);",
      "import { storeCardView } from '../../storage/repositories/card-views.ts';",
    ];
    for (const source of fine) assert.deepEqual(violations(service, source), [], source);
  });
});
