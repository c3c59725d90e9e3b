/**
 * The company's audit log, for its owners: entries newest first in the person's time zone, filtered
 * by person, kind and days (kept in the address, so a reload or a shared link shows the same),
 * "Load more" by the API's cursor, and exports of everything the filters keep.
 */
import { parseDate } from '@internationalized/date';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { components } from '@taskboard/client';
import { type FormEvent, useId } from 'react';
import { useSearchParams } from 'react-router';
import { type Company, client, unwrap } from '../api.ts';
import { currentTimeZone } from '../i18n/messages.ts';
import { Outcome, Part, when } from '../parts.tsx';
import { t } from '../strings.ts';
import { browserOf } from '../ui/browserName.ts';
import { AUDIT_KINDS, auditText, kindInWords } from './audit-strings.ts';
import { useCompanyMembers, useCompanyTeams } from './MembersPage.tsx';
import { ADMIN_STALE_TIME, Refused, refused } from './parts.tsx';

type AuditEntry = components['schemas']['AuditEntry'];

const PAGE_SIZE = 50;

/** The details an entry may carry that the table shows, in this order (ids and counts stay in the export). */
const SHOWN_DETAILS = ['reason', 'method', 'role', 'from', 'to', 'email', 'name', 'format', 'host', 'methods', 'required'] as const;

/** A day typed in a date field (`YYYY-MM-DD`), as the instant it starts in the person's time zone; `next`: the day after. */
function dayStart(day: string, next = false): string | undefined {
  try {
    const date = parseDate(day);
    return (next ? date.add({ days: 1 }) : date).toDate(currentTimeZone()).toISOString();
  } catch {
    return undefined;
  }
}

interface AuditFilters {
  actor?: string;
  kind?: string;
  since?: string;
  until?: string;
}

