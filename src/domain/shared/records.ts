/** The mapping pieces every API record shares (see `Stamps` and `InTeam` in src/schemas/records.ts). */

/** When the record was made and last changed, and its revision (`__v`). */
export function stamps(row: { created_at: string; updated_at: string; version: number }) {
  return { createdAt: row.created_at, updatedAt: row.updated_at, __v: row.version };
}

/** The tenant and team the record belongs to. */
export function inTeam(row: { company_id: string; team_id: string }) {
  return { company: row.company_id, team: row.team_id };
}
