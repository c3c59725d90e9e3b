/**
 * The access boundary: only src/domain/access/ decides whether a caller reaches a thing. A service
 * that read the caller's memberships itself, called a reach helper, or defined one of its own would
 * give the 404 rule a second place to audit; this test fails when any file under src/domain does.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { assertEachCaught, DOMAIN, domainFiles, findingsInDomain, ROOT } from '../support/domain-sources.ts';

const ACCESS = join(DOMAIN, 'access') + sep;
/** Called by services inside their change, never services themselves. */
const CHANGE_PATH_HELPERS = [
  join(DOMAIN, 'cards', 'recorder.ts'),
  join(DOMAIN, 'cards', 'locks.ts'),
  join(DOMAIN, 'events', 'record.ts'),
  // the audit log is handed the caller of a service that passed access, to say who acted
  join(DOMAIN, 'audit', 'log.ts'),
  // a rule's actions are calls of the services (each passes access) with its author as the caller
  join(DOMAIN, 'rules', 'actions.ts'),
];
/** Where the Caller type itself is declared (its fields are named there, not read). */
const CALLER_TYPE = join(DOMAIN, 'shared', 'caller.ts');

const RULES: readonly { why: string; pattern: RegExp }[] = [
  { why: 'calls or names a reach primitive', pattern: /\b(canReachTeam|requireReach|isCompanyAdmin|collectionReach|inReach)\b/ },
  { why: "reads the caller's memberships (reach is decided in src/domain/access)", pattern: /\.(companyRoles|teamIds)\b/ },
  {
    why: 'defines a reach helper',
    pattern:
      /\b(?:function|const|let)\s+(reachable\w*|require(?:Board|Label|List|Team|Card|Company|Checklist|Item|Reach)\w*|\w*OrNotFound|lock\w*InReach|lock(?:Card|Checklist|Item|Comment|Discussion|Cheered|KeptWithCard)|checkMultiTeamCards|\w*Reach)\b/,
  },
];

/** The boundary's findings for one file: `path:line: why`. */
export function violations(path: string, source: string): string[] {
  if (path.startsWith(ACCESS)) return [];
  const found: string[] = [];
  for (const [index, line] of source.split('\n').entries()) {
    for (const rule of RULES) {
      if (path === CALLER_TYPE && rule.pattern === RULES[1]?.pattern) continue;
      if (rule.pattern.test(line)) found.push(`${relative(ROOT, path)}:${index + 1}: ${rule.why}: ${line.trim()}`);
    }
  }
  return found;
}

describe('access boundary', () => {
  it('no file of src/domain outside src/domain/access decides reach', async () => {
    assert.deepEqual(await findingsInDomain(violations), []);
  });

  it('every service of a card or team starts with the access module', async () => {
    // Services that take a caller and read or write what belongs to a team reach it through requireAccess
    // (or through the change path, which does): a service file that takes a Caller and never does is suspect.
    const files = (await domainFiles()).filter((path) => !path.startsWith(ACCESS) && !path.includes(`${sep}shared${sep}`));
    const bypassing: string[] = [];
    for (const path of files) {
      const source = await readFile(path, 'utf8');
      if (!/caller: Caller/.test(source)) continue;
      const usesAccess = /\brequireAccess(ToEach)?\b|\bchangeCard(Along)?\b|\bchangeEachCard\b|\bchangeItem\b/.test(source);
      // account and people (sign-in, sessions) work on the caller's own user, not on a team's things
      const ownUser = /domain[\\/](account|people)[\\/]/.test(path);
      // the change recorder, the placement helper and the event record are handed the caller of a
      // service that already passed access, only to say who made the change they record
      const recordsForAService = CHANGE_PATH_HELPERS.includes(path);
      if (!usesAccess && !ownUser && !recordsForAService) bypassing.push(relative(ROOT, path));
    }
    assert.deepEqual(bypassing, []);
  });

  it('catches a service that decides reach by itself', () => {
    const service = join(DOMAIN, 'boards', 'example.ts');
    const cases = [
      "if (!caller.teamIds.has(board.team_id)) throw new NotFoundError('Board');",
      'const role = caller.companyRoles.get(companyId);',
      'return requireReach(caller, row, "Board", scope);',
      'if (canReachTeam(caller, a, b)) return row;',
      'async function reachableWidget(db, caller, id) {',
      'export async function requireBoard(ctx, caller, id) {',
      'const listOrNotFound = (row) => row;',
      'export async function lockWidgetInReach(trx, caller, id) {',
    ];
    assertEachCaught(violations, service, cases);
    // the access module itself may; and an ordinary service line is fine
    assert.deepEqual(violations(join(DOMAIN, 'access', 'access.ts'), cases.join('\n')), []);
    assert.deepEqual(violations(service, "const board = await requireAccess(ctx.db, caller, { kind: 'board', id, scope });"), []);
  });
});
