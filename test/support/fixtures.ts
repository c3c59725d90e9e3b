/** Test data written through the real storage, for suites that need a board, a member or a card without testing how one is made. */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { issueApiKey } from '../../src/domain/account/service.ts';
import type { ServiceContext } from '../../src/domain/context.ts';
import { newId, nowIso } from '../../src/domain/shared/ids.ts';
import type { CompanyRole, NewRow } from '../../src/storage/database.ts';

export interface BoardFixture {
  boardId: string;
  listIds: string[];
  labelIds: string[];
}

export async function seedBoard(
  ctx: ServiceContext,
  tenant: { companyId: string; teamId: string; userId: string },
  options: { lists?: number; labels?: number } = {},
): Promise<BoardFixture> {
  const now = nowIso();
  const owner = { company_id: tenant.companyId, team_id: tenant.teamId, creator_id: tenant.userId, created_at: now, updated_at: now, version: 0 };
  const boardId = newId();
  await ctx.db
    .insertInto('boards')
    .values({ id: boardId, name: 'Board', ...owner })
    .execute();
  const listIds = Array.from({ length: options.lists ?? 1 }, () => newId());
  if (listIds.length) {
    await ctx.db
      .insertInto('lists')
      .values(listIds.map((id, i) => ({ id, board_id: boardId, name: `List ${i}`, position: (i + 1) * 1024, ...owner })))
      .execute();
  }
  const labelIds = Array.from({ length: options.labels ?? 0 }, () => newId());
  if (labelIds.length) {
    await ctx.db
      .insertInto('labels')
      .values(labelIds.map((id, i) => ({ id, board_id: boardId, name: `Label ${i}`, color_id: '000000000000000000000001', ...owner })))
      .execute();
  }
  return { boardId, listIds, labelIds };
}

/**
 * `cardsPerList` cards in each list of a seeded board, written straight to storage in batches (the
 * benches' large boards), named `card <list>-<index>`; answers their ids, list by list.
 */
export async function seedCards(
  ctx: ServiceContext,
  tenant: { companyId: string; teamId: string; userId: string },
  board: Pick<BoardFixture, 'boardId' | 'listIds'>,
  cardsPerList: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (const [l, listId] of board.listIds.entries()) {
    const list = { company: tenant.companyId, team: tenant.teamId, board: board.boardId, _id: listId };
    const rows = Array.from({ length: cardsPerList }, (_, i) => cardRow(list, tenant.userId, `card ${l}-${i}`, (i + 1) * 1024));
    for (let i = 0; i < rows.length; i += 500)
      await ctx.db
        .insertInto('cards')
        .values(rows.slice(i, i + 500))
        .execute();
    ids.push(...rows.map((row) => row.id));
  }
  return ids;
}

/** A multipart/form-data body as a browser or curl would send it. */
export function multipart(fields: Record<string, string>, file?: { field?: string; filename: string; contentType: string; content: Buffer }) {
  const boundary = `----taskboard${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * A card row for writing straight to storage (suites that test boards or labels, not cards).
 * Columns with a database default are left to it unless `extra` sets them.
 */
export function cardRow(
  list: { _id: string; board: string; company: string; team: string },
  creatorId: string,
  name: string,
  position: number,
  extra: Partial<NewRow<'cards'>> = {},
): NewRow<'cards'> {
  const now = nowIso();
  return {
    id: newId(),
    company_id: list.company,
    team_id: list.team,
    board_id: list.board,
    list_id: list._id,
    name,
    creator_id: creatorId,
    position,
    start_date: null,
    due_date: null,
    complete_set_at: null,
    complete_updated_at: null,
    created_at: now,
    updated_at: now,
    ...extra,
  };
}

export interface MemberFixture {
  userId: string;
  apiKey: string;
}

/**
 * Another user in an existing company (and, when `teamIds` are given, in those teams), with an API
 * key: for suites that need several people without going through the company and team routes.
 */
export async function addMember(
  ctx: ServiceContext,
  input: { companyId: string; teamIds?: string[]; email: string; fullName?: string; role?: CompanyRole },
): Promise<MemberFixture> {
  const now = nowIso();
  const userId = newId();
  await ctx.db
    .insertInto('users')
    .values({ id: userId, email: input.email, full_name: input.fullName ?? input.email, photo_url: '', created_at: now, updated_at: now })
    .execute();
  await ctx.db
    .insertInto('company_members')
    .values({ company_id: input.companyId, user_id: userId, role: input.role ?? 'member', created_at: now })
    .execute();
  for (const teamId of input.teamIds ?? []) {
    await ctx.db.insertInto('team_members').values({ team_id: teamId, user_id: userId, created_at: now }).execute();
  }
  const { token } = await issueApiKey(ctx, userId, 'test');
  return { userId, apiKey: token };
}

/** A new team in an existing company, with the given members (the first is its creator). */
export async function addTeam(ctx: ServiceContext, companyId: string, name: string, memberIds: readonly [string, ...string[]]): Promise<string> {
  const now = nowIso();
  const teamId = newId();
  await ctx.db
    .insertInto('teams')
    .values({ id: teamId, company_id: companyId, name, creator_id: memberIds[0], created_at: now, updated_at: now, version: 0 })
    .execute();
  for (const userId of memberIds) await ctx.db.insertInto('team_members').values({ team_id: teamId, user_id: userId, created_at: now }).execute();
  return teamId;
}

/** Every stored file under the upload directory (paths relative to it, sorted; none when it does not exist yet), to count files and find orphans. */
export function storedFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath.slice(root.length + 1)}/${e.name}`)
    .sort();
}