/** The API's filters from the address: the days are whole days of the person's time zone, "To" included. */
function filtersOf(params: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  const actor = params.get('actor');
  const kind = params.get('kind');
  const since = dayStart(params.get('from') ?? '');
  const until = dayStart(params.get('to') ?? '', true);
  if (actor) filters.actor = actor;
  if (kind && (AUDIT_KINDS as readonly string[]).includes(kind)) filters.kind = kind;
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

export function AuditPage({ company }: { company: Company }) {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const filtered = Object.keys(filters).length > 0;
  const members = useCompanyMembers(company._id);
  const teams = useCompanyTeams(company._id);
  const entries = useInfiniteQuery({
    queryKey: ['admin', company._id, 'audit', filters],
    staleTime: ADMIN_STALE_TIME,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await client.GET('/api/v1/companies/{companyId}/audit-log', {
          params: { path: { companyId: company._id }, query: { ...filters, limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  if (refused(entries.error)) return <Refused />;
  const rows = entries.data?.pages.flatMap((page) => page.entries) ?? [];
  const names = new Map<string, string>([
    ...(members.data ?? []).map((member) => [member._id, member.fullName] as [string, string]),
    ...(teams.data ?? []).map((team) => [team._id, team.name] as [string, string]),
  ]);
  const exportUrl = (format: 'csv' | 'jsonl') =>
    `/api/v1/companies/${encodeURIComponent(company._id)}/audit-log/export?${new URLSearchParams({ format, ...filters })}`;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of ['actor', 'kind', 'from', 'to']) {
      const value = String(form.get(name) ?? '');
      if (value) next.set(name, value);
    }
    setParams(next);
  }
  return (
    <Part title={auditText.title}>
      <p className="muted">{auditText.intro}</p>
      <AuditFilterForm
        key={params.toString()}
        params={params}
        members={members.data ?? []}
        onSubmit={submit}
        onClear={() => setParams(new URLSearchParams())}
      />
      <div className="audit-export" role="group" aria-label={auditText.exportTitle}>
        <a className="button" href={exportUrl('csv')} download>
          {auditText.exportCsv}
        </a>
        <a className="button" href={exportUrl('jsonl')} download>
          {auditText.exportJsonl}
        </a>
        <span className="muted">{auditText.exportHint}</span>
      </div>
      {rows.length > 0 ? (
        <table className="admin-table audit-table">
          <caption className="visually-hidden">{auditText.title}</caption>
          <thead>
            <tr>
              <th scope="col">{auditText.time}</th>
              <th scope="col">{auditText.actor}</th>
              <th scope="col">{auditText.kind}</th>
              <th scope="col">{auditText.target}</th>
              <th scope="col">{auditText.address}</th>
              <th scope="col">{auditText.agent}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <AuditRow key={entry._id} entry={entry} names={names} />
            ))}
          </tbody>
        </table>
      ) : null}
      {entries.data && rows.length === 0 ? <p className="audit-empty">{filtered ? auditText.emptyFiltered : auditText.empty}</p> : null}
      {rows.length > 0 ? <p className="muted">{auditText.shown(rows.length)}</p> : null}
      {entries.hasNextPage ? (
        <button type="button" disabled={entries.isFetchingNextPage} onClick={() => entries.fetchNextPage()}>
          {t.loadMore}
        </button>
      ) : null}
      <Outcome error={entries.error} success={null} />
    </Part>
  );
}

function AuditFilterForm({
  params,
  members,
  onSubmit,
  onClear,
}: {
  params: URLSearchParams;
  members: { _id: string; fullName: string; email: string }[];
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  onClear: () => void;
}) {
  const id = useId();
  const actor = params.get('actor') ?? '';
  return (
    <form className="audit-filters" aria-labelledby={id} onSubmit={onSubmit}>
      <h3 id={id} className="visually-hidden">
        {auditText.filters}
      </h3>
      <label>
        {auditText.person}
        <select name="actor" defaultValue={actor}>
          <option value="">{auditText.anyone}</option>
          {actor && !members.some((member) => member._id === actor) ? <option value={actor}>{actor}</option> : null}
          {members.map((member) => (
            <option key={member._id} value={member._id}>
              {member.fullName} ({member.email})
            </option>
          ))}
        </select>
      </label>
      <label>
        {auditText.kind}
        <select name="kind" defaultValue={params.get('kind') ?? ''}>
          <option value="">{auditText.anyKind}</option>
          {AUDIT_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kindInWords(kind)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {auditText.from}
        <input type="date" name="from" defaultValue={params.get('from') ?? ''} />
      </label>
      <label>
        {auditText.to}
        <input type="date" name="to" defaultValue={params.get('to') ?? ''} />
      </label>
      <div className="audit-filter-actions">
        <button type="submit" className="primary">
          {auditText.apply}
        </button>
        {params.size > 0 ? (
          <button type="button" onClick={onClear}>
            {auditText.clear}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function detailValue(value: unknown): string | null {
  if (typeof value === 'boolean') return value ? auditText.yes : auditText.no;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
  return null;
}

/** What an entry was done to, in words: a person or team by name, a key or board by the name the entry kept. */
function targetInWords(entry: AuditEntry, names: Map<string, string>): string {
  const target = entry.target;
  if (!target) return auditText.none;
  const kept = typeof entry.details.name === 'string' ? entry.details.name : undefined;
  const known = names.get(target.id);
  switch (target.type) {
    case 'user':
      return `${auditText.targetUser}: ${known ?? (typeof entry.details.email === 'string' ? entry.details.email : target.id)}`;
    case 'team':
      return `${auditText.targetTeam}: ${known ?? kept ?? target.id}`;
    case 'board':
      return `${auditText.targetBoard}: ${kept ?? target.id}`;
    case 'api_key':
      return `${auditText.targetKey}: ${kept ?? target.id}`;
    case 'webhook':
      return `${auditText.targetWebhook}: ${typeof entry.details.host === 'string' ? entry.details.host : target.id}`;
    case 'invitation':
      return `${auditText.targetInvitation}: ${typeof entry.details.email === 'string' ? entry.details.email : target.id}`;
    default:
      return `${auditText.targetOther}: ${target.id}`;
  }
}

function AuditRow({ entry, names }: { entry: AuditEntry; names: Map<string, string> }) {
  const details = SHOWN_DETAILS.flatMap((key) => {
    const value = detailValue(entry.details[key]);
    return value === null ? [] : [`${auditText.detail[key]}: ${value}`];
  });
  const actorName = entry.actor ? names.get(entry.actor._id) : undefined;
  return (
    <tr>
      <td data-label={auditText.time}>
        <time dateTime={entry.at}>{when(entry.at)}</time>
      </td>
      <td data-label={auditText.actor}>
        {entry.actor ? (
          <>
            {actorName ?? entry.actor.email ?? entry.actor._id}
            {actorName && entry.actor.email ? <span className="muted audit-sub">{entry.actor.email}</span> : null}
          </>
        ) : (
          <span className="muted">{auditText.nobody}</span>
        )}
        {entry.apiKey ? <span className="muted audit-sub">{auditText.byKey}</span> : null}
      </td>
      <th scope="row" data-label={auditText.kind}>
        {kindInWords(entry.kind)}
        {details.length ? <span className="muted audit-sub">{details.join(' · ')}</span> : null}
      </th>
      <td data-label={auditText.target}>{targetInWords(entry, names)}</td>
      <td data-label={auditText.address} className="audit-nowrap">
        {entry.ip ?? auditText.none}
      </td>
      <td data-label={auditText.agent} title={entry.userAgent ?? undefined}>
        {entry.userAgent ? browserOf(entry.userAgent) : auditText.none}
      </td>
    </tr>
  );
}
