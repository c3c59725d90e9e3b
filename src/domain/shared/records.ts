/** The mapping pieces every API record shares (see `Stamps` and `InTeam` in src/schemas/records.ts). */

/** When the record was made and last changed, and its revision (`__v`). */
export function stamps(row: { created_at: string; updated_at: string; version: number }) {
  return { createdAt: row.created_at, updatedAt: row.updated_at, __v: row.version };
}

/** The tenant and team the record belongs to. */
export function inTeam(row: { company_id: string; team_id: string }) {
  return { company: row.company_id, team: row.team_id };
}

/** What every record someone made shares: its id, its creator and its stamps. */
export function made(row: { id: string; creator_id: string; created_at: string; updated_at: string; version: number }) {
  return { _id: row.id, creator: row.creator_id, ...stamps(row) };
}

/** A record made in a team: `made` and `inTeam`. */
export function madeInTeam(row: { id: string; creator_id: string; company_id: string; team_id: string; created_at: string; updated_at: string; version: number }) {
  return { ...made(row), ...inTeam(row) };
}
