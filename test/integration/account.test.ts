import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BootstrapResult, bootstrap } from '../../src/domain/account/bootstrap.ts';
import {
  authenticate,
  createApiKey,
  getMe,
  issueApiKey,
  issueApiKeyForEmail,
  listApiKeys,
  MAX_LIVE_KEYS_PER_USER,
  revokeApiKey,
  rotateApiKey,
} from '../../src/domain/account/service.ts';
import { hashToken } from '../../src/domain/account/tokens.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import type { Caller } from '../../src/domain/shared/caller.ts';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../../src/domain/shared/errors.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import { ENGINES, openTestStorage, serviceContext, type TestStorage } from '../support/harness.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`account service [${engine}]`, () => {
    let storage: TestStorage;
    let ctx: ServiceContext;
    let acme: BootstrapResult;
    let globex: BootstrapResult;
    let owner: Caller;
    let stranger: Caller;

    before(async () => {
      storage = await openTestStorage(engine);
      ctx = serviceContext(storage.storage);
      acme = await bootstrap(ctx, { company: 'Acme', team: 'Core', email: 'owner@acme.test', fullName: 'Olive Owner' });
      globex = await bootstrap(ctx, { company: 'Globex', team: 'Ops', email: 'hank@globex.test', fullName: 'Hank Scorpio' });
      owner = await authenticate(ctx, acme.apiKey);
      stranger = await authenticate(ctx, globex.apiKey);
    });
    after(() => storage.dispose());

    it('issues a key whose token is returned once and stored only as its SHA-256 hash', async () => {
      const { apiKey, token } = await createApiKey(ctx, owner, { name: '  ci runner  ' });
      assert.match(token, /^tb_[A-Za-z0-9_-]{43}$/);
      assert.equal(apiKey.name, 'ci runner');
      assert.equal(apiKey.prefix, token.slice(0, 9));
      assert.match(apiKey.createdAt, ISO);
      assert.equal(apiKey.lastUsedAt, null);
      assert.deepEqual(Object.keys(apiKey).sort(), ['_id', 'access', 'createdAt', 'expiresAt', 'lastUsedAt', 'lastUsedIp', 'name', 'prefix', 'teams']);
      // a key made without limits keeps its user's whole reach, with no end
      assert.deepEqual([apiKey.access, apiKey.teams, apiKey.expiresAt], ['read-write', null, null]);

      const row = await ctx.db.selectFrom('api_keys').selectAll().where('id', '=', apiKey._id).executeTakeFirstOrThrow();
      assert.equal(row.token_hash, hashToken(token));
      assert.ok(!Object.values(row).some((value) => typeof value === 'string' && value.includes(token)));

      const caller = await authenticate(ctx, token);
      assert.equal(caller.userId, acme.userId);
      assert.equal(caller.apiKeyId, apiKey._id);
      assert.equal(caller.companyRoles.get(acme.companyId), 'owner');
      assert.ok(caller.teamIds.has(acme.teamId));
    });

    it('rejects empty or overlong key names', async () => {
      await assert.rejects(createApiKey(ctx, owner, { name: '   ' }), ValidationError);
      await assert.rejects(createApiKey(ctx, owner, { name: 'x'.repeat(101) }), ValidationError);
    });

    it('lists only the caller’s live keys, oldest first, without tokens or hashes', async () => {
      const first = await createApiKey(ctx, owner, { name: 'list-a' });
      const second = await createApiKey(ctx, owner, { name: 'list-b' });
      const keys = await listApiKeys(ctx, owner);
      const ids = keys.map((k) => k._id);
      assert.ok([first.apiKey._id, second.apiKey._id, owner.apiKeyId!].every((id) => ids.includes(id)));
      const created = keys.map((k) => k.createdAt);
      assert.deepEqual(created, [...created].sort());
      for (const key of keys)
        assert.deepEqual(Object.keys(key).sort(), ['_id', 'access', 'createdAt', 'expiresAt', 'lastUsedAt', 'lastUsedIp', 'name', 'prefix', 'teams']);
      const serialized = JSON.stringify(keys);
      assert.ok(!serialized.includes(first.token) && !serialized.includes(hashToken(first.token)));

      const theirs = await listApiKeys(ctx, stranger);
      assert.deepEqual(
        theirs.map((k) => k._id),
        [stranger.apiKeyId],
      );
    });

    it('records lastUsedAt when a key authenticates', async () => {
      const { apiKey, token } = await createApiKey(ctx, owner, { name: 'touch' });
      await authenticate(ctx, token);
      const listed = (await listApiKeys(ctx, owner)).find((k) => k._id === apiKey._id);
      assert.match(listed?.lastUsedAt ?? '', ISO);
    });

    it('revokes a key: its token fails at once and it leaves the listing', async () => {
      const { apiKey, token } = await createApiKey(ctx, owner, { name: 'to revoke' });
      const revoked = await revokeApiKey(ctx, owner, apiKey._id);
      assert.equal(revoked._id, apiKey._id);
      assert.equal(revoked.name, 'to revoke');
      await assert.rejects(
        async () => authenticate(ctx, token),
        (e: unknown) => e instanceof UnauthorizedError && e.invalidToken,
      );
      assert.ok(!(await listApiKeys(ctx, owner)).some((k) => k._id === apiKey._id));
      // Revoking twice finds nothing: a revoked key is gone for its owner.
      await assert.rejects(revokeApiKey(ctx, owner, apiKey._id), NotFoundError);
    });

    it('lets a user revoke the key it is calling with', async () => {
      const { token } = await createApiKey(ctx, owner, { name: 'self' });
      const self = await authenticate(ctx, token);
      await revokeApiKey(ctx, self, self.apiKeyId!);
      await assert.rejects(async () => authenticate(ctx, token), UnauthorizedError);
    });

    it('does not reveal or touch another user’s key', async () => {
      const mine = await createApiKey(ctx, owner, { name: 'mine' });
      await assert.rejects(revokeApiKey(ctx, stranger, mine.apiKey._id), NotFoundError);
      await assert.rejects(rotateApiKey(ctx, stranger, mine.apiKey._id), NotFoundError);
      await assert.rejects(revokeApiKey(ctx, owner, newId()), NotFoundError);
      assert.equal((await authenticate(ctx, mine.token)).apiKeyId, mine.apiKey._id);
    });

    it('rotates a key: same id and name, new token and prefix, the old token fails at once', async () => {
      const original = await createApiKey(ctx, owner, { name: 'rotating' });
      await authenticate(ctx, original.token);
      const rotated = await rotateApiKey(ctx, owner, original.apiKey._id);
      assert.equal(rotated.apiKey._id, original.apiKey._id);
      assert.equal(rotated.apiKey.name, 'rotating');
      assert.equal(rotated.apiKey.createdAt, original.apiKey.createdAt);
      assert.notEqual(rotated.token, original.token);
      assert.equal(rotated.apiKey.prefix, rotated.token.slice(0, 9));
      // The new token has not been used yet.
      assert.equal(rotated.apiKey.lastUsedAt, null);
      await assert.rejects(async () => authenticate(ctx, original.token), UnauthorizedError);
      assert.equal((await authenticate(ctx, rotated.token)).apiKeyId, original.apiKey._id);

      await revokeApiKey(ctx, owner, original.apiKey._id);
      await assert.rejects(rotateApiKey(ctx, owner, original.apiKey._id), NotFoundError);
    });

    it('caps the live keys of a user, counting revoked ones out', async () => {
      const solo = await bootstrap(ctx, { company: 'Solo', team: 'One', email: 'solo@solo.test', fullName: 'Solo' });
      const caller = await authenticate(ctx, solo.apiKey);
      for (let i = 1; i < MAX_LIVE_KEYS_PER_USER; i++) await issueApiKey(ctx, solo.userId, `k${i}`);
      await assert.rejects(createApiKey(ctx, caller, { name: 'one too many' }), ConflictError);
      const [oldest] = await listApiKeys(ctx, caller);
      await revokeApiKey(ctx, caller, oldest!._id);
      const made = await createApiKey(ctx, caller, { name: 'room again' });
      assert.equal(made.apiKey.name, 'room again');
    });

    it('keeps the cap when creates race: of parallel creates for the last free place, one succeeds', async () => {
      const racer = await bootstrap(ctx, { company: 'Race', team: 'One', email: 'racer@race.test', fullName: 'Racer' });
      const caller = await authenticate(ctx, racer.apiKey);
      for (let i = 2; i < MAX_LIVE_KEYS_PER_USER; i++) await issueApiKey(ctx, racer.userId, `k${i}`);
      const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => createApiKey(ctx, caller, { name: `last ${i}` })));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one takes the last place');
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof ConflictError, String(r.reason));
      assert.equal((await listApiKeys(ctx, caller)).length, MAX_LIVE_KEYS_PER_USER);
    });

    it('issues a key by email for the administration command', async () => {
      const issued = await issueApiKeyForEmail(ctx, { email: ' OWNER@acme.test ' });
      assert.equal(issued.userId, acme.userId);
      const caller = await authenticate(ctx, issued.apiKey);
      assert.equal(caller.apiKeyId, issued.apiKeyId);
      assert.equal((await listApiKeys(ctx, owner)).find((k) => k._id === issued.apiKeyId)?.name, 'cli');
      const named = await issueApiKeyForEmail(ctx, { email: 'owner@acme.test', name: 'deploy' });
      assert.equal((await listApiKeys(ctx, owner)).find((k) => k._id === named.apiKeyId)?.name, 'deploy');
      await assert.rejects(issueApiKeyForEmail(ctx, { email: 'nobody@acme.test' }), NotFoundError);
    });

    it('bootstrap adding a user to an existing team records it as any change of members does', async () => {
      const first = await bootstrap(ctx, { company: 'Initech', team: 'Core', email: `peter-${engine}@initech.test`, fullName: 'Peter' });
      const design = await bootstrap(ctx, { company: 'Initech', team: 'Design', email: `peter-${engine}@initech.test`, fullName: 'Peter' });
      assert.equal(design.companyId, first.companyId);
      // Peter left the team (the row alone: what matters is that the team exists without him)
      await storage.storage.db.deleteFrom('team_members').where('team_id', '=', design.teamId).where('user_id', '=', first.userId).execute();
      const team = () => storage.storage.db.selectFrom('teams').select('version').where('id', '=', design.teamId).executeTakeFirstOrThrow();
      const added = () =>
        storage.storage.db.selectFrom('events').selectAll().where('team_id', '=', design.teamId).where('type', '=', 'team.member.added').execute();
      const before = Number((await team()).version);
      assert.equal((await added()).length, 0);

      const again = await bootstrap(ctx, { company: 'Initech', team: 'Design', email: `peter-${engine}@initech.test`, fullName: 'Peter' });
      assert.equal(again.teamId, design.teamId);
      const events = await added();
      assert.equal(events.length, 1, 'one team.member.added');
      assert.deepEqual(
        [events[0]!.company_id, events[0]!.user_id, events[0]!.actor_user_id, JSON.parse(events[0]!.data)],
        [first.companyId, first.userId, null, { user: first.userId }],
      );
      assert.equal(Number((await team()).version), before + 1, "the team's __v grows");

      // already a member: nothing changes, nothing is recorded
      await bootstrap(ctx, { company: 'Initech', team: 'Design', email: `peter-${engine}@initech.test`, fullName: 'Peter' });
      assert.equal((await added()).length, 1);
      assert.equal(Number((await team()).version), before + 1);
    });

    it('describes the caller: user, companies with its role, teams with their members', async () => {
      // A second member of Acme's team, and a team of Acme the owner is not in.
      const now = nowIso();
      const memberId = newId();
      const otherTeamId = newId();
      await ctx.db
        .insertInto('users')
        .values({ id: memberId, email: 'mia@acme.test', full_name: 'Mia Member', photo_url: '', created_at: now, updated_at: now })
        .execute();
      await ctx.db.insertInto('company_members').values({ company_id: acme.companyId, user_id: memberId, role: 'member', created_at: now }).execute();
      await ctx.db.insertInto('team_members').values({ team_id: acme.teamId, user_id: memberId, created_at: now }).execute();
      await ctx.db
        .insertInto('teams')
        .values({ id: otherTeamId, company_id: acme.companyId, name: 'Side', creator_id: memberId, created_at: now, updated_at: now, version: 0 })
        .execute();
      await ctx.db.insertInto('team_members').values({ team_id: otherTeamId, user_id: memberId, created_at: now }).execute();

      const me = await getMe(ctx, owner);
      assert.deepEqual(Object.keys(me.user).sort(), [
        '_id',
        'createdAt',
        'email',
        'emailCadence',
        'emailNotifications',
        'fullName',
        'locale',
        'photoUrl',
        'timeZone',
        'updatedAt',
      ]);
      assert.equal(me.user._id, acme.userId);
      assert.equal(me.user.email, 'owner@acme.test');
      assert.equal(me.user.fullName, 'Olive Owner');
      assert.equal(me.companies.length, 1);
      assert.equal(me.companies[0]?._id, acme.companyId);
      assert.equal(me.companies[0]?.name, 'Acme');
      assert.equal(me.companies[0]?.role, 'owner');
      assert.equal(me.companies[0]?.__v, 0);
      assert.deepEqual(
        me.teams.map((t) => t._id),
        [acme.teamId],
      );
      assert.equal(me.teams[0]?.company, acme.companyId);
      assert.deepEqual(me.teams[0]?.members, [
        { _id: acme.userId, fullName: 'Olive Owner', photoUrl: '' },
        { _id: memberId, fullName: 'Mia Member', photoUrl: '' },
      ]);

      const member = await authenticate(ctx, (await issueApiKey(ctx, memberId, 'mia')).token);
      const theirs = await getMe(ctx, member);
      assert.equal(theirs.companies[0]?.role, 'member');
      assert.deepEqual(theirs.teams.map((t) => t.name).sort(), ['Core', 'Side']);

      const strangerMe = await getMe(ctx, stranger);
      assert.deepEqual(
        strangerMe.companies.map((c) => c._id),
        [globex.companyId],
      );
      assert.deepEqual(
        strangerMe.teams.map((t) => t._id),
        [globex.teamId],
      );
    });
  });
}
