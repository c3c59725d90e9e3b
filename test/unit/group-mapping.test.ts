/**
 * Which groups a mapping rule names (docs/people.md, "Groups to roles and teams"): a DN as the
 * directory writes it (any case, spaces after commas), the group's name (the DN's first value), or
 * a claim's value; never a group whose name only starts or ends the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesGroup } from '../../src/domain/companies/group-mapping.ts';

const rule = (group: string) => ({ group, company: 'Acme' });
const DESIGNERS = 'CN=Designers, OU=Groups, DC=acme, DC=test';

describe('group mapping rules', () => {
  it('match a DN whatever its case and spacing, or by the group name alone', () => {
    assert.ok(matchesGroup(rule('cn=designers,ou=groups,dc=acme,dc=test'), [DESIGNERS]));
    assert.ok(matchesGroup(rule('designers'), [DESIGNERS]));
    assert.ok(matchesGroup(rule('Designers'), ['cn=designers,ou=groups,dc=acme,dc=test']));
  });

  it("match a claim's value without case, and nothing else", () => {
    assert.ok(matchesGroup(rule('taskboard-admins'), ['Taskboard-Admins']));
    assert.equal(matchesGroup(rule('taskboard-admins'), ['taskboard-admins-old', 'admins']), false);
    assert.equal(matchesGroup(rule('designers'), ['cn=designers-old,ou=groups,dc=acme,dc=test', 'cn=x,cn=designers,dc=acme']), false);
    assert.equal(matchesGroup(rule('cn=designers,ou=groups,dc=acme,dc=test'), ['designers']), false);
    assert.equal(matchesGroup(rule('designers'), []), false);
  });

  it('read an escaped comma in a group name', () => {
    assert.ok(matchesGroup(rule('design\\, europe'), ['cn=Design\\, Europe,ou=groups,dc=acme,dc=test']));
  });
});
